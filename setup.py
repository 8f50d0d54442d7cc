"""Build step that pyproject.toml cannot express: ship the top-level `templates/` folder.

The templates stay at the top of the repository (one folder per blueprint, easy to find and
edit). A wheel copies them into the package as `pbem/_templates`; `pbem/paths.py` looks there
first and falls back to the checkout's folder, so editable installs and the test suite read
the templates in place. Everything else is configured in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATES = Path(__file__).resolve().parent / "templates"


class BuildWithTemplates(build_py):
    def run(self) -> None:
        super().run()
        # An editable install reads the checkout's templates/ directly (see pbem/paths.py).
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "pbem" / "_templates"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(TEMPLATES, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "pbem" / "_templates"
            outputs += [str(target / path.relative_to(TEMPLATES))
                        for path in TEMPLATES.rglob("*") if path.is_file()]
        return outputs


setup(cmdclass={"build_py": BuildWithTemplates})
