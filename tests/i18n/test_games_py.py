"""The rules speak the reader's language: refusals and event sentences are worded when they are
made or shown, in the language in force; what is stored (an outcome's reason, a round's
summary) stays English and is re-derived in the reader's words where it is shown."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.games import get_rules
from pbem.games.base import Event, IllegalMoveError, InvalidMoveError
from pbem.games.frozen_forest.rules import _shown_reason
from pbem.games.mimic.rules import MimicRules
from pbem.games.mimic_taking.text import describe
from pbem.templating import move_rows, timeout_words

MIMIC = MimicRules()
START = "10/1rrrrrrrr1/10/10/10/10/10/10/1bbbbbbbb1/10 b - goal:any -"


def refusal(text: str, seat: int, language: str) -> str:
    state = MIMIC.from_position(START)
    with i18n.language(language), pytest.raises((IllegalMoveError, InvalidMoveError)) as caught:
        MIMIC.parse_move(state, seat, text)
    return str(caught.value)


def test_an_illegal_move_is_refused_in_the_movers_language() -> None:
    assert refusal("b9-b8", 1, "en") == "it is Blue's turn, not Red's"
    assert refusal("b9-b8", 1, "de") == "Blau ist am Zug, nicht Rot"
    assert refusal("b9-b8", 1, "ja") == "赤ではなく青の手番です"
    assert refusal("zz", 0, "de").startswith("'zz' ist kein Mimic-Zug")


def test_an_event_is_described_in_the_readers_language() -> None:
    mimic = Event("mimic", {"seat": 1, "from": "e7", "to": "e6", "onto": []})
    assert MIMIC.describe_event(mimic) == "Red e7-e6 mimicked"
    with i18n.language("de"):
        assert MIMIC.describe_event(mimic) == "Rot e7-e6 nachgeahmt"
    with i18n.language("ja"):
        assert MIMIC.describe_event(mimic) == "赤 e7-e6\uff08真似\uff09"
    eximo = get_rules("eximo")
    capture = Event("moved", {"seat": 0, "move": "e4xe6", "captured": ["e5"], "removed_at": None,
                              "drops": []})
    with i18n.language("de"):
        assert eximo.describe_event(capture) == "Schwarz e4xe6, schlägt e5"


def test_a_stored_reason_stays_english_and_is_shown_translated() -> None:
    # Blue steps a9-a10 onto its goal row: the outcome's reason is stored, so it is English
    # whoever moved; the view (made when shown) says it in the reader's language.
    state = MIMIC.from_position(START.replace("1rrrrrrrr1", "brrrrrrrr1", 1))
    with i18n.language("de"):
        after = MIMIC.apply_move(state, 0, MIMIC.parse_move(state, 0, "a9-a10")).state
        outcome = MIMIC.outcome(after)
        view = MIMIC.view(after, None)
    assert outcome is not None
    assert outcome.reason == "Blue reached row 10 with an original move and wins"
    assert view["outcome"]["reason"] == ("Blau hat mit einem eigenen Zug die Reihe 10 erreicht "
                                         "und gewinnt")
    english = ("both players won as Yuki, so fewer trees eaten wins; Player 1 ate 12 trees as "
               "Yuki, Player 2 ate 1 tree: Player 2 wins")
    assert _shown_reason(english) == english
    with i18n.language("de"):
        assert _shown_reason(english) == (
            "beide haben als Yuki gewonnen, also gewinnt, wer weniger Bäume gefressen hat; "
            "Spieler 1 hat als Yuki 12 Bäume gefressen, Spieler 2 1 Baum: Spieler 2 gewinnt")


def test_seat_labels_and_option_help_are_translated_for_display_only() -> None:
    state = MIMIC.from_position(START)
    with i18n.language("ja"):
        assert MIMIC.seat_label(state, 0) == "青"
        assert MIMIC.options[0].help.startswith("真似で")
    assert MIMIC.seat_names == ("Blue", "Red")  # what code compares stays English
    assert MIMIC.options[0].help.startswith("a checker mimicked")


def test_a_round_summary_is_reworded_from_its_counts() -> None:
    entry = {"seat": 0, "by_colour": {"O": ["O1", "O4"], "B": ["B2"], "P": [], "G": []},
             "mimics": 0, "assignment": {}, "counts": {"O": 2, "B": 1}, "score": -1,
             "arithmetic": "orange 2 - brown 1 = -1"}
    scored = Event("round_scored", {"round": 1, "seats": [entry], "totals": [-1]})
    assert describe(scored) == ("Round 1 scored: Player 1 O1 O4 | B2, orange 2 - brown 1 = -1. "
                                "Totals: -1")
    with i18n.language("de"):
        assert describe(scored) == ("Runde 1 gewertet: Spieler 1 O1 O4 | B2, Orange 2 - Braun 1 "
                                    "= -1. Gesamt: -1")


def test_move_rows_and_timeout_words_speak_japanese() -> None:
    row = {"ply": 1, "by": "青", "text": None, "events": [], "conditional": True,
           "autoplayed": "the seat's time ran out", "at": "2026-11-26T19:00:00"}
    with i18n.language("ja"):
        html = move_rows([row], None, None)
        assert "\uff08公開されるまで非表示\uff09" in html
        assert "\uff08条件付き\uff09" in html
        assert "サーバーが指しました: the seat&#39;s time ran out" in html
        assert timeout_words("forfeit") == "期限を過ぎたプレイヤーの負けになります"
    assert timeout_words("forfeit") == "the late player loses"
