"""What pbem does beside Flask's documented behaviour, in one place, for the Flask release it
was written against: importing this module under another release fails at once
(tests/web/site/test_flask_reach.py holds the check).

- `SessionJSON`, the session cookie's serializer (Flask's extension point,
  `SecureCookieSessionInterface.serializer`): Flask's tagged JSON, written the same, byte
  for byte, tuples kept as tuples; but a value of a plain type (text, numbers, lists, tuples,
  dicts) is tagged by its type at once, where Flask asks each of its eight tags in turn
  whether it is that tag's type. That asking was a twentieth of a posted move's
  instructions. It repeats the order of Flask's tags, hence the version check.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from flask.json.tag import TaggedJSONSerializer, TagTuple

from pbem.library_versions import LibraryVersionError, check_version

# The Flask release (major.minor) this module was written and tested against.
WRITTEN_FOR = "3.1"

check_version("flask", version("flask"), WRITTEN_FOR, __name__)

__all__ = ["WRITTEN_FOR", "LibraryVersionError", "SessionJSON"]

_PLAIN = frozenset({str, int, float, bool, type(None)})


class SessionJSON(TaggedJSONSerializer):
    """Flask's session serializer, tagging a plain type's value without asking every tag."""

    def tag(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value  # no tag of Flask's takes these
        if kind is list:
            return [self.tag(item) for item in value]
        if kind is tuple:
            return {TagTuple.key: [self.tag(item) for item in value]}
        if kind is dict and not (len(value) == 1 and next(iter(value)) in self.tags):
            return {key: self.tag(item) for key, item in value.items()}
        return super().tag(value)  # a dict that reads as a tag, bytes, Markup, times…
