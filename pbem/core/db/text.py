"""Text a database can store. PostgreSQL refuses NUL characters and no backend takes lone
surrogates (which JSON's "\\ud800" escapes can produce), so such text is refused up front with
a clear message instead of failing deep inside a write."""

from __future__ import annotations

import re

from pbem.errors import InvalidRequestError
from pbem.i18n import _

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> bool:
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(text: str, what: str) -> str:
    """`text` itself, or InvalidRequestError naming `what` if a database could not store it."""
    if not storable(text):
        # `what` is the caller's word ("move", "reason"), translated where it is marked.
        raise InvalidRequestError(_("The %(what)s contains characters that cannot be stored "
                                    "(a NUL or a broken Unicode character). Type it again.",
                                    what=_(what)))
    return text


def cleaned(text: str | None) -> str | None:
    """`text` made storable: NULs dropped and every unpaired surrogate replaced (mail from the
    wild decodes to both, e.g. a UTF-7 body), so recording a message never fails on its text."""
    if text is None or storable(text):
        return text
    return _SURROGATE.sub("\ufffd", text.replace("\x00", ""))
