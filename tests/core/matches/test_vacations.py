"""Declaring a vacation tells the opponents in every live match of the player: by mail as
their preferences say (a vacation notice is news: only `each` mails it), once per match, named
by display name, never by address; a repeated declaration tells nobody twice."""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest

from pbem.core.accounts.models import Player
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import lifecycle
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match
from pbem.core.matches.vacations import declare
from pbem.errors import InvalidRequestError
from tests.conftest import START

SECRET = "k" * 40
ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"
ADDRESS = re.compile(r"[\w.+-]+@example\.org")


def nim(*players: str) -> Match:
    return create_match("nim", list(players), {}, SECRET, START, time_control="3d").match


def prefer(preference: str, *emails: str) -> None:
    Player.update(mail_pref=preference).where(Player.email.in_(emails)).execute()


def vacation_rows() -> list[OutboxMessage]:
    return list(OutboxMessage.select().where(OutboxMessage.template == "vacation")
                .order_by(OutboxMessage.id))


def ann_id() -> int:
    return Player.get(Player.email == ANN).id


def test_each_opponent_in_a_live_match_gets_one_mail_with_the_dates_and_display_name(
        settings, worker, smtp) -> None:
    first, second = nim(ANN, BEN), nim(CY, ANN)  # Ann sits second in the other match
    over = nim(DI, ANN)
    lifecycle.resign(over.id, 0, START)  # a finished match: Di is not told
    Player.update(name="Annie").where(Player.email == ANN).execute()
    prefer("each", BEN, CY, DI)
    declared = declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    assert sorted(declared.matches) == sorted([first.id, second.id])
    worker.send_outbox()
    for address in (BEN, CY):
        (told,) = [m for m in smtp.to(address) if m["X-Pbem-Kind"] == "vacation"]
        body = told.get_body(("plain",)).get_content()
        assert "Annie" in body
        assert "Tue 06 Jan 2026" in body and "Thu 08 Jan 2026" in body, body
        # Named by display name: no other player's address in the headers or either part
        # (the parts travel base64-encoded, so they are read decoded).
        html = told.get_body(("html",)).get_content()
        headers = "".join(f"{name}: {value}\n" for name, value in told.items())
        assert set(ADDRESS.findall(headers + body + html)) == {address}
    assert [m for m in smtp.to(DI) if m["X-Pbem-Kind"] == "vacation"] == []
    assert [m for m in smtp.to(ANN) if m["X-Pbem-Kind"] == "vacation"] == []


@pytest.mark.parametrize("preference", ["turns", "digest", "off"])
def test_an_opponent_who_did_not_ask_for_every_email_is_not_mailed(
        db_url: str, preference: str) -> None:
    match = nim(ANN, BEN)
    prefer(preference, BEN)
    declared = declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    # Still a change in the match (its page shows it); only the mail is left out.
    assert declared.matches == (match.id,)
    assert vacation_rows() == []


def test_declaring_the_same_vacation_again_is_refused_and_tells_nobody_twice(
        db_url: str) -> None:
    match = nim(ANN, BEN)
    prefer("each", BEN)
    declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    with pytest.raises(InvalidRequestError, match="already have a vacation"):
        declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    assert [m.to_address for m in vacation_rows()] == [BEN]
    assert ChangeLog.select().where(ChangeLog.match == match.id,
                                    ChangeLog.kind == "vacation").count() == 1


def test_a_vacation_without_a_live_match_tells_nobody(db_url: str) -> None:
    match = nim(ANN, BEN)
    lifecycle.resign(match.id, 0, START)
    prefer("each", BEN)
    declared = declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    assert declared.matches == ()
    assert vacation_rows() == []


def test_calling_a_vacation_off_tells_the_opponents_who_were_told_of_it(
        settings, worker, smtp, clock) -> None:
    from pbem.core.matches.vacations import cancel

    nim(ANN, BEN)
    Player.update(name="Annie").where(Player.email == ANN).execute()
    prefer("each", BEN)
    withdrawn = declare(ann_id(), date(2026, 1, 20), date(2026, 1, 21), 14, START)
    ended = declare(ann_id(), date(2026, 1, 6), date(2026, 1, 7), 14, START)
    cancel(ann_id(), withdrawn.vacation.id, START)
    back = datetime(2026, 1, 6, 9, 0)
    cancel(ann_id(), ended.vacation.id, back)
    clock.advance(seconds=(back - START).total_seconds())
    worker.send_outbox()
    bodies = [(m.get_body(("plain",)).get_content().replace("\r\n", "\n"),
               m.get_body(("html",)).get_content())
              for m in smtp.to(BEN) if m["X-Pbem-Kind"] == "vacation"]
    assert len(bodies) == 4
    (text, html) = bodies[2]
    assert text.startswith("Not away after all: Annie withdrew their vacation (Nim (test game) "
                           "#1)"), text
    assert "Annie (First) will not be away after all: their vacation from Tue 20 Jan 2026" in text
    assert "is withdrawn.\nTheir clock in Nim (test game), match #1 runs as usual." in text
    assert "<strong>Annie</strong> (First) will not be away after all" in html
    (text, html) = bodies[3]
    assert "Annie (First) is back early: their vacation from Tue 06 Jan 2026" in text
    assert "has ended.\nTheir clock in Nim (test game), match #1 runs again." in text
    assert text.startswith("Back: Annie ended their vacation early (Nim (test game) #1)")
    assert "<strong>Annie</strong> (First) is back early" in html
