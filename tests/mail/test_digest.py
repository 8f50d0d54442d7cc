"""The daily digest over real SMTP, with an injected clock: one mail a day at the player's hour
in their own zone, listing what they must do, and nothing when nothing is due."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pbem.core.accounts.models import Player
from pbem.core.mailout.preferences import update_preferences
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from tests.conftest import START

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


def digest_player(email: str, hour: int, zone: str | None) -> Player:
    return update_preferences(Player.for_email(email, START).id, "digest", hour, zone, START)


def digests(smtp, address: str) -> list:
    return [m for m in smtp.to(address) if m["X-Pbem-Kind"] == "digest"]


def test_one_digest_a_day_at_the_players_hour_in_their_zone(settings, worker, smtp,
                                                            clock) -> None:
    digest_player(ANN, 9, "Asia/Tokyo")  # 09:00 in Tokyo is 00:00 UTC
    create_match("nim", [ANN, BEN], {}, settings.secret_key, START, seed=1, time_control="3d")
    worker.send_outbox()
    assert digests(smtp, ANN) == [] and [m["X-Pbem-Kind"] for m in smtp.to(ANN)] == []
    clock.now = datetime(2026, 1, 5, 23, 59)
    worker.run_once()
    assert digests(smtp, ANN) == []
    clock.now = datetime(2026, 1, 6, 0, 0)
    worker.run_once()
    clock.advance(minutes=30)
    worker.run_once()
    (first,) = digests(smtp, ANN)
    text = first.get_body(("plain",)).get_content()
    assert text.startswith("Your daily digest: 1 to move, 0 results")
    assert "Nim (test game), match #1: you play First against ben." in text
    assert "2 days 12 hours left" in text and "(Asia/Tokyo)" in text
    assert "(Asia/Tokyo))" not in text  # the local time's zone is not wrapped in more brackets
    link = re.search(r"Move: http://pbem\.test(/play/\S+)", text).group(1)
    assert first["Subject"] == "Your pbem digest: 1 to move"
    clock.now = datetime(2026, 1, 7, 0, 0)
    worker.run_once()
    assert len(digests(smtp, ANN)) == 2, "the next day, another"
    assert digests(smtp, BEN) == [], "Ben keeps the default"
    assert link.startswith("/play/")


def test_the_digest_lists_results_since_the_last_one_and_stays_silent_when_nothing_is_due(
        settings, worker, smtp, clock) -> None:
    digest_player(ANN, 8, None)
    digest_player(CY, 8, None)  # in no match at all: never a digest
    match = create_match("nim", [ANN, BEN], {}, settings.secret_key, START, seed=1).match
    for ply, take in enumerate(("take 3", "take 3", "take 2", "take 1")):
        submit_move(match.id, ply % 2, take, ply, START + timedelta(hours=1))
    clock.now = datetime(2026, 1, 6, 8, 0)
    worker.run_once()
    (digest,) = digests(smtp, ANN)
    text = digest.get_body(("plain",)).get_content()
    assert "You owe no move right now." in text
    assert "Results since Mon 05 Jan 2026, 08:00 UTC:" in text
    assert "Nim (test game), match #1: Second (ben) wins." in text
    assert [m["X-Pbem-Kind"] for m in smtp.to(ANN)] == ["digest"], "no result mail on its own"
    clock.now = datetime(2026, 1, 7, 8, 0)
    worker.run_once()
    assert len(digests(smtp, ANN)) == 1, "nothing new since: no second digest"
    assert smtp.to(CY) == []


def test_the_digest_hour_follows_daylight_saving_time(db_url) -> None:
    from pbem.core.mailout.preferences import next_digest_at

    winter = next_digest_at(7, "Europe/Paris", datetime(2026, 3, 28, 12, 0))
    summer = next_digest_at(7, "Europe/Paris", datetime(2026, 3, 29, 12, 0))
    assert winter == datetime(2026, 3, 29, 5, 0), "the night the clocks go forward"
    assert summer == datetime(2026, 3, 30, 5, 0)
    assert next_digest_at(7, "Europe/Paris", datetime(2026, 1, 10, 5, 59)) == datetime(
        2026, 1, 10, 6, 0)


def test_two_workers_send_one_digest(settings, smtp, clock) -> None:
    import threading

    from pbem.core.db.connection import database
    from pbem.core.mailout.digest import queue_due_digests

    for number in range(6):
        address = f"p{number}@example.org"
        digest_player(address, 8, None)
        create_match("nim", [address, BEN], {}, settings.secret_key, START, seed=number)
    barrier = threading.Barrier(2)
    counts = []

    def run() -> None:
        barrier.wait()
        with database.connection_context():
            counts.append(queue_due_digests(datetime(2026, 1, 6, 8, 0)))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(counts) == 6
