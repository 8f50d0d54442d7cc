"""An outgoing mail as the bytes SMTP carries: a text and an HTML alternative of one message.

The outbox writes these bytes itself instead of building `email.mime` objects and letting
`smtplib.send_message` flatten them: for each mail the standard library re-folds every header
through `email.header.Header`, base64-encodes the bodies line by line, compiles a regular
expression to check its random boundary against the bodies, and parses the From and To headers
back into addresses, and all that took about a third of the outbox's time. The bytes are the
ones that path writes (`Composer.to_email` still builds the `email.mime` form for the admin
pages, and a test checks that both give the same message), apart from the random boundary:

- headers in the order given, each folded as compat32 folds it (a short printable ASCII value
  is written as it is, which is what the fold gives; anything else goes through the same
  `fold_binary` the generator calls, which encodes non-ASCII text as RFC 2047 words and keeps
  lines within 78 characters where it can);
- `multipart/alternative` with a text/plain and a text/html part, both UTF-8 in base64 lines
  of 76 characters;
- CRLF line ends throughout, as SMTP needs.

A mail to an address that is not ASCII (`jörg@example.de`) can only go with SMTPUTF8 (RFC
6531), and its headers then carry such addresses as UTF-8 (RFC 6532), not as RFC 2047 words,
which are not allowed in an address: `utf8=True`.

The boundary needs no check against the bodies: a base64 line holds only `A-Z a-z 0-9 + / =`,
so no body line can begin with the boundary's `--`.
"""

from __future__ import annotations

import base64
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from email.header import Header
from email.policy import compat32

# How `BytesGenerator.flatten(message, linesep="\r\n")` folds a compat32 message's headers.
_FOLDING = compat32.clone(linesep="\r\n")
_LONGEST_UNFOLDED = 78
# Where `email.header.Header` may fold an ASCII value (its default `splitchars`, and spaces).
_FOLD_POINTS = frozenset(" \t;,")
# compat32's boundary shape (`email.generator`): 15 "=", 19 digits, "==".
_BOUNDARY_DIGITS = len(repr(sys.maxsize - 1))
_PART_HEADERS = ("Content-Type: text/{subtype}; charset=\"utf-8\"\r\nMIME-Version: 1.0\r\n"
                 "Content-Transfer-Encoding: base64\r\n\r\n")
_TEXT_PART = _PART_HEADERS.format(subtype="plain").encode("ascii")
_HTML_PART = _PART_HEADERS.format(subtype="html").encode("ascii")


@dataclass(frozen=True)
class Outgoing:
    """A mail ready for SMTP: the envelope (MAIL FROM, RCPT TO) and the message's bytes."""

    sender: str
    recipient: str
    data: bytes


HeaderValue = str | Header


def alternative(headers: Sequence[tuple[str, HeaderValue]], text: str, html: str,
                utf8: bool = False) -> bytes:
    """The message with `headers` (after its own Content-Type and MIME-Version) whose body
    is `text` and `html` as alternatives."""
    boundary = "=" * 15 + f"{random.randrange(sys.maxsize):0{_BOUNDARY_DIGITS}d}" + "=="
    delimiter = f"--{boundary}\r\n".encode("ascii")
    head = [f"Content-Type: multipart/alternative;\r\n boundary=\"{boundary}\"\r\n"
            "MIME-Version: 1.0\r\n".encode("ascii")]
    head.extend(header_line(name, value, utf8) for name, value in headers)
    return b"".join((*head, b"\r\n", delimiter, _TEXT_PART, _base64_lines(text), b"\r\n",
                     delimiter, _HTML_PART, _base64_lines(html), b"\r\n",
                     f"--{boundary}--\r\n".encode("ascii")))


def header_line(name: str, value: HeaderValue, utf8: bool = False) -> bytes:
    """`Name: value` and its CRLF, folded as compat32 folds it (or, with `utf8`, a short
    non-ASCII text as UTF-8)."""
    if isinstance(value, str) and (utf8 or value.isascii()) and value.isprintable():
        if len(name) + 2 + len(value) <= _LONGEST_UNFOLDED:
            return f"{name}: {value}\r\n".encode()
        if value.isascii() and not _FOLD_POINTS.intersection(value):
            # One long word (a List-Unsubscribe URL): compat32 cannot split it and moves it
            # whole to a continuation line.
            return f"{name}: \r\n {value}\r\n".encode("ascii")
    return _FOLDING.fold_binary(name, value)  # type: ignore[arg-type]


def _base64_lines(text: str) -> bytes:
    # `encodebytes` writes 76-character lines ending in LF (what `email.base64mime` writes).
    return base64.encodebytes(text.encode("utf-8")).replace(b"\n", b"\r\n")
