"""No table ever holds a usable seat link or mail key: a whole match is played, mailed over
real SMTP (welcome, turns, reminders, a digest, a result), then every column of every row of
every table is searched for every live token. (Reply-by-email keys join the list when they
exist.)"""

from __future__ import annotations

from datetime import timedelta

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.mailout.links import calendar_token, preferences_token, unsubscribe_token
from pbem.core.mailout.preferences import update_preferences
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import token_for
from tests.conftest import START

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


def test_a_played_match_leaves_no_live_token_in_any_table(settings, worker, smtp,
                                                          clock) -> None:
    from dataclasses import replace

    worker.settings = replace(settings, outage_grace_seconds=7 * 86_400)
    update_preferences(Player.for_email(CY, START).id, "digest", 8, "Europe/Paris", START)
    update_preferences(Player.for_email(BEN, START).id, "each", 8, None, START)
    finished = create_match("nim", [ANN, BEN], {}, settings.secret_key, START, seed=1,
                            time_control="1d").match
    create_match("nim", [CY, ANN], {}, settings.secret_key, START, seed=2,
                 time_control="3d")
    for ply, take in enumerate(("take 3", "take 3", "take 2", "take 1")):
        clock.advance(hours=1)
        submit_move(finished.id, ply % 2, take, ply, clock.now)
    assert Match.get_by_id(finished.id).status == "finished"
    for _ in range(3):  # reminders, a digest, the outbox
        worker.run_once()
        clock.now = clock.now.replace(hour=7) + timedelta(days=1)
        worker.run_once()
    tokens = {token_for(settings.secret_key, seat) for seat in Seat.select()}
    for player in Player.select():
        tokens |= {preferences_token(settings.secret_key, player.id),
                   unsubscribe_token(settings.secret_key, player.id),
                   calendar_token(settings.secret_key, player)}
    mailed = "\n".join(part.get_content() for m in smtp.messages for part in m.iter_parts())
    seat_links = {token_for(settings.secret_key, seat) for seat in Seat.select()}
    assert all(token in mailed for token in seat_links), "the tokens searched for are live"
    assert {m["X-Pbem-Kind"] for m in smtp.messages} >= {
        "welcome", "your_turn", "result", "reminder", "digest"}

    found = []
    for table in database.get_tables():
        # Through peewee, so the table name is quoted for each database ("match" is reserved).
        cursor = database.execute(peewee.Table(table).select(peewee.SQL("*")))
        names = [column[0] for column in cursor.description]
        for row in cursor.fetchall():
            for name, value in zip(names, row, strict=True):
                text = value.decode(errors="ignore") if isinstance(value, bytes) else str(value)
                found += [(table, name, token) for token in tokens if token in text]
    assert found == []
