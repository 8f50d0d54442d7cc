"""Static files at addresses that name their content: `/static/pbem.css?v=<hash>`.

Pages link the stylesheet and scripts with a short hash of their bytes. A request carrying
the current hash is answered with a year's `max-age`, so a browser keeps the file and does
not ask again on every page; a release that changes the bytes changes the address. Without
the hash (a page cached from before, a typed address), or with another one (a worker of the
previous release during a rolling restart), a file is served as before: `no-cache` with its
ETag, so the browser asks again next time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from flask import Flask, request

YEAR = 365 * 24 * 3600


def init_app(app: Flask) -> None:
    folder = Path(app.static_folder or "")
    # By file name, for the names the templates link (never a name from a request).
    versions: dict[str, str] = {}

    def version(filename: str) -> str | None:
        found = versions.get(filename)
        if found is None:
            try:
                found = hashlib.sha256((folder / filename).read_bytes()).hexdigest()[:12]
            except OSError:
                return None
            versions[filename] = found
        return found

    @app.url_defaults
    def _name_the_content(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "v" not in values:
            found = version(str(values.get("filename", "")))
            if found is not None:
                values["v"] = found

    served_before = app.get_send_file_max_age

    def max_age(filename: str | None) -> int | None:
        # Only a hash already worked out for a linked file: a request's path reads no file.
        if filename is not None and request.args.get("v") == versions.get(filename, False):
            return YEAR
        return served_before(filename)

    app.get_send_file_max_age = max_age  # type: ignore[method-assign]
