"""Match records: export → import → the same positions at every ply, for every game; refused
imports; and what a live match's record keeps back."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.core.accounts.models import Player
from pbem.core.admin.models import AuditEntry
from pbem.core.matches import lifecycle
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match, rules_for, state_after
from pbem.core.matches.models import Match, Move, Seat
from pbem.core.matches.rulings import Forfeit
from pbem.core.records.exports import match_record, record_text
from pbem.core.records.imports import import_record
from pbem.core.records.standings import settle
from pbem.errors import InvalidRequestError
from pbem.games import GAMES, REGISTRY
from tests.conftest import START, STRONG_KEY
from tests.support.playing import play_randomly
from tests.support.records import every_finished_match_replays, from_elsewhere, replay_record

pytestmark = pytest.mark.usefixtures(every_finished_match_replays.__name__)

SECRET = "test-secret-key"
NAMES = ["ann", "ben", "cy", "di"]
# (match seed = play seed) giving a short random game of each: the real games' from their
# fixtures, the test-only games' here.
SHORT = {**{game.slug: game.fixtures.short_seed for game in GAMES}, "nim": 5, "bids": 1}


def _finished(game: str) -> Match:
    rules = REGISTRY[game]
    seats = min(rules.player_counts)
    emails = [f"{name}@example.org" for name in NAMES[:seats]]
    match = create_match(game, emails, {}, SECRET, START, seed=SHORT[game]).match
    for number, name in enumerate(NAMES[:seats]):
        Player.update(name=name.title()).where(Player.email == emails[number]).execute()
    match = play_randomly(match.id, SHORT[game], START)
    assert not match.is_live, f"{game} did not finish"
    return match


def test_every_real_game_is_covered() -> None:
    assert set(REGISTRY) <= set(SHORT)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_export_then_import_gives_the_same_position_at_every_ply(db_url: str, game: str) -> None:
    original = _finished(game)
    record = json.loads(json.dumps(match_record(original)))
    assert record["seed"] == original.seed and record["status"] == "finished"
    assert [p["name"] for p in record["players"]] == [n.title() for n in
                                                      NAMES[:len(record["players"])]]

    # As exported by another install (a match played here is refused as already here).
    record = from_elsewhere(record)
    imported = import_record(record, SECRET, START + timedelta(days=9))

    assert imported.id != original.id and imported.ply == original.ply > 0
    rules = rules_for(original)
    for ply in range(original.ply + 1):
        assert (rules.dump(state_after(imported, ply))
                == rules.dump(state_after(original, ply))), ply
    again = match_record(Match.get_by_id(imported.id))
    assert {**again, "match": None} == {**record, "match": None}
    outcomes = [[s.outcome for s in Seat.select().where(Seat.match == m).order_by(Seat.seat)]
                for m in (original, imported)]
    assert outcomes[0] == outcomes[1] and None not in outcomes[0]
    # The imported players are the same display names (here: the same players).
    assert [s.player_id for s in imported.seat_rows()] == [s.player_id for s in
                                                           original.seat_rows()]
    assert AuditEntry.get(AuditEntry.match == imported).action == "import"


@pytest.mark.parametrize("ending", ["forfeit", "resign", "draw"])
def test_a_match_ended_off_the_board_imports_with_its_recorded_result(db_url: str,
                                                                      ending: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START).match
    play_randomly(match.id, 1, START, max_plies=2)
    later = START + timedelta(days=4)
    if ending == "forfeit":
        apply_change(match.id, Forfeit(seat=0), later)
    elif ending == "resign":
        lifecycle.resign(match.id, 0, later)
    else:
        lifecycle.draw_yes(match.id, 0, later)
        lifecycle.draw_yes(match.id, 1, later)
    original = Match.get_by_id(match.id)
    outcomes = [s.outcome for s in original.seat_rows()]
    assert outcomes == (["draw", "draw"] if ending == "draw" else ["loss", "win"])
    record = match_record(original)
    imported = import_record(from_elsewhere(record), SECRET, START)
    assert imported.result == {**record["result"],
                               "scores": [float(x) for x in record["result"]["scores"]]}
    assert [s.outcome for s in imported.seat_rows()] == outcomes


def _nim_record(db_url: str) -> dict:
    match = _finished("nim")
    return json.loads(json.dumps(match_record(match)))


@pytest.mark.parametrize(("spoil", "message"), [
    (lambda r: r["moves"][1].update(text="take 9"),
     re.escape("Move 2 (Second 'take 9') is illegal: you cannot take 9")),
    (lambda r: r["moves"][2].update(seat=r["moves"][1]["seat"]), "Move 3 .* it was not"),
    (lambda r: r["moves"].append(dict(r["moves"][-1], seat=1 - r["moves"][-1]["seat"])),
     "the game was already over"),
    (lambda r: r["moves"][0].update(text="pass"), "is illegal: 'pass' is not a move"),
    (lambda r: r.update(status="live"), "Only finished matches"),
    (lambda r: r.update(seed=None), "no usable seed"),
    (lambda r: r.update(game="chess"), "no game called 'chess'"),
    (lambda r: r.update(rules_version=99), "rules version 99"),
    (lambda r: r.update(format="pgn"), "not a pbem match record"),
    (lambda r: r["result"].update(winners=[1 - r["result"]["winners"][0]]), "names winners"),
    (lambda r: r["result"].update(reason="First resigned"),
     re.escape("but the record's result says 'First resigned'")),
    (lambda r: r["players"].pop(), "played by 2 players"),
    (lambda r: r["players"][0].update(name="a@b"), "not a display name"),
    (lambda r: r["moves"][0].update(at="yesterday"), "not an ISO time"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_bad_record_is_refused_and_nothing_is_written(db_url: str, spoil, message: str
                                                        ) -> None:
    record = _nim_record(db_url)
    spoil(record)
    before = (Match.select().count(), Move.select().count(), Player.select().count())
    with pytest.raises(InvalidRequestError, match=message):
        import_record(record, SECRET, START)
    assert (Match.select().count(), Move.select().count(), Player.select().count()) == before


def test_pbem_match_import_recreates_a_match_or_says_why_not(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    for name, value in {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
                        "PBEM_BASE_URL": "http://games.example",
                        "PBEM_INSTANCE_PATH": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    record = from_elsewhere(_nim_record(db_url))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    assert main(["match", "import", str(good)]) == 0
    assert "match 2 imported: http://games.example/matches/2" in capsys.readouterr().out
    assert main(["match", "import", str(good)]) == 2
    assert "This match is already here as match 2" in capsys.readouterr().err

    record["moves"][0]["text"] = "take 7"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    assert main(["match", "import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Move 1 (First 'take 7') is illegal" in err and "Nothing was imported" in err
    (tmp_path / "junk.json").write_text("{not json")
    assert main(["match", "import", str(tmp_path / "junk.json")]) == 2
    assert main(["match", "import", str(tmp_path / "missing.json")]) == 2
    assert "No such file" in capsys.readouterr().err
    assert Match.select().count() == 2


def test_the_text_record_has_a_header_and_numbered_moves(db_url: str) -> None:
    match = _finished("eximo")
    text = record_text(match_record(match), "http://pbem.test/matches/1")
    head, body = text.split("\n\n", 1)
    assert '[Game "EXIMO"]' in head and '[Site "http://pbem.test/matches/1"]' in head
    assert '[Seat1 "Black: Ann"]' in head and '[Seat2 "White: Ben"]' in head
    assert f'[Seed "{match.seed}"]' in head and f'[Plies "{match.ply}"]' in head
    lines = body.strip().splitlines()
    moves = [m.text for m in Move.select().where(Move.match == match).order_by(Move.ply)]
    assert len(lines) == len(moves) + 2
    assert lines[0].split()[:3] == ["1.", "Black", moves[0]]
    assert lines[-1].startswith(("Ann won.", "Ben won."))


def test_a_live_record_keeps_back_the_seed_and_secret_moves(db_url: str) -> None:
    emails = [f"{name}@example.org" for name in NAMES[:3]]
    match = create_match("bids", emails, {}, SECRET, START, seed=3).match
    hand = match.state["hands"][0]
    from pbem.core.matches.play import submit_move

    submit_move(match.id, 0, f"play {hand[0]}", 0, START)
    record = match_record(Match.get_by_id(match.id))
    assert record["seed"] is None and record["status"] == "live"
    assert record["moves"] == [{"ply": 1, "turn": 0, "seat": 0, "text": None, "hidden": True,
                                "at": "2026-01-05T12:00:00Z",
                                "events": ["Player 1 has chosen"]}]
    text = record_text(record)
    assert "(hidden)" in text and f"play {hand[0]}" not in text and "Seed" not in text
    with pytest.raises(InvalidRequestError, match="Only finished matches"):
        import_record(record, SECRET, START)


def test_settle_counts_a_shared_win_of_every_seat_as_a_draw(db_url: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START).match
    Match.update(result={"winners": [0, 1], "scores": [0.5, 0.5], "reason": "agreed"},
                 status="finished").where(Match.id == match.id).execute()
    settle(match.id)
    assert [s.outcome for s in Match.get_by_id(match.id).seat_rows()] == ["draw", "draw"]
    assert Match.get_by_id(match.id).outcome == "draw"
    assert replay_record  # the same helper replays every finished match after each test
