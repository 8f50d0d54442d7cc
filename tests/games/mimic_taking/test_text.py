"""Event sentences, the plain-text drawing and the templates, as players read them."""

from __future__ import annotations

import re

from pbem.games.base import Event
from tests.games.mimic_taking.helpers import RULES, at, move, play
from tests.support.render import render, template_env


def describe(kind: str, **data: object) -> str:
    return RULES.describe_event(Event(kind, dict(data)))


def test_events_read_as_short_sentences() -> None:
    assert describe("played", seat=1, card="O7") == "Player 2 played O7"
    assert describe("trick_won", seat=2, leader=0, cards=["O4", "O6", "G4"], how="trump",
                    card="G4", chooses=True) == (
        "Player 3 wins the trick O4 O6 G4 with the trump G4, and chooses which cards to keep")
    assert describe("trick_won", seat=0, leader=0, cards=["B2", "O3", "P8"], how="reference",
                    card="B2", chooses=False) == (
        "Player 1 wins the trick B2 O3 P8 with B2: nobody followed its colour, "
        "and takes all 3 cards")
    assert describe("took", seat=2, count=2, of=3, cards=None) == (
        "Player 3 kept 2 of the 3 cards")
    assert describe("took_cards", seat=2, kept=[], set_aside=["O4", "O6", "G4"]) == (
        "Player 3 kept nothing and set aside O4 O6 G4")
    assert describe("last_card_choice", seat=0, choice="add", card="B1") == (
        "Player 1 chose to add it to their stack (B1)")
    assert describe("game_over", winners=[0, 2], totals=[3, -1, 3]) == (
        "Game over: Player 1 and Player 3 share the win with 3 points")


def test_the_round_summary_event_shows_each_stack_by_colour_and_the_arithmetic() -> None:
    state = at("hands=M/B2/P3 stacks=O1,O2,O3,B1,M/G1,G2,G3,G4/- choices=?,add,discard "
               "prev=0:O4,O6,O5")
    transition = move(state, 0, "add")
    (scored,) = [e for e in transition.events if e.kind == "round_scored"]
    assert RULES.describe_event(scored) == (
        "Round 1 scored: Player 1 O1 O2 O3 | B1 (mimics: 2 as brown), 2 colours of 3 each: +5; "
        "Player 2 B2 | G1 G2 G3 G4, grey 4 - brown 1 = -3; "
        "Player 3 no coloured cards, no cards taken: 0. Totals: 5, -3, 0")


def test_render_text_draws_the_table_and_only_the_viewers_hand() -> None:
    state = play(at("leader=1 hands=O1,O4,M/B2,G8,B5/P3,P5 prev=0:P2,P7,P8 scores=-3,10,0"),
                 "B2")
    text = RULES.render_text(RULES.view(state, 2))
    assert "Player 3     2      0      0  +0  <- to move, you" in text
    assert "Previous trick: Player 1 P2, Player 2 P7, Player 3 P8 -> won by Player 2" in text
    assert "Current trick: Player 2 B2" in text
    assert "Your hand: P3 P5" in text
    assert "O1" not in text and "G8" not in text
    assert "Your hand" not in RULES.render_text(RULES.view(state, None))


def test_a_match_ended_off_the_table_names_nobody_to_move_or_awaited() -> None:
    """A resignation or a timeout ends the match mid-trick or mid-choice: the drawing in the
    result mail then marks nobody to move and waits for no last card."""
    state = play(at("leader=1 hands=O1,O4,M/B2,G8,B5/P3,P5 prev=0:P2,P7,P8 scores=-3,10,0"),
                 "B2")
    text = RULES.render_text(RULES.view(state, 2), over=True)
    assert "to move" not in text and text.endswith("\nMatch over.")
    assert "Player 3     2      0      0  +0  <- you" in text
    choosing = at("hands=M/B2/P3 stacks=O1,O2,O3,B1,M/G1,G2,G3,G4/- choices=?,add,discard "
                  "prev=0:O4,O6,O5")
    assert "waiting for" in RULES.render_text(RULES.view(choosing, 1))
    assert "waiting for" not in RULES.render_text(RULES.view(choosing, 1), over=True)


def test_the_board_marks_the_legal_cards_and_the_last_card_played() -> None:
    state = play(at("hands=O1,O4,M/B2,G8,O5/P3,P5"), "O4")
    view = RULES.view(state, 1)
    svg = render("games/mimic-taking/board.html", view=view, seat=1, legal_moves=["O5"])
    assert not re.search(r"\sstyle=", svg)
    assert svg.count('stroke="#1b5e20"') == 1  # only O5 may be played
    assert 'fill="#f2d14b"' in svg  # the last card played is highlighted
    assert ">G8<" in svg and ">O1<" not in svg


def test_the_rules_page_explains_rulings_notation_position_and_autoplay() -> None:
    env = template_env()
    env.globals.update(url_for=lambda *args, **kwargs: "/", page_flashes=lambda: [],
                       config={"PBEM_SETTINGS": {"development": False}})
    page = env.get_template("games/mimic-taking/rules.html").render(rules=RULES)
    for phrase in ["reference card", "Must follow", "trump", "take O4 G4", "take none",
                   "discard", "face_up", "not even their owner", "+15", "share the win",
                   "lowest-numbered card", "round=2 leader=1", "4 rounds", "5 rounds"]:
        assert phrase in page, phrase
