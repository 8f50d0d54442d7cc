"""Email addresses typed by people: a player's, an admin's, the server's own From line.

One check for all of them, so an address the server stores is one it can safely write into a
header. Beyond the plain shape (`local@domain.tld`, no spaces or control characters, at most
254 characters) it refuses RFC 2047 encoded words (`=?utf-8?q?…?=`): a mail program decodes
them for display, so `=?utf-8?q?ann=40example.org?=@evil.example` would be shown to other
players as if it were ann@example.org. It refuses colons too: `x:bob@example.org` is group
syntax to a mail library, which would send the mail to bob@example.org.
"""

from __future__ import annotations

import re
from email.utils import getaddresses, parseaddr

from pbem.errors import InvalidRequestError

MAX_LENGTH = 254
_SHAPE = re.compile(r"[^@\s<>,;\"()\[\]\\]+@[^@\s<>,;\"()\[\]\\]+\.[^@\s<>,;\"()\[\]\\.]+")
_HOST_SHAPE = re.compile(r"[^@\s<>,;\"()\[\]\\]+@[^@\s<>,;\"()\[\]\\]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ENCODED_WORD = "=?"


class AddressError(InvalidRequestError):
    """The text is not an acceptable email address; the message says why."""


def check_address(text: str, dotted_domain: bool = True) -> str:
    """The address, trimmed and lower-cased, or raise AddressError saying what is wrong.

    `dotted_domain=False` also accepts a bare host (`pbem@localhost`), for the server's own
    sender address on a development machine; players' addresses must be deliverable.
    """
    address = text.strip().lower()
    if _CONTROL.search(address):
        raise AddressError(f"{text!r} is not an email address: it contains control characters")
    try:
        address.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from JSON's "\ud800"
        raise AddressError(f"{text!r} is not an email address: it has a broken character") \
            from None
    if ":" in address:
        raise AddressError(f"{text!r} is not an email address: a colon makes it a group "
                           "(\"name: address;\"), whose mail goes elsewhere")
    if _ENCODED_WORD in address:
        raise AddressError(f"{text!r} is not an email address: encoded words (=?…?=) are not "
                           "allowed in an address")
    shape = _SHAPE if dotted_domain else _HOST_SHAPE
    if len(address) > MAX_LENGTH or not shape.fullmatch(address):
        raise AddressError(f"{text!r} is not an email address")
    return address


def parse_sender(text: str) -> tuple[str, str]:
    """Split a From line like `pbem <games@example.org>` into (display name, address).

    Raise AddressError unless it names exactly one acceptable address and a display name
    free of control characters and encoded words (write the name in plain Unicode instead:
    the mail library encodes it as needed).
    """
    if _CONTROL.search(text):
        raise AddressError(f"{text!r} contains control characters")
    if len(getaddresses([text])) != 1:
        raise AddressError(f"{text!r} must name exactly one address")
    name, address = parseaddr(text)
    if not address:
        raise AddressError(f"{text!r} is not an address like 'pbem <games@example.org>'")
    if _ENCODED_WORD in name:
        raise AddressError(f"{text!r}: write the name in plain text, not as an encoded word")
    return name, check_address(address, dotted_domain=False)

