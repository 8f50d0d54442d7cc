"""Running an import under a library release it was not written for (the reaches' tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def refused_at_import(script: str, library: str, written_for: str, installed: str) -> None:
    """Run `script` (which fakes the installed release, then imports) in a fresh Python and
    hold that the import refuses, naming both releases."""
    ran = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT)}, check=False)
    assert ran.returncode != 0
    assert "LibraryVersionError" in ran.stderr
    assert (f"written for {library} {written_for}.x, but {library} {installed} is installed"
            in ran.stderr)
