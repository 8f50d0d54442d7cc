"""The data behind click-to-move, the waiting page's poll and the play page's replay, without a
browser: every legal move of every game can be clicked, and clicked only one way to one move;
the poll answers 304 until something changes; `?ply=` on the play page looks back safely."""

from __future__ import annotations

import json
import random
import re

import pytest

from pbem.core.matches.creation import create_match, current_state, get_match, rules_for
from pbem.core.matches.lifecycle import draw_yes
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.games import REGISTRY
from pbem.web.matches.clicks import click_moves
from tests.conftest import START
from tests.support.statements import statements

ALICE, BOB = "alice@example.org", "bob@example.org"
SQUARE = re.compile(r"[a-s]([1-9]|1[0-9])")


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_every_legal_move_is_spelt_by_clicks_that_name_only_it(slug: str) -> None:
    rules = REGISTRY[slug]
    players = min(rules.player_counts)
    rng = random.Random(11)
    for game in range(3):
        state = rules.new_game(players, rules.resolve_options({}), game)
        for _ in range(60):
            seats = sorted(rules.to_move(state))
            if not seats:
                break
            seat = rng.choice(seats)
            legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
            view = rules.view(state, seat)
            entries = click_moves(slug, view, legal)["moves"]
            assert {e["move"] for e in entries} == set(legal)
            spelt = {}
            for entry in entries:
                key = tuple(entry["clicks"])
                assert spelt.setdefault(key, entry["move"]) == entry["move"], key
                # Clicks name squares of this board, cards in the hand, or a choice's notation.
                for token in entry["clicks"]:
                    assert SQUARE.fullmatch(token) or token in (view.get("hand") or []) \
                        or token == entry["move"], (slug, entry)
                assert rules.format_move(state, rules.parse_move(state, seat, entry["move"])) \
                    == entry["move"]
            state = rules.apply_move(state, seat, rng.choice(rules.legal_moves(state, seat))
                                     ).state


def test_eximo_drops_may_be_clicked_in_any_order() -> None:
    entries = click_moves("eximo", {}, ["d6xd8 drop c1 d1", "b2-b3"])["moves"]
    assert {tuple(e["clicks"]) for e in entries if e["move"] == "d6xd8 drop c1 d1"} == {
        ("d6", "d8", "c1", "d1"), ("d6", "d8", "d1", "c1")}
    assert [e["clicks"] for e in entries if e["move"] == "b2-b3"] == [["b2", "b3"]]


def test_a_move_in_synch_direction_is_clicked_as_the_square_it_leads_to() -> None:
    rules = REGISTRY["move-in-synch"]
    state = rules.new_game(2, rules.resolve_options({}), 1)
    for text in ("d4", "e6", "synch"):  # placements, then the decider's announcement
        seat = sorted(rules.to_move(state))[0]
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    seat = sorted(rules.to_move(state))[0]
    view = rules.view(state, seat)
    assert view["step"] == "direct"
    legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
    data = click_moves("move-in-synch", view, legal)
    assert {"move": "N", "clicks": [view["targets"]["N"]]} in data["moves"]
    assert data["about"][view["targets"]["N"]].endswith("direction N")
    announce = click_moves("move-in-synch", rules.view(
        rules.new_game(2, rules.resolve_options({}), 1), 0), ["synch"])
    assert announce["moves"][0]["clicks"] == ["synch"]


def test_the_play_page_carries_its_clicks_as_data_and_its_script_as_a_file(settings, client
                                                                            ) -> None:
    tokens = create_match("mimic", [ALICE, BOB], {}, settings.secret_key, START).tokens
    page = client.get(f"/play/{tokens[0]}").get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="pbem-clicks">(.*?)</script>', page,
                      re.S)
    data = json.loads(found.group(1))
    assert {"move": "e2-e3", "clicks": ["e2", "e3"]} in data["moves"]
    # The only executable scripts are our static files (the CSP forbids inline script): every
    # page's (the service worker and push, web/follow/offline.py) and the play page's.
    scripts = re.findall(r"<script([^>]*)>", page)
    assert [re.sub(r"\?v=\w+", "", s) for s in scripts if "application/json" not in s] == [
        ' src="/static/follow.js" defer', ' src="/static/play.js" defer']
    assert 'data-click="e2"' in page and 'role="group"' in page
    assert "<title>Your turn · Mimic" in page
    waiting = client.get(f"/play/{tokens[1]}").get_data(as_text=True)
    assert "pbem-clicks" not in waiting and 'data-click="' not in waiting
    # The seat's own poll: it also says the player is looking (web/follow/presence.py).
    assert f'data-poll-url="/play/{tokens[1]}/ply"' in waiting and \
        'data-poll-etag="&#34;0-0-active&#34;"' in waiting and "<title>Mimic" in waiting
    script = client.get("/static/play.js")
    assert script.status_code == 200 and script.mimetype == "text/javascript"
    script.close()


def test_the_ply_poll_answers_not_modified_until_a_move_is_made(settings, client) -> None:
    created = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)
    url = f"/matches/{created.match.id}/ply"
    first = client.get(url)
    assert first.status_code == 200 and first.json == {"ply": 0, "status": "active", "version": 0}
    tag = first.headers["ETag"]
    again = client.get(url, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b""
    # The waiting seat's page carries the tag the poll answers, so its first poll gets 304.
    assert f'data-poll-etag="&#34;{tag.strip(chr(34))}&#34;"' in client.get(
        f"/play/{created.tokens[1]}").get_data(as_text=True)
    submit_move(created.match.id, 0, "take 1", 0, START)
    moved = client.get(url, headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.json["ply"] == 1 and moved.headers["ETag"] != tag
    assert f'data-poll-etag="&#34;{moved.headers["ETag"].strip(chr(34))}&#34;"' in client.get(
        f"/play/{created.tokens[0]}").get_data(as_text=True)
    assert client.get("/matches/999/ply").status_code == 404
    # A change that is not a move (a draw offer) still tells a waiting page to look again.
    tag = moved.headers["ETag"]
    draw_yes(created.match.id, 1, START)
    offered = client.get(url, headers={"If-None-Match": tag})
    assert offered.status_code == 200 and offered.json["ply"] == 1


def test_the_ply_poll_reads_three_columns_of_one_row(settings, client) -> None:
    """Every waiting page asks this every few seconds, the commonest request of a live
    server: one statement for the match, not a SELECT of its whole row (its state included)."""
    created = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)
    url = f"/matches/{created.match.id}/ply"
    client.get(url)  # the statement is compiled on this database's first poll
    with statements() as seen:
        answer = client.get(url)
    assert answer.json == {"ply": 0, "status": "active", "version": 0}
    reads = [sql for sql in seen if "match" in sql.lower()]
    assert len(reads) == 1 and "state" not in reads[0].lower().replace("status", "")


def test_the_play_page_looks_back_at_an_earlier_position_without_a_move_form(settings, client
                                                                              ) -> None:
    created = create_match("mimic", [ALICE, BOB], {}, settings.secret_key, START)
    submit_move(created.match.id, 0, "e2-e3", 0, START)
    match = get_match(created.match.id)
    rules = rules_for(match)
    state = current_state(match)
    reply = rules.format_move(state, rules.legal_moves(state, 1)[0])
    submit_move(created.match.id, 1, reply, 1, START)
    link = f"/play/{created.tokens[0]}"
    now = client.get(link).get_data(as_text=True)
    assert 'id="move-form"' in now and 'aria-current="step"' in now
    back = client.get(f"{link}?ply=1").get_data(as_text=True)
    assert "looking back at the position after move 1" in back
    assert 'id="move-form"' not in back and "pbem-clicks" not in back
    assert re.search(r'<li value="1" class="current" aria-current="step">', back)
    assert f'href="{link}?ply=2"' in back  # each ply is a link on the play page too
    assert client.get(f"{link}?ply=9").status_code == 404
    assert client.get(f"{link}?ply=x").status_code == 400
    assert Match.get().ply == 2


@pytest.mark.parametrize(("slug", "players", "wanted"), [
    ("eximo", 2, "cannot capture, and a capture is compulsory"),
    ("mimic-taking", 3, "does not follow"),
    ("mimic", 2, "is frozen")])
def test_a_click_that_starts_no_move_is_explained_from_the_view(slug: str, players: int,
                                                                 wanted: str) -> None:
    rules = REGISTRY[slug]
    rng = random.Random(3)
    for game in range(40):
        state = rules.new_game(players, rules.resolve_options({}), game)
        for _ in range(80):
            seats = sorted(rules.to_move(state))
            if not seats:
                break
            seat = seats[0]
            moves = rules.legal_moves(state, seat)
            legal = [rules.format_move(state, m) for m in moves]
            data = click_moves(slug, rules.view(state, seat), legal)
            starts = {e["clicks"][0] for e in data["moves"]}
            assert not starts & set(data["notes"]), "a legal start is never explained away"
            for token, note in data["notes"].items():
                if wanted in note:
                    assert note.startswith(token)
                    return
            state = rules.apply_move(state, seat, rng.choice(moves)).state
    pytest.fail(f"no position with a {wanted!r} note was reached")


def test_the_public_page_follows_a_live_match_but_not_a_replay(settings, client) -> None:
    created = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)
    live = client.get(f"/matches/{created.match.id}").get_data(as_text=True)
    assert f'data-poll-url="/matches/{created.match.id}/ply"' in live
    submit_move(created.match.id, 0, "take 1", 0, START)
    replay = client.get(f"/matches/{created.match.id}?ply=0").get_data(as_text=True)
    assert "data-poll-url" not in replay


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_every_clickable_square_or_card_is_described(slug: str) -> None:
    rules = REGISTRY[slug]
    players = min(rules.player_counts)
    state = rules.new_game(players, rules.resolve_options({}), 4)
    for _ in range(6):
        seat = sorted(rules.to_move(state))[0]
        moves = rules.legal_moves(state, seat)
        data = click_moves(slug, rules.view(state, seat),
                           [rules.format_move(state, m) for m in moves])
        tokens = {t for e in data["moves"] for t in e["clicks"]}
        board_tokens = {t for t in tokens if SQUARE.fullmatch(t) or len(t) <= 2}
        assert board_tokens <= set(data["about"]), board_tokens - set(data["about"])
        state = rules.apply_move(state, seat, moves[0]).state


def test_squares_are_described_by_what_is_on_them() -> None:
    rules = REGISTRY["mimic"]
    view = rules.view(rules.new_game(2, rules.resolve_options({}), 1), 0)
    about = click_moves("mimic", view, ["b2-b3"])["about"]
    assert about["b2"] == "Blue checker" and about["e5"] == "empty"
    assert about["e9"] == "Red checker"
