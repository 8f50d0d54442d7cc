"""Bad input meets a clear service error, never another exception: clocks and game options on
arbitrary input (hypothesis), absurd clocks and vacations, NULs from the command line."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player
from pbem.core.matches.clocks import MAX_SPAN, TimeControl
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from pbem.core.matches.sweep import sweep
from pbem.core.matches.vacations import declare
from pbem.errors import InvalidRequestError, PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from tests.conftest import START, STRONG_KEY
from tests.support.games import TEST_GAMES

PAIR = ["ann@example.org", "ben@example.org"]
_CLOCKISH = st.text(st.sampled_from([*"0123456789dhms+/ ", "²", "٣", "\x00", "x"]), max_size=30)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)


@given(st.one_of(st.text(max_size=40), _CLOCKISH))
def test_any_clock_text_is_a_bounded_clock_or_a_clear_refusal(text: str) -> None:
    try:
        control = TimeControl.parse(text)
    except InvalidRequestError as refused:
        assert str(refused)
        return
    spans = [control.bank, control.increment, control.cap]
    assert all(timedelta(0) < span <= MAX_SPAN for span in spans if span is not None)
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize("text", ["1d+9999999d/9999999d", "366d", "9999999h", "1d+1d/400d",
                                  "9" * 5000 + "d", "²d", "٣d"])
def test_absurd_clocks_are_refused_when_a_match_is_made(db_url: str, text: str) -> None:
    with pytest.raises(InvalidRequestError):
        create_match("nim", PAIR, {}, STRONG_KEY, START, time_control=text)
    assert Match.select().count() == 0


def test_a_match_stored_with_an_absurd_clock_keeps_playing(db_url: str) -> None:
    """Made before clocks were bounded: every later move must still work (it was a 500)."""
    match = create_match("nim", PAIR, {}, STRONG_KEY, START, time_control="1d+1d/2d").match
    Match.update(time_control="1d+9999999d/9999999d").where(Match.id == match.id).execute()
    now = START
    for ply in range(4):
        now += timedelta(hours=1)
        submit_move(match.id, ply % 2, "take 1", ply, now)
    seats = list(Seat.select().where(Seat.match == match).order_by(Seat.seat))
    assert all(seat.allowance_seconds <= MAX_SPAN.total_seconds() for seat in seats)
    assert seats[0].deadline == now + MAX_SPAN


@pytest.mark.parametrize("slug", sorted({**TEST_GAMES, **REGISTRY}))
@given(given_options=st.dictionaries(st.text(max_size=12), _JSON, max_size=3),
       known=st.data())
def test_any_game_options_are_resolved_or_refused_clearly(slug: str, given_options: dict,
                                                          known: st.DataObject) -> None:
    rules = {**TEST_GAMES, **REGISTRY}[slug]
    # Half the time, aim at the game's real option names with arbitrary values.
    if rules.options and known.draw(st.booleans(), label="use real names"):
        given_options = {option.name: known.draw(_JSON | st.text(max_size=8), label=option.name)
                         for option in rules.options}
    try:
        resolved = rules.resolve_options(given_options)
    except RulesError as refused:
        assert str(refused)
        return
    assert rules.resolve_options(resolved) == resolved
    players = min(rules.player_counts)
    assert rules.to_move(rules.new_game(players, resolved, 1))


def test_a_vacation_ending_at_the_end_of_the_calendar_is_refused(db_url: str) -> None:
    create_match("nim", PAIR, {}, STRONG_KEY, START)
    ann = Player.get(Player.email == PAIR[0]).id
    for last in (date(9999, 12, 31), date(2030, 1, 1)):
        with pytest.raises(InvalidRequestError, match="within two years"):
            declare(ann, START.date(), last, 10_000, START)


@pytest.mark.parametrize(("call", "kwargs"), [
    (create_match, {"game": "nim", "emails": ["ann\x00@example.org", "ben@example.org"],
                    "options": {}, "secret_key": STRONG_KEY, "now": START}),
    (create_admin, {"email": "boss\x00@example.org", "password": "long enough pw",
                    "now": START}),
])
def test_nul_characters_from_the_command_line_are_refused(db_url: str, call: Any,
                                                          kwargs: dict) -> None:
    # The address check refuses every control character, NUL included, before storing.
    with pytest.raises(PbemError, match=r"cannot be stored|control characters"):
        call(**kwargs)


def test_a_move_with_a_nul_is_refused_before_the_database(db_url: str) -> None:
    match = create_match("nim", PAIR, {}, STRONG_KEY, START).match
    with pytest.raises(InvalidRequestError, match="cannot be stored"):
        submit_move(match.id, 0, "take\x00 1", 0, START)
    assert Match.get_by_id(match.id).ply == 0


@pytest.mark.parametrize(("reason", "actor"), [("late\x00", "shell"), ("late", "sh\x00ell")])
def test_a_ruling_with_a_nul_is_refused_and_changes_nothing(db_url: str, reason: str,
                                                           actor: str) -> None:
    match = create_match("nim", PAIR, {}, STRONG_KEY, START, time_control="45s").match
    sweep(START + timedelta(minutes=5), timedelta(days=1))
    with pytest.raises(InvalidRequestError, match="cannot be stored"):
        make_ruling(match.id, "award", reason, actor, START + timedelta(minutes=6))
    assert Adjudication.get(Adjudication.match == match.id).status == "open"
    assert Match.get_by_id(match.id).status == "active"
