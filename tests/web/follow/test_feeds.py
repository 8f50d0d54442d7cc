"""Atom feeds read back by a real parser (feedparser): a match's moves and events (public, no
hidden move), a tournament's rounds and results, a player's turns, results and messages and
their games behind a secret link that /me and /api/me list and that can be replaced. Stable
entry ids, ETag and 304, and 429 with Retry-After for a link read twice in a minute."""

from __future__ import annotations

from datetime import timedelta

import feedparser
import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.mailout.chat import post_and_mail
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Move, Seat
from pbem.core.matches.play import submit_move
from tests.conftest import START, STRONG_KEY
from tests.support.players import csrf_from, sign_in
from tests.support.playing import play_randomly
from tests.support.tournaments import started_round_robin

ANN, BEN = "ann@example.org", "ben@example.org"


def _read(client, clock, path: str) -> feedparser.FeedParserDict:
    clock.advance(seconds=61)  # past the once-a-minute limit of the reads before
    answer = client.get(path)
    assert answer.status_code == 200, answer.data
    assert answer.content_type == "application/atom+xml; charset=utf-8"
    parsed = feedparser.parse(answer.data)
    assert not parsed.bozo, parsed.bozo_exception
    assert parsed.version == "atom10"
    return parsed


def test_a_match_feed_lists_its_moves_and_result_with_stable_ids(client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {"pile": 5}, STRONG_KEY, START)
    match_id = created.match.id
    submit_move(match_id, 0, "take 1", 0, START + timedelta(minutes=1))
    first = _read(client, clock, f"/feeds/matches/{match_id}.atom")
    assert [entry.title for entry in first.entries] == ["1. First: take 1"]
    entry = first.entries[0]
    assert entry.id.startswith("tag:pbem.test,2026:match/")
    assert entry.link == f"http://pbem.test/matches/{match_id}?ply=1"
    assert entry.updated == "2026-01-05T12:01:00Z"
    assert first.feed.link == f"http://pbem.test/matches/{match_id}"
    play_randomly(match_id, 1, START + timedelta(minutes=2))
    later = _read(client, clock, f"/feeds/matches/{match_id}.atom")
    ids = {item.id: item for item in later.entries}
    assert entry.id in ids and ids[entry.id].title == entry.title  # the same id, the same move
    assert later.entries[0].id.endswith("/result")  # the newest: the result
    assert "wins" in later.entries[0].title


def test_a_feed_answers_304_while_unchanged_and_429_when_asked_too_often(client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START)
    path = f"/feeds/matches/{created.match.id}.atom"
    first = client.get(path)
    tag = first.headers["ETag"]
    too_soon = client.get(path, headers={"If-None-Match": tag})
    assert too_soon.status_code == 429
    assert 1 <= int(too_soon.headers["Retry-After"]) <= 60
    clock.advance(seconds=61)
    unchanged = client.get(path, headers={"If-None-Match": tag})
    assert unchanged.status_code == 304 and not unchanged.data
    submit_move(created.match.id, 0, "take 1", 0, clock.now)
    clock.advance(seconds=61)
    changed = client.get(path, headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag


def test_a_match_feed_never_shows_a_hidden_move(client, clock) -> None:
    emails = [ANN, BEN, "cy@example.org"]
    created = create_match("bids", emails, {}, STRONG_KEY, START)
    play_randomly(created.match.id, 3, START, max_plies=2)
    hidden = [move for move in Move.select() if move.visible_to is not None]
    assert hidden, "the test game hides its bids while a round runs"
    feed = _read(client, clock, f"/feeds/matches/{created.match.id}.atom")
    titles = {entry.id.rsplit("/", 1)[1]: entry.title for entry in feed.entries}
    for move in hidden:
        assert "hidden" in titles[str(move.ply)] and move.text not in titles[str(move.ply)]


def test_a_tournament_feed_tells_its_rounds_and_results(client, clock) -> None:
    tournament, match = started_round_robin((ANN, BEN), STRONG_KEY, name="Winter cup")
    play_randomly(match.id, 2, START)
    from pbem.core.tournaments.running import advance

    advance(STRONG_KEY, START + timedelta(days=1))
    feed = _read(client, clock, f"/feeds/tournaments/{tournament.id}.atom")
    titles = [entry.title for entry in feed.entries]
    assert "Winter cup has started" in titles and "Round 1 has begun" in titles
    assert any(title.startswith("Round 1: ") for title in titles)
    assert titles[0] == "Winter cup has finished"
    assert client.get("/feeds/tournaments/999.atom").status_code == 404
    assert client.get("/feeds/leagues/1.atom").status_code == 404


def test_a_players_feeds_are_secret_listed_and_replaceable(
        client, clock, worker, smtp, settings) -> None:
    sign_in(client, BEN, worker, smtp)  # in English, before he chooses German
    created = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START)
    submit_move(created.match.id, 0, "take 2", 0, START)
    ben_seat = Seat.get(Seat.match == created.match.id, Seat.seat == 1)
    ann_seat = Seat.get(Seat.match == created.match.id, Seat.seat == 0)
    post_and_mail(ann_seat, "Your move, Ben!", START)
    Player.update(language="de").where(Player.email == BEN).execute()
    ben = Player.get(Player.email == BEN)
    _, token = api_tokens.create(settings.secret_key, ben, "tests", START, scopes=("read",))
    feeds = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).get_json()["feeds"]
    assert set(feeds) == {"turns", "games"}
    turns_path = feeds["turns"].removeprefix("http://pbem.test")
    turns = _read(client, clock, turns_path)
    assert turns.feed.language == "de"
    by_title = {entry.title: entry for entry in turns.entries}
    assert f"Du bist am Zug: Nim (test game) #{created.match.id}" in by_title
    assert any(entry.summary == "Your move, Ben!" for entry in turns.entries)
    assert all("/play/" not in entry.link for entry in turns.entries)  # no seat link
    games = _read(client, clock, feeds["games"].removeprefix("http://pbem.test"))
    assert len(games.entries) == 1 and games.entries[0].id.endswith(f"/m{created.match.id}")
    assert ben_seat.seat == 1

    # /me lists the same links; replacing them makes the old ones fail.
    home = client.get("/me").data.decode()
    assert feeds["turns"] in home and feeds["games"] in home
    replaced = client.post("/me/feeds/replace", data={"csrf_token": csrf_from(home.encode())})
    assert replaced.status_code == 303
    clock.advance(seconds=61)
    assert client.get(turns_path).status_code == 404
    assert feeds["turns"] not in client.get("/me").data.decode()


@pytest.mark.parametrize("path", ["/feeds/player/1-forged/turns.atom",
                                  "/feeds/player/x/turns.atom",
                                  "/feeds/player/1-abc/other.atom",
                                  "/feeds/matches/999.atom"])
def test_a_wrong_feed_address_is_a_404(client, path: str) -> None:
    assert client.get(path).status_code == 404
