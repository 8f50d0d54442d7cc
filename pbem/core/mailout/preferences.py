"""Mail preferences: which events mail a player at once, which wait for the daily digest, and
which are not mailed at all; one-click unsubscribe; the list of undeliverable addresses
(marked and cleared by `accounts/players.py`).

Every kind of mail belongs to a category. A player's preference is one of:

- `each`: every mail, as it happens;
- `turns` (the default): only when they must act (their turn, offers), reminders, rulings and
  results;
- `digest`: one mail a day at the hour they chose, in their zone, listing every match where
  they must act and the results since the last digest (digest.py); offers and rulings still
  come at once, and so does a reminder when less than 24 hours remain;
- `off`: only reminders and rulings (what a player must not miss to keep their seat).

Chat mails (a message an opponent wrote, `conversation/`) have their own choice, `chat_mail`:
`now` (one mail per message), `digest` (counted in the daily digest) or `off`. Messages sent
with a move are quoted in the turn mail whatever the choice.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.errors import InvalidRequestError, NotFoundError, UnprocessableError
from pbem.i18n import _, lazy_gettext


class MailPreference:
    EACH = "each"
    TURNS = "turns"
    DIGEST = "digest"
    OFF = "off"
    ALL = (EACH, TURNS, DIGEST, OFF)
    DEFAULT = TURNS
    LABELS = {
        EACH: lazy_gettext("Every event, as it happens"),
        TURNS: lazy_gettext("Only when I must act, plus reminders, offers, rulings and results"),
        DIGEST: lazy_gettext(
            "One digest a day (reminders under 24 hours, offers and rulings still at once)"),
        OFF: lazy_gettext("Nothing but reminders and rulings"),
    }


# The category of each kind of mail (a template name). A kind not listed counts as an "offer":
# something the player may need to answer, mailed at once to everyone but `off`.
CATEGORIES: dict[str, str] = {
    "welcome": "start",
    "your_turn": "turn",
    # Its owner's answer was played at once: the news of the turn that then never came.
    "conditional_played": "turn",
    "reminder": "reminder",
    "result": "result",
    "ruling": "ruling",
    "adjudication": "ruling",
    "vacation": "news",
    "aborted": "result",
    "digest": "digest",
    # A tournament's mails: its start and each round's new seats come as a match's welcome
    # does; its final standings and a start cancelled for want of players as a result.
    "tournament_started": "start",
    "tournament_round": "start",
    "tournament_final": "result",
    "tournament_cancelled": "result",
    # A league season's start and end (a challenge or a hold on a ladder asks for an answer).
    "league_season_started": "start",
    "league_season_ended": "result",
}
SENT_AT_ONCE: dict[str, frozenset[str]] = {
    MailPreference.EACH: frozenset({"start", "turn", "reminder", "result", "ruling", "news",
                                    "offer", "digest"}),
    MailPreference.TURNS: frozenset({"start", "turn", "reminder", "result", "ruling", "offer",
                                     "digest"}),
    MailPreference.DIGEST: frozenset({"reminder", "ruling", "offer", "digest"}),
    MailPreference.OFF: frozenset({"reminder", "ruling", "digest"}),
}
URGENT = timedelta(hours=24)


class ChatMail:
    NOW = "now"
    DIGEST = "digest"
    OFF = "off"
    ALL = (NOW, DIGEST, OFF)
    LABELS = {
        NOW: lazy_gettext("Each message, as it is written"),
        DIGEST: lazy_gettext("Counted in a daily digest"),
        OFF: lazy_gettext("No chat mail (turn mails still quote what was said)"),
    }


def sends_now(player: Player, template: str, deadline: datetime | None, now: datetime) -> bool:
    """Whether a mail of kind `template` goes to `player` at once."""
    if template == "chat":
        return getattr(player, "chat_mail", ChatMail.NOW) == ChatMail.NOW
    preference = player.mail_pref if player.mail_pref in SENT_AT_ONCE else MailPreference.DEFAULT
    category = CATEGORIES.get(template, "offer")
    if category == "reminder" and preference == MailPreference.DIGEST:
        # The digest lists the match anyway; a reminder comes alone only when it is urgent.
        return deadline is None or deadline - now <= URGENT
    return category in SENT_AT_ONCE[preference]


def update_preferences(player_id: int, preference: str, digest_hour: int | str | None,
                       timezone: str | None, now: datetime,
                       chat_mail: str | None = None) -> Player:
    """`chat_mail` None keeps the player's chat choice as it is."""
    if preference not in MailPreference.ALL:
        raise InvalidRequestError(_("%(value)r is not a mail preference (one of: %(choices)s)",
                                    value=preference, choices=", ".join(MailPreference.ALL)))
    if chat_mail is not None and chat_mail not in ChatMail.ALL:
        raise InvalidRequestError(_("%(value)r is not a chat mail choice (one of: "
                                    "%(choices)s)", value=chat_mail,
                                    choices=", ".join(ChatMail.ALL)))
    hour = _hour(digest_hour)
    zone = (timezone or "").strip() or None
    if zone is not None:
        _zone(zone)
    with write_transaction():
        player = _player(player_id)
        player.mail_pref, player.digest_hour, player.timezone = preference, hour, zone
        if chat_mail is not None:
            player.chat_mail = chat_mail
        player.digest_due_at = (next_digest_at(hour, zone, now) if wants_digest(player)
                                else None)
        player.save()
    return player


def wants_digest(player: Player) -> bool:
    """Whether a daily digest is due for the player: for their turns, or for the chat."""
    return (player.mail_pref == MailPreference.DIGEST
            or getattr(player, "chat_mail", None) == ChatMail.DIGEST)


def unsubscribe(player_id: int) -> Player:
    """One-click unsubscribe: switch to `off`. Idempotent."""
    with write_transaction():
        Player.update(mail_pref=MailPreference.OFF, chat_mail=ChatMail.OFF,
                      digest_due_at=None).where(
            Player.id == player_id).execute()
    return _player(player_id)


def revoke_calendar(player_id: int) -> Player:
    """Replace the player's calendar feed link; the old one stops working."""
    Player.update(calendar_generation=Player.calendar_generation + 1).where(
        Player.id == player_id).execute()
    return _player(player_id)


def undeliverable_players() -> list[Player]:
    return list(Player.select().where(Player.undeliverable_at.is_null(False))
                .order_by(Player.undeliverable_at.desc()))


def next_digest_at(hour: int, timezone: str | None, now: datetime) -> datetime:
    """The first `hour`:00 in the player's zone strictly after `now` (naive UTC in and out)."""
    zone = _zone(timezone) if timezone else UTC
    local_now = now.replace(tzinfo=UTC).astimezone(zone)
    day = local_now.date()
    for _attempt in range(3):
        candidate = datetime(day.year, day.month, day.day, hour, tzinfo=zone)
        due = candidate.astimezone(UTC).replace(tzinfo=None)
        if due > now:
            return due
        day += timedelta(days=1)
    raise AssertionError("unreachable: a later day always has the hour")


def _hour(value: int | str | None) -> int:
    try:
        hour = int(value) if value is not None and str(value).strip() != "" else 8
    except ValueError:
        raise InvalidRequestError(_("the digest hour must be a whole number from 0 to 23, "
                                    "not %(value)r", value=value)) from None
    if not 0 <= hour <= 23:
        raise InvalidRequestError(_("the digest hour must be from 0 to 23, not %(hour)s",
                                    hour=hour))
    return hour


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UnprocessableError(_("%(name)r is not a time zone; use a name like "
                                   "Europe/Paris or America/New_York", name=name)) from None


def _player(player_id: int) -> Player:
    player = Player.get_or_none(Player.id == player_id)
    if player is None:
        raise NotFoundError(_("There is no player %(id)s.", id=player_id))
    return player
