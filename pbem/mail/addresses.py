"""Per-seat reply addresses: `play@games.example.org` becomes `play.<key>@games.example.org`.

The key (see `pbem.core.matches.seat_links.reply_key`) names the match and seat and carries
a MAC, so it cannot be guessed or forged, and it dies with the seat's link. `.` separates it
from the configured local part because some servers drop or rewrite `+`.

Every mail to a seat carries the address as `Reply-To` and, near the top, a line saying that a
reply with the move on its first line plays it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from email.utils import getaddresses
from typing import Any

import jinja2

from pbem.config import Settings
from pbem.core.matches.models import Seat
from pbem.core.matches.seat_links import REPLY_MAC_CHARS, reply_key_for

_BODY_TAG = re.compile(r"<body\b[^>]*>", re.IGNORECASE)


def reply_address(settings: Settings, seat: Seat) -> str | None:
    """The seat's reply address, or None when reply by email is not configured."""
    base = settings.reply_base
    if "@" not in base:
        return None
    local, domain = base.rsplit("@", 1)
    return f"{local}.{reply_key_for(settings.secret_key, seat)}@{domain}"


def address_for_key(settings: Settings, key: str) -> str | None:
    """The reply address carrying `key` (a league's or ladder's: `core/leagues/replies`)."""
    base = settings.reply_base
    if "@" not in base:
        return None
    local, domain = base.rsplit("@", 1)
    return f"{local}.{key}@{domain}"


def reply_address_for(settings: Settings, match_id: int | None,
                      seat_number: int | None) -> str | None:
    if match_id is None or seat_number is None or "@" not in settings.reply_base:
        return None
    seat = Seat.get_or_none((Seat.match == match_id) & (Seat.seat == seat_number))
    return None if seat is None else reply_address(settings, seat)


def find_reply_key(settings: Settings, addresses: Iterable[str]) -> tuple[str, str] | None:
    """The first (address, key) among `addresses` (header values or bare addresses) that is a
    reply address of this server; the key is not checked here."""
    base = settings.reply_base
    if "@" not in base:
        return None
    local, domain = (part.lower() for part in base.rsplit("@", 1))
    for _, address in getaddresses([value for value in addresses if value]):
        address = address.strip().lower()
        if "@" not in address:
            continue
        their_local, their_domain = address.rsplit("@", 1)
        if their_domain == domain and their_local.startswith(f"{local}."):
            return address, their_local[len(local) + 1:]
    return None


def redacted(address: str) -> str:
    """A reply address with its MAC cut short, fit to store and show on the admin page."""
    local, _, domain = address.rpartition("@")
    cut = max(len(local) - REPLY_MAC_CHARS + 4, 0)
    return f"{local[:cut]}…@{domain}" if len(local) > REPLY_MAC_CHARS else address


def with_reply_hint(env: jinja2.Environment, context: Mapping[str, Any], reply_to: str | None,
                    text: str, html: str) -> tuple[str, str]:
    """The bodies with the reply-by-email line put at their top (nothing if not configured).

    Added here rather than in each template so every mail to a seat gets it, whatever the
    template, and the templates stay free of reply-by-email concerns.
    """
    if not reply_to:
        return text, html
    hint = {**context, "reply_to": reply_to}
    text_hint = env.get_template("email/_reply_hint.txt").render(hint)
    html_hint = env.get_template("email/_reply_hint.html").render(hint)
    found = _BODY_TAG.search(html)
    html = (html[:found.end()] + html_hint + html[found.end():]) if found else html_hint + html
    return text_hint + text, html
