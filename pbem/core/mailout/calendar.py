"""Each player's secret calendar feed: an event at every deadline where they owe a move, with
an alarm at the time the reminder mail is due. Calendar clients poll the URL; the feed carries
only the public match page, never the private seat link (calendars get shared and synced)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pbem import i18n
from pbem.core.accounts.models import Player
from pbem.core.matches.clocks import reminder_lead
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.games import get_rules
from pbem.i18n import _

EVENT_LENGTH = timedelta(minutes=15)


@dataclass(frozen=True)
class Deadline:
    """Another package's deadline for the feed (a tournament round's): a stable id, when,
    and what to say; `path` is a public page on this site."""

    uid: str
    due: datetime
    summary: str
    description: str
    path: str


def calendar_for(player: Player, base_url: str, domain: str, now: datetime,
                 more: Sequence[Deadline] = ()) -> bytes:
    # Imported here, not at the top: icalendar is 3 MiB of every web worker's memory, for a
    # feed that calendar clients fetch now and then (bench/memory.py).
    # The feed speaks the player's language, whoever's request fetches it.
    with i18n.language(player.language, player.timezone):
        return _calendar_for(player, base_url, domain, now, more)


def _calendar_for(player: Player, base_url: str, domain: str, now: datetime,
                  more: Sequence[Deadline]) -> bytes:
    from icalendar import Alarm, Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//pbem//deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", _("pbem: my deadlines"))
    calendar.add("refresh-interval", timedelta(hours=1), parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", "PT1H")
    owed = (Seat.select(Seat, Match).join(Match)
            .where(Seat.player == player.id, Seat.deadline.is_null(False),
                   Match.status == MatchStatus.ACTIVE)
            .order_by(Seat.deadline))
    for seat in owed:
        match = seat.match
        title = get_rules(match.game).title
        if seat.deadline is None:  # the query reads only seats with a deadline
            continue
        due = seat.deadline.replace(tzinfo=UTC)
        event = Event()
        event.add("uid", f"deadline.m{match.id}.s{seat.seat}.p{match.ply}@{domain}")
        event.add("dtstamp", now.replace(tzinfo=UTC))
        event.add("dtstart", due - EVENT_LENGTH)
        event.add("dtend", due)
        event.add("summary", _("Move due: %(title)s, match #%(match)s", title=title,
                               match=match.id))
        page = f"{base_url}/matches/{match.id}"
        event.add("description", _(
            "Your move in %(title)s, match #%(match)s, is due by %(due)s. Open it from your "
            "last turn email, or see the match at %(url)s", title=title, match=match.id,
            due=_due(due), url=page))
        event.add("url", page)
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", _("Your move in %(title)s, match #%(match)s, is due soon",
                                   title=title, match=match.id))
        lead = reminder_lead(timedelta(seconds=seat.allowance_seconds))
        # Relative to the event's start, which every client supports (RELATED=END is not).
        alarm.add("trigger", EVENT_LENGTH - lead)
        event.add_component(alarm)
        calendar.add_component(event)
    for other in more:
        event = Event()
        event.add("uid", f"{other.uid}@{domain}")
        event.add("dtstamp", now.replace(tzinfo=UTC))
        event.add("dtstart", other.due.replace(tzinfo=UTC) - EVENT_LENGTH)
        event.add("dtend", other.due.replace(tzinfo=UTC))
        event.add("summary", other.summary)
        event.add("description", f"{other.description} {base_url}{other.path}")
        event.add("url", f"{base_url}{other.path}")
        calendar.add_component(event)
    return calendar.to_ical()


def _due(due: datetime) -> str:
    # English keeps the feed's UTC form; the other languages read it in the player's zone.
    if i18n.current() == i18n.DEFAULT:
        return f"{due:%a %d %b %Y, %H:%M} UTC"
    return i18n.format_time(due)
