"""Input checks at the edge, before any view runs, so odd input gets a clear 400 or 404.

- Ids in URLs are bounded: `/matches/9223372036854775808` is simply not a page (404), instead
  of a number no database column can hold.
- Text no database can store (NUL characters, broken Unicode) in the path, the query string, a
  form or a JSON body is refused with 400 before it reaches a query; so is JSON nested deeper
  than the parser can follow.
- `whole_number` reads a count typed into a form or query string: ASCII digits only
  (`str.isdigit` also accepts "²"), and never thousands of digits.
- `tick_box` reads a check box: ticked sends `yes`, unticked sends nothing; anything else is
  refused rather than read as either, so a mangled form changes no setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import Flask, request
from werkzeug.datastructures import MultiDict
from werkzeug.routing import IntegerConverter

from pbem.core.db.text import storable
from pbem.errors import InvalidRequestError
from pbem.i18n import N_, _, lazy_gettext
from pbem.web.site import steps

# Row ids are 32-bit on PostgreSQL (SERIAL) and MariaDB (INT).
MAX_ID = 2**31 - 1
MAX_DIGITS = 9


class BoundedIntConverter(IntegerConverter):
    """`<int:…>` in every route: a non-negative id that fits a database column, else 404."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


def whole_number(raw: str) -> int | None:
    """`raw` as a non-negative whole number, or None if it is not one we could ever use."""
    text = raw.strip()
    if not text or len(text) > MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def json_whole(value: object) -> int | None:
    """A JSON number that is a whole number (`15` or `15.0`: JSON, and JSON Schema's
    "integer", do not tell them apart), else None; true and false are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return None


def json_object(known: Iterable[str], required: Iterable[str]) -> dict[str, Any]:
    """The request's JSON body, an object with the `required` fields and no field outside
    `known`; InvalidRequestError (400) that says what is wrong otherwise."""
    if not request.is_json:
        raise InvalidRequestError(_("send a JSON body with Content-Type: application/json"))
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise InvalidRequestError(_("the body must be a JSON object"))
    known_fields(body, known)
    for name in required:
        if name not in body:
            raise InvalidRequestError(_('"%(name)s" is required', name=name))
    return body


def known_fields(body: Mapping[str, Any], known: Iterable[str]) -> None:
    """Refuse a JSON body with a field the endpoint does not know (400), naming them all:
    a misspelt field must not be silently ignored."""
    names = list(known)
    unknown = sorted(set(body) - set(names))
    if unknown:
        raise InvalidRequestError(_("unknown field(s): %(unknown)s (known: %(known)s)",
                                    unknown=", ".join(unknown), known=", ".join(names)))


def tick_box(form: MultiDict[str, str], name: str, label: str) -> bool:
    """Whether the check box `name` (shown as `label`) was ticked; InvalidRequestError if the
    form sent something a check box of ours never sends."""
    values = form.getlist(name)
    if not values:
        return False
    if values == ["yes"]:
        return True
    came = repr(values[0][:20])
    raise InvalidRequestError(
        _("The box “%(label)s” came as %(came)s and more, which is neither ticked (yes) nor "
          "unticked (left out). Nothing was changed: reload the page and try again.",
          label=_(label), came=came) if len(values) > 1 else
        _("The box “%(label)s” came as %(came)s, which is neither ticked (yes) nor unticked "
          "(left out). Nothing was changed: reload the page and try again.",
          label=_(label), came=came))


def init_converters(app: Flask) -> None:
    """Call before any blueprint is registered: routes bind their converters when added."""
    app.url_map.converters["int"] = BoundedIntConverter


def init_app(app: Flask) -> None:
    @steps.before_request(app)
    def _refuse_unstorable_text() -> None:
        if request.endpoint == "static":
            return
        where = _unstorable_part()
        if where:
            # Said when shown, in the reader's language (not decided yet at this step).
            raise InvalidRequestError(lazy_gettext(_UNUSABLE[where]))


_UNUSABLE = {
    "address": N_("The address contains characters that cannot be used here (a NUL or a "
                  "broken Unicode character). Check what you typed or pasted and try again."),
    "query string": N_("The query string contains characters that cannot be used here (a NUL "
                       "or a broken Unicode character). Check what you typed or pasted and try "
                       "again."),
    "JSON body": N_("The JSON body contains characters that cannot be used here (a NUL or a "
                    "broken Unicode character). Check what you typed or pasted and try again."),
    "form": N_("The form contains characters that cannot be used here (a NUL or a broken "
               "Unicode character). Check what you typed or pasted and try again."),
}


def _unstorable_part() -> str | None:
    if not storable(request.path):
        return "address"
    if not _all_storable(request.args.items(multi=True)):
        return "query string"
    if request.method in ("POST", "PUT", "PATCH"):
        if request.is_json:
            try:
                body = request.get_json(silent=True)
            except RecursionError:
                raise InvalidRequestError(
                    lazy_gettext("The JSON body is nested too deeply.")) from None
            if not _json_storable(body):
                return "JSON body"
        elif not _all_storable(request.form.items(multi=True)):
            return "form"
    return None


def _all_storable(pairs: Any) -> bool:
    return all(storable(key) and storable(value) for key, value in pairs)


def _json_storable(value: Any) -> bool:
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return all(storable(key) and _json_storable(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_json_storable(item) for item in value)
    return True
