"""The secret calendar feed, fetched through the app and parsed back with `icalendar`."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

from icalendar import Calendar

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from pbem.core.matches.play import submit_move
from tests.conftest import START

ANN, BEN = "ann@example.org", "ben@example.org"


def calendar_path(app, worker, smtp, address: str) -> tuple[str, str]:
    """The preferences page (from the link in a mail) and the feed address it shows."""
    worker.send_outbox()
    text = smtp.to(address)[-1].get_body(("plain",)).get_content()
    prefs = re.search(r"http://pbem\.test(/mail/preferences/\S+)", text).group(1)
    page = app.test_client().get(prefs).data.decode()
    feed = re.search(r'value="http://pbem\.test(/calendar/[^"]+\.ics)"', page).group(1)
    return prefs, feed


def test_the_feed_has_an_event_at_each_owed_deadline_with_an_alarm_at_the_reminder(
        settings, app, worker, smtp) -> None:
    first = create_match("nim", [ANN, BEN], {}, settings.secret_key, START, seed=1,
                         time_control="3d").match
    second = create_match("nim", [BEN, ANN], {}, settings.secret_key, START, seed=2,
                          time_control="1d").match
    submit_move(second.id, 0, "take 1", 0, START + timedelta(hours=2))
    _, feed = calendar_path(app, worker, smtp, ANN)
    reply = app.test_client().get(feed)
    assert reply.status_code == 200 and reply.mimetype == "text/calendar"
    calendar = Calendar.from_ical(reply.data)
    events = sorted(calendar.walk("VEVENT"), key=lambda e: e.decoded("dtend"))
    assert [str(e["summary"]) for e in events] == [
        f"Move due: Nim (test game), match #{second.id}",
        f"Move due: Nim (test game), match #{first.id}"]
    for event, match, lead in ((events[0], second, timedelta(hours=24) / 5),
                               (events[1], first, timedelta(hours=24))):
        seat = Seat.get(Seat.match == match, Seat.player == Player.get(Player.email == ANN))
        assert event.decoded("dtend") == seat.deadline.replace(tzinfo=UTC)
        (alarm,) = event.walk("VALARM")
        assert event.decoded("dtstart") + alarm.decoded("trigger") == (
            seat.deadline.replace(tzinfo=UTC) - lead)
        assert "/play/" not in event.to_ical().decode(), "no private link in a calendar"
    ben_feed = calendar_path(app, worker, smtp, BEN)[1]
    ben = Calendar.from_ical(app.test_client().get(ben_feed).data)
    assert ben.walk("VEVENT") == [], "Ben owes no move"


def test_replacing_the_calendar_link_revokes_the_old_one(settings, app, worker, smtp) -> None:
    create_match("nim", [ANN, BEN], {}, settings.secret_key, START, seed=1)
    prefs, feed = calendar_path(app, worker, smtp, ANN)
    client = app.test_client()
    assert client.post(prefs + "/calendar").status_code == 303
    assert client.get(feed).status_code == 404
    page = client.get(prefs).data.decode()
    new_feed = re.search(r'value="http://pbem\.test(/calendar/[^"]+\.ics)"', page).group(1)
    assert new_feed != feed and client.get(new_feed).status_code == 200
    for forged in (feed.replace(".ics", "x.ics"), "/calendar/1.ics", "/calendar/99-abc.ics"):
        assert client.get(forged).status_code == 404
