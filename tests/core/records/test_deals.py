"""Committed deals in records: a finished match's record verifies (with `pbem verify`, the
import, and the one-file verifier in docs/), and each single change to it is refused."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem.cli import main
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.core.records.exports import match_record
from pbem.core.records.imports import import_record, verify_record
from pbem.errors import InvalidRequestError
from pbem.games.dealing import commitment
from tests.conftest import ON_SQLITE, START
from tests.support.playing import play_randomly
from tests.support.records import every_finished_match_replays, from_elsewhere

pytestmark = pytest.mark.usefixtures(every_finished_match_replays.__name__)

SECRET = "test-secret-key"
VERIFIER = Path(__file__).resolve().parents[3] / "docs" / "verify_record.py"


def _verifier() -> Any:
    spec = importlib.util.spec_from_file_location("verify_record", VERIFIER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _finished(seats: int, seed: int, salted: bool = False) -> dict[str, Any]:
    emails = [f"p{n}@example.org" for n in range(seats)]
    # Salted is the default: the salted record comes from a match made as anyone makes one.
    match = create_match("mimic-taking", emails, {} if salted else {"salted": False}, SECRET,
                         START, seed=seed).match
    if salted:  # seat 0 adds its own salt; the others take theirs (play_randomly)
        submit_move(match.id, 0, "salt  my own / salt ✓", 0, START)
    match = play_randomly(match.id, seed, START)
    assert not match.is_live
    return json.loads(json.dumps(match_record(Match.get_by_id(match.id))))


def _cards(record: dict[str, Any]) -> list[int]:
    """Indexes of the moves that play a card (`O7`, `M`)."""
    return [i for i, move in enumerate(record["moves"])
            if move["text"] == "M" or (len(move["text"]) == 2 and move["text"][1].isdigit())]


def _swap_card(index: int) -> Callable[[dict[str, Any]], None]:
    """The `index`-th played card (not a mimic) replaced by one its player cannot hold: the
    card played just before it (already gone), or, for a round's first card, the one just
    after it (another seat's, in the same trick)."""
    def change(record: dict[str, Any]) -> None:
        moves, plays = record["moves"], _cards(record)
        per_round = len(record["players"]) * ((12 if len(record["players"]) == 3 else 10) - 1)
        usable = [k for k in range(len(plays)) if moves[plays[k]]["text"] != "M"
                  and moves[plays[k - 1 if k % per_round else k + 1]]["text"] != "M"]
        k = usable[index]
        other = plays[k - 1 if k % per_round else k + 1]
        moves[plays[k]]["text"] = moves[other]["text"]
    return change


def _set(key: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record[key] = value(record[key])
    return change


def _salt(seat: int) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["deal_salts"][seat] = record["deal_salts"][seat][:-1] + "x"
    return change


def _flip(hexdigits: str, at: int = 0) -> str:
    return hexdigits[:at] + format(int(hexdigits[at], 16) ^ 1, "x") + hexdigits[at + 1:]


def _seed_and_commitment(record: dict[str, Any]) -> None:
    """A consistent lie: another seed with its own commitment. The deals then differ."""
    record["deal_seed"] = _flip(record["deal_seed"], 10)
    record["deal_commitment"] = commitment(record["deal_seed"], record["deal_match"])


def _first_mover(record: dict[str, Any]) -> None:
    first = record["moves"][_cards(record)[0]]
    first["seat"] = (first["seat"] + 1) % len(record["players"])


# Twenty single changes, each of which a verifier must refuse.
CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    **{f"card {n}": _swap_card(n) for n in (0, 1, 5, 13, 30, 40, 60, -1)},
    **{f"salt of seat {seat}": _salt(seat) for seat in range(3)},
    "seed": _set("deal_seed", _flip),
    "seed's last digit": _set("deal_seed", lambda s: _flip(s, 63)),
    "commitment": _set("deal_commitment", _flip),
    "commitment's last digit": _set("deal_commitment", lambda s: _flip(s, 63)),
    "match named by the commitment": _set("deal_match", lambda m: m + 1),
    "seed with its own commitment": _seed_and_commitment,
    "first mover": _first_mover,
    "scheme": _set("deal_scheme", lambda s: "pbem-deal-v0"),
    "salts dropped": _set("deal_salts", lambda salts: salts[:-1]),
}


@pytest.fixture(scope="module")
def verifier() -> Any:
    return _verifier()


# The verifier reads records, not the database: the match behind them is played once.
@ON_SQLITE
def test_every_finished_record_verifies_and_each_change_is_refused(
        db_url: str, verifier: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(CHANGES) == 20
    for seats, seed, salted in ((3, 5, False), (4, 6, False), (3, 8, True)):
        record = _finished(seats, seed, salted)
        assert (record["deal_salts"][0] == "my own / salt ✓") is salted
        assert record["deal_seed"] and record["deal_commitment"]
        assert verify_record(record) is None
        assert verifier.verify(record) == []
        path = tmp_path / "record.json"
        path.write_text(json.dumps(record))
        assert main(["verify", str(path)]) == 0
        assert "verified" in capsys.readouterr().out
        # The one-file verifier runs with a plain python3, isolated from pbem (-I).
        plain = subprocess.run(["/usr/bin/python3", "-I", str(VERIFIER), str(path)],
                               capture_output=True, text=True, cwd=tmp_path, check=False)
        assert (plain.returncode, plain.stdout) == (0, "verified\n")
        for name, change in CHANGES.items():
            changed = copy.deepcopy(record)
            change(changed)
            assert verify_record(changed) is not None, f"pbem verify took a changed {name}"
            assert verifier.verify(changed), f"docs/verify_record.py took a changed {name}"
        path.write_text(json.dumps(changed))
        assert main(["verify", str(path)]) == 1
        assert "NOT verified" in capsys.readouterr().out
        plain = subprocess.run(["/usr/bin/python3", "-I", str(VERIFIER), str(path)],
                               capture_output=True, text=True, cwd=tmp_path, check=False)
        assert plain.returncode == 1 and "verified" not in plain.stdout


def test_an_import_keeps_the_deal_and_refuses_one_that_does_not_follow(db_url: str) -> None:
    record = from_elsewhere(_finished(3, 7))
    bad = copy.deepcopy(record)
    _salt(1)(bad)
    with pytest.raises(InvalidRequestError, match="salt"):
        import_record(bad, SECRET, START)
    imported = import_record(record, SECRET, START)
    again = json.loads(json.dumps(match_record(Match.get_by_id(imported.id))))
    assert again["deal_match"] == record["match"] != imported.id
    assert again["deal_seed"] == record["deal_seed"]
    assert verify_record(again) is None


def test_a_record_made_before_salts_were_the_default_imports_unsalted(db_url: str) -> None:
    record = from_elsewhere(_finished(3, 9))
    del record["options"]["salted"]  # as an unsalted match's record was written then
    assert verify_record(record) is None
    imported = import_record(record, SECRET, START)
    assert Match.get_by_id(imported.id).options == {"face_up": False, "salted": False}


def test_a_live_match_shows_its_commitment_and_salts_but_not_its_seed(db_url: str) -> None:
    match = create_match("mimic-taking", [f"p{n}@example.org" for n in range(3)], {}, SECRET,
                         START).match
    record = match_record(Match.get_by_id(match.id))
    assert record["deal_seed"] is None
    assert record["deal_commitment"] == commitment(Match.get_by_id(match.id).deal_seed,
                                                   match.id)
    assert len(record["deal_salts"]) == 3
