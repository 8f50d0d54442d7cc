"""The stored words the admin console shows (statuses, rooms, rulings, policies), in the
reader's language. The values stay English where they are stored and compared; only the
console's display of them is translated (`admin_word` in the templates)."""

from __future__ import annotations

from pbem.core.matches.rulings import RULINGS
from pbem.i18n import NP_, _, pgettext

# The words ("active", "failed", "award"...) the console shows as they are stored; a value
# not listed here is shown as it is. They have the console's own context: "pending" is a
# mail waiting to be sent here, an answer not yet given on a challenge page.
WORDS: dict[str, tuple[str, str]] = {
    # matches
    "active": NP_("admin console", "active"),
    "finished": NP_("admin console", "finished"),
    "aborted": NP_("admin console", "aborted"),
    # queue entries
    "open": NP_("admin console", "open"),
    "ruled": NP_("admin console", "ruled"),
    "closed": NP_("admin console", "closed"),
    # why an entry is in the queue
    "timeout": NP_("admin console", "timeout"),
    "undelivered": NP_("admin console", "undelivered"),
    "autoplay-limit": NP_("admin console", "autoplay-limit"),
    "error": NP_("admin console", "error"),
    # draw offers
    "accepted": NP_("admin console", "accepted"),
    "declined": NP_("admin console", "declined"),
    "lapsed": NP_("admin console", "lapsed"),
    # outbox messages and the outbox's filters
    "pending": NP_("admin console", "pending"),
    "sending": NP_("admin console", "sending"),
    "sent": NP_("admin console", "sent"),
    "failed": NP_("admin console", "failed"),
    "retrying": NP_("admin console", "retrying"),
    "waiting": NP_("admin console", "waiting"),
    "all": NP_("admin console", "all"),
    # rulings (their keys)
    "award": NP_("admin console", "award"),
    "draw": NP_("admin console", "draw"),
    "extend": NP_("admin console", "extend"),
    "autoplay": NP_("admin console", "autoplay"),
    "computer": NP_("admin console", "computer"),
    "abort": NP_("admin console", "abort"),
    # timeout policies
    "adjudicate": NP_("admin console", "adjudicate"),
    "forfeit": NP_("admin console", "forfeit"),
    "claim": NP_("admin console", "claim"),
    # mail preferences
    "each": NP_("admin console", "each"),
    "turns": NP_("admin console", "turns"),
    "digest": NP_("admin console", "digest"),
    "off": NP_("admin console", "off"),
    # chat rooms and what was done about a report
    "players": NP_("admin console", "players"),
    "spectators": NP_("admin console", "spectators"),
    "hidden": NP_("admin console", "hidden"),
    "barred": NP_("admin console", "barred"),
    "dismissed": NP_("admin console", "dismissed"),
    # staff roles
    "admin": NP_("admin console", "admin"),
    "moderator": NP_("admin console", "moderator"),
}

def admin_word(value: object) -> str:
    """A stored word as the reader reads it ("failed" → "fehlgeschlagen")."""
    text = "" if value is None else str(value)
    word = WORDS.get(text)
    return pgettext(*word) if word is not None else text


def ruling_text(text: str) -> str:
    """A ruling's description (from RULINGS) in the reader's language."""
    return _(text) if text in RULINGS.values() else text
