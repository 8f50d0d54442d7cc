"""The one check every module that reaches into a library's private state makes at import:
the installed release is the one the module was written for (major.minor), or pbem refuses
to start. Each such module is the only one that reaches into its library:
`pbem/core/db/peewee_reach.py`, `pbem/web/flask_reach.py`."""

from __future__ import annotations


class LibraryVersionError(RuntimeError):
    """A library's private state is reached into, and the installed release is not the one
    the reaching code was written for."""


def check_version(library: str, installed: str, written_for: str, module: str) -> None:
    """Refuse a release of `library` whose major.minor is not `written_for`."""
    if installed.split(".")[:2] != written_for.split("."):
        raise LibraryVersionError(
            f"{module} reaches into {library}'s private state and was written for "
            f"{library} {written_for}.x, but {library} {installed} is installed: check each "
            f"reach listed in its docstring against this release, then update its "
            f"WRITTEN_FOR and the pin in pyproject.toml")
