"""bench/bots.py --sprt's runner (bench/ladder.py): groups with the seats swapped, a log that
a stopped run resumes from, and the figures of one engine only."""

from __future__ import annotations

import json

from bench import ladder
from pbem.bots import sprt


def _line(group: int, seat: int, score: float, commit: str = "c1") -> dict:
    result = "win" if score == 1 else "loss" if score == 0 else "draw"
    return {"game": "mimic", "level": 2, "against": "random", "group": group, "seat": seat,
            "score": score, "result": result, "plies": 10, "cpu_s": 1.8, "commit": commit}


def test_the_log_resumes_where_a_run_stopped(tmp_path) -> None:
    log = tmp_path / "matches.jsonl"
    pairing = ladder.Pairing("mimic", 2, ladder.RANDOM)
    for line in (_line(0, 0, 1.0), _line(0, 1, 0.5), _line(1, 0, 1.0),
                 _line(1, 1, 1.0, commit="other")):
        ladder.append_log(line, log)
    with log.open("a") as cut:
        cut.write('{"game": "mimic", "lev')  # a line cut short by a stop mid-write
    played = ladder.matches_of(pairing, ladder.read_log(log), "c1")
    assert sorted(played) == [(0, 0), (0, 1), (1, 0)]
    # The next matches are the ones missing: group 1's second seat, then group 2.
    todo = ladder.todo_matches(pairing, played, cap=6)
    assert [next(todo), next(todo), next(todo)] == [(1, 1), (2, 0), (2, 1)]
    assert next(todo, None) is None  # the cap: 6 matches, three groups


def test_only_complete_groups_count_and_the_verdict_is_the_gsprt_s(tmp_path) -> None:
    pairing = ladder.Pairing("mimic", 2, ladder.RANDOM)
    played = {(0, 0): _line(0, 0, 1.0), (0, 1): _line(0, 1, 0.5), (1, 0): _line(1, 0, 1.0)}
    one = ladder.standing(pairing, played)
    assert (one.matches, one.groups, one.wins, one.draws, one.losses) == (3, 1, 2, 1, 0)
    expected = sprt.test([0.75], 0, 50, 0.05, 0.05)
    assert one.verdict == expected
    assert one.cpu_hours == 3 * 1.8 / 3600
    path = tmp_path / "strength.json"
    ladder.write_strength([one], "c1", path)
    (entry,) = json.loads(path.read_text())["pairings"]
    assert entry["decision"] == "open" and entry["commit"] == "c1"
    assert (entry["wins"], entry["draws"], entry["losses"], entry["matches"]) == (2, 1, 0, 3)


def test_a_match_of_a_group_puts_the_level_in_its_seat() -> None:
    first = ladder.play_match("mimic", 1, ladder.RANDOM, group=0, seat=0, max_plies=400)
    again = ladder.play_match("mimic", 1, ladder.RANDOM, group=0, seat=0, max_plies=400)
    assert {k: v for k, v in first.items() if k != "cpu_s"} == {
        k: v for k, v in again.items() if k != "cpu_s"}
    assert first["seat"] == 0 and first["result"] in ("win", "draw", "loss")
    three = ladder.Pairing("mimic-taking", 2, 1)
    assert three.players == 3 and ladder.ladder(["mimic"])[0] == ladder.Pairing(
        "mimic", 2, ladder.RANDOM, elo1=50.0)
    assert [p.elo1 for p in ladder.ladder(["mimic"])] == [50.0, 50.0, 100.0, 100.0]


def test_figures_belong_to_the_engine_not_to_the_commit() -> None:
    """A commit that changes neither the search nor the rules (a page, a doc, the results
    themselves) keeps the figures; one that changes either does not."""
    head = ladder.git("rev-parse", "HEAD")
    first = ladder.git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]
    assert ladder.engine(head) == ladder.engine("HEAD").removesuffix("+dirty")
    assert ladder.engine(first) != ladder.engine(head)  # the first commit had no search
    # Lines logged before engines were: the engine at their commit.
    assert ladder.engine_of({"commit": head}) == ladder.engine(head)
    assert ladder.engine_of({"commit": "c1", "engine": "e1"}) == "e1"
    # The latest commit that played: git's order, not the log's.
    played = {(0, 0): {**_line(0, 0, 1.0), "commit": head},
              (0, 1): {**_line(0, 1, 1.0), "commit": first}}
    assert ladder.standing(ladder.Pairing("mimic", 2, ladder.RANDOM), played).commit == head
