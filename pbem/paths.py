"""Where pbem's own files are: the templates folder, in a checkout or an installed wheel.

The repository keeps `templates/` at its top level. A wheel cannot install a folder beside the
package, so the build copies it into the package as `pbem/_templates` (see setup.py). A
checkout or an editable install has no such copy and reads the top-level folder.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def templates_dir() -> Path:
    for candidate in (_PACKAGE / "_templates", _PACKAGE.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise RuntimeError(
        f"pbem's templates are missing: neither {_PACKAGE / '_templates'} (an installed "
        f"wheel) nor {_PACKAGE.parent / 'templates'} (a checkout) holds base.html. "
        "Reinstall pbem.")


TEMPLATES = templates_dir()
