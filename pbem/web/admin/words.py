"""The stored words the admin console shows (statuses, rooms, rulings, policies), in the
reader's language. The values stay English where they are stored and compared; only the
console's display of them is translated (`admin_word` in the templates)."""

from __future__ import annotations

from pbem.i18n import N_, _

# The words ("active", "failed", "award"...) the console shows as they are stored; a value
# not listed here is shown as it is.
WORDS: dict[str, str] = {
    # matches
    "active": N_("active"),
    "finished": N_("finished"),
    "aborted": N_("aborted"),
    # queue entries
    "open": N_("open"),
    "ruled": N_("ruled"),
    "closed": N_("closed"),
    # why an entry is in the queue
    "timeout": N_("timeout"),
    "undelivered": N_("undelivered"),
    "autoplay-limit": N_("autoplay-limit"),
    "error": N_("error"),
    # draw offers
    "accepted": N_("accepted"),
    "declined": N_("declined"),
    "lapsed": N_("lapsed"),
    # outbox messages and the outbox's filters
    "pending": N_("pending"),
    "sending": N_("sending"),
    "sent": N_("sent"),
    "failed": N_("failed"),
    "retrying": N_("retrying"),
    "waiting": N_("waiting"),
    "all": N_("all"),
    # rulings (their keys)
    "award": N_("award"),
    "draw": N_("draw"),
    "extend": N_("extend"),
    "autoplay": N_("autoplay"),
    "computer": N_("computer"),
    "abort": N_("abort"),
    # timeout policies
    "adjudicate": N_("adjudicate"),
    "forfeit": N_("forfeit"),
    "claim": N_("claim"),
    # mail preferences
    "each": N_("each"),
    "turns": N_("turns"),
    "digest": N_("digest"),
    "off": N_("off"),
    # chat rooms and what was done about a report
    "players": N_("players"),
    "spectators": N_("spectators"),
    "hidden": N_("hidden"),
    "barred": N_("barred"),
    "dismissed": N_("dismissed"),
    # staff roles
    "admin": N_("admin"),
    "moderator": N_("moderator"),
}

# The rulings as the console offers them (pbem.core.matches.rulings.RULINGS keeps the same
# English sentences for the shell and the log); marked here so the console shows them in the
# reader's language.
RULING_WORDS = (
    N_("award the match to the other player(s)"),
    N_("declare the match drawn"),
    N_("extend the late seat's deadline by a chosen time"),
    N_("have the computer make one move for the late seat"),
    N_("hand the late seat to the computer for the rest of the match"),
    N_("abort the match with no result"),
)


def admin_word(value: object) -> str:
    """A stored word as the reader reads it ("failed" → "fehlgeschlagen")."""
    text = "" if value is None else str(value)
    word = WORDS.get(text)
    return _(word) if word is not None else text


def ruling_text(text: str) -> str:
    """A ruling's description (from RULINGS) in the reader's language."""
    return _(text) if text in RULING_WORDS else text
