"""MkDocs hooks (`hooks:` in mkdocs.yml): the pages generated from the code at every build.

- operators/settings.md, from the settings' definitions (docs/gen_config.py);
- api/operations.md and api/openapi.json, from the API's description (docs/gen_api.py).

They are added as generated files, never written into docs/, so a build leaves the checkout
as it was and the pages cannot be stale.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

# The generators sit beside this file; MkDocs loads a hook by path, not as a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_api
import gen_config


def on_files(files: Files, config: Any) -> Files:
    for path, content in (("operators/settings.md", gen_config.render()),
                          ("api/operations.md", gen_api.render()),
                          ("api/openapi.json", gen_api.openapi_json())):
        files.append(File.generated(config, path, content=content))
    return files
