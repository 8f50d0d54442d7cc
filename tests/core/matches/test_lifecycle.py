"""A match's life outside its moves: resign, draw offers, abort, claims, the autoplay limit,
bounded extensions and reminders that never cross a timeout. Two- and four-seat matches."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.mailout.contexts import RenderCache, context_for
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import lifecycle
from pbem.core.matches.creation import create_match, current_state, rules_for
from pbem.core.matches.lifecycle import abort, claim_victory, draw_no, draw_yes, resign
from pbem.core.matches.models import Adjudication, DrawOffer, Match, Move, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from pbem.core.matches.sweep import Limits, sweep
from pbem.core.records import match_record
from pbem.core.records.match_record import seat_record
from pbem.errors import ConflictError, InvalidRequestError, MatchNotLiveError
from tests.conftest import START
from tests.core.matches.test_races import race

SECRET = "test-secret-key"
ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"
MINUTE = timedelta(minutes=1)
GRACE = timedelta(hours=1)


def nim(pile: int = 9, clock: str = "3d", on_timeout: str = "adjudicate") -> Match:
    return create_match("nim", [ANN, BEN], {"pile": str(pile)}, SECRET, START,
                        time_control=clock, on_timeout=on_timeout).match


def bids() -> Match:
    return create_match("bids", [ANN, BEN, CY, DI], {}, SECRET, START, seed=5).match


def fresh(match: Match) -> Match:
    return Match.get_by_id(match.id)


def mails(template: str, match: Match | None = None) -> list[OutboxMessage]:
    query = OutboxMessage.select().where(OutboxMessage.template == template)
    if match is not None:
        query = query.where(OutboxMessage.match == match)
    return list(query.order_by(OutboxMessage.id))


def play_round(match: Match) -> None:
    hands = fresh(match).state["hands"]
    for seat in range(4):
        submit_move(match.id, seat, f"play {hands[seat][-1 if seat == 2 else 0]}", None, START)


# --- resign ---------------------------------------------------------------------------------

def test_resigning_with_two_players_gives_the_other_the_win(db_url: str) -> None:
    match = nim()
    assert "You resigned" in resign(match.id, 1, START + MINUTE)
    match = fresh(match)
    assert match.status == "finished" and match.result["winners"] == [0]
    assert match.result["reason"] == "Second resigned"
    assert {m.to_address for m in mails("result")} == {ANN, BEN}
    assert Seat.select().where(Seat.deadline.is_null(False)).count() == 0
    with pytest.raises(ConflictError, match="is over"):
        resign(match.id, 0, START + MINUTE)


def test_resigning_with_four_players_puts_the_resigner_last(db_url: str) -> None:
    match = bids()
    play_round(match)  # seat 2 plays its highest card and wins the round: 1 point
    resign(match.id, 2, START + MINUTE)
    result = fresh(match).result
    assert result["winners"] == [0, 1, 3], "equal scores share the win"
    assert result["scores"][2] < min(result["scores"][i] for i in (0, 1, 3))


# --- draw offers ----------------------------------------------------------------------------

def test_an_accepted_draw_offer_ends_the_match_drawn(db_url: str) -> None:
    match = nim()
    assert "offered a draw" in draw_yes(match.id, 0, START)
    (offer_mail,) = mails("draw_offer")
    assert offer_mail.to_address == BEN and offer_mail.params["offerer_label"] == "First"
    assert lifecycle.allowed(fresh(match), 1) == ["resign", "accept-draw", "decline-draw",
                                                  "abort"]
    with pytest.raises(ConflictError, match="Your draw offer still stands"):
        draw_yes(match.id, 0, START)
    assert "drawn" in draw_yes(match.id, 1, START + MINUTE)
    match = fresh(match)
    assert match.status == "finished" and match.result["winners"] == [0, 1]
    assert match.result["reason"] == "drawn by agreement"
    assert DrawOffer.get().status == "accepted"


def test_a_declined_offer_tells_the_offerer_and_limits_offering_again(db_url: str) -> None:
    match = nim(pile=20)
    draw_yes(match.id, 0, START)
    draw_no(match.id, 1, START)
    (declined,) = mails("draw_declined")
    assert declined.to_address == ANN and not declined.params["moved_instead"]
    with pytest.raises(ConflictError, match="after 2 more moves of your own"):
        draw_yes(match.id, 0, START)
    submit_move(match.id, 0, "take 1", None, START)
    submit_move(match.id, 1, "take 1", None, START)
    with pytest.raises(ConflictError, match="after 1 more move of your own"):
        draw_yes(match.id, 0, START)
    submit_move(match.id, 0, "take 1", None, START)
    draw_yes(match.id, 0, START)
    assert DrawOffer.select().where(DrawOffer.status == "open").count() == 1
    with pytest.raises(ConflictError, match="your own offer"):
        draw_no(match.id, 0, START)
    draw_no(match.id, 1, START)
    with pytest.raises(ConflictError, match="no draw offer"):
        draw_no(match.id, 1, START)


def test_an_offer_made_with_a_move_stands_until_the_other_moves(db_url: str) -> None:
    match = nim(pile=20)
    submit_move(match.id, 0, "take 1", 0, START, offer_draw=True)
    assert "accept-draw" in lifecycle.allowed(fresh(match), 1)
    assert mails("draw_offer")[0].to_address == BEN
    submit_move(match.id, 1, "take 1", 1, START)
    offer = DrawOffer.get()
    assert (offer.status, offer.how, offer.answered_by) == ("declined", "moved instead", 1)
    assert mails("draw_declined")[0].params["moved_instead"]
    # Offering with a move that is not allowed refuses both: nothing half-applied.
    with pytest.raises(ConflictError, match="declined"):
        submit_move(match.id, 0, "take 1", 2, START, offer_draw=True)
    assert fresh(match).ply == 2


def test_with_four_players_every_other_seat_must_accept(db_url: str) -> None:
    match = bids()
    draw_yes(match.id, 3, START)
    assert len(mails("draw_offer")) == 3
    assert "waiting for the other players" in draw_yes(match.id, 0, START)
    with pytest.raises(ConflictError, match="already accepted"):
        draw_yes(match.id, 0, START)
    draw_yes(match.id, 1, START)
    assert fresh(match).is_live
    draw_yes(match.id, 2, START)
    match = fresh(match)
    assert match.status == "finished" and match.result["winners"] == [0, 1, 2, 3]


def test_with_four_players_one_no_declines_the_offer(db_url: str) -> None:
    match = bids()
    draw_yes(match.id, 3, START)
    draw_yes(match.id, 0, START)
    draw_no(match.id, 2, START)
    assert DrawOffer.get().status == "declined" and fresh(match).is_live
    assert {m.to_address for m in mails("draw_declined")} == {ANN, BEN, DI}


# --- abort ----------------------------------------------------------------------------------

def test_abort_is_allowed_only_before_every_seat_has_moved(db_url: str) -> None:
    match = nim()
    submit_move(match.id, 0, "take 1", 0, START)
    assert "abort" in lifecycle.allowed(fresh(match), 1)
    second = nim()
    submit_move(second.id, 0, "take 1", 0, START)
    submit_move(second.id, 1, "take 1", 1, START)
    with pytest.raises(ConflictError, match="can no longer be aborted"):
        abort(second.id, 0, START)
    assert "abort" not in lifecycle.allowed(fresh(second), 0)
    abort(match.id, 1, START + MINUTE)
    match = fresh(match)
    assert match.status == "aborted" and match.result is None
    assert {m.to_address for m in mails("aborted", match)} == {ANN, BEN}
    with pytest.raises(MatchNotLiveError):
        submit_move(match.id, 1, "take 1", 1, START)


def test_the_seat_page_tells_what_a_seat_may_do_as_the_full_checks_do(db_url: str) -> None:
    # The page reads the seats that have moved off its own page of moves when it can (a
    # page holding every move, or a move by every seat); across the page's edge (10 moves)
    # and with a draw offer declined, it must say what the full checks say.
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START, seed=3).match
    rules = rules_for(match)
    for ply in range(26):
        current = fresh(match)
        for number in (0, 1):
            seat = Seat.get(Seat.match == match, Seat.seat == number)
            assert (seat_record(seat, START)["can"]
                    == lifecycle.allowed(current, number)), (ply, number)
        if ply == 4:
            draw_yes(match.id, 0, START)
            draw_no(match.id, 1, START)
        state = current_state(current)
        mover = min(rules.to_move(state))
        text = rules.format_move(state, rules.legal_moves(state, mover)[0])
        submit_move(match.id, mover, text, current.ply, START + MINUTE * ply)
    assert "abort" not in seat_record(Seat.get(Seat.match == match), START)["can"]


def test_a_page_of_moves_tells_who_moved_only_when_it_can() -> None:
    def page(seats: list[int], first: int, total: int | None = None) -> dict:
        last = first + len(seats) - 1 if seats else 0
        return {"moves": [{"seat": seat} for seat in seats],
                "moves_page": {"first": first, "last": last,
                               "total": last if total is None else total}}
    assert match_record._movers(page([0], 1), 2) == {0}  # every move is listed
    assert match_record._movers(page([], 0), 2) == set()  # no move yet
    assert match_record._movers(page([1, 0, 1], 7), 2) == {0, 1}  # every seat is listed
    assert match_record._movers(page([1, 1, 1], 7), 2) is None  # seat 0 may have moved earlier
    # From the first move, but ending before the latest (`?moves=1`): seat 1 may have moved.
    assert match_record._movers(page([0], 1, total=2), 2) is None


def test_abort_with_four_players_counts_every_seat(db_url: str) -> None:
    match = bids()
    hands = match.state["hands"]
    for seat in range(3):
        submit_move(match.id, seat, f"play {hands[seat][0]}", 0, START)
    abort(match.id, 0, START)
    assert fresh(match).status == "aborted"


# --- claiming a win -------------------------------------------------------------------------

def test_under_claim_the_others_may_claim_once_time_runs_out(db_url: str) -> None:
    match = nim(clock="45s", on_timeout="claim")
    with pytest.raises(ConflictError, match="Nobody's time has run out"):
        claim_victory(match.id, 1, START)
    sweep(START, GRACE)
    sweep(START + MINUTE, GRACE)
    (told,) = mails("claim_available")
    assert told.to_address == BEN and told.params["late_label"] == "First"
    assert "claim-victory" in lifecycle.allowed(fresh(match), 1)
    assert "claim-victory" not in lifecycle.allowed(fresh(match), 0)
    assert Adjudication.select().count() == 0 and fresh(match).is_live
    claim_victory(match.id, 1, START + 2 * MINUTE)
    match = fresh(match)
    assert match.result["winners"] == [1]
    assert match.result["reason"] == "First ran out of time; Second claimed the win"


def test_the_late_seat_may_still_move_until_someone_claims(db_url: str) -> None:
    match = nim(clock="45s", on_timeout="claim")
    sweep(START, GRACE)
    sweep(START + MINUTE, GRACE)
    submit_move(match.id, 0, "take 1", 0, START + 2 * MINUTE)
    with pytest.raises(ConflictError, match="Nobody's time has run out"):
        claim_victory(match.id, 1, START + 2 * MINUTE)
    assert Seat.get(Seat.match == match, Seat.seat == 0).out_of_time_at is None


def test_claiming_is_refused_under_other_policies(db_url: str) -> None:
    match = nim(clock="45s", on_timeout="adjudicate")
    with pytest.raises(ConflictError, match="does not settle timeouts by a claim"):
        claim_victory(match.id, 1, START)


# --- matches always end ---------------------------------------------------------------------

@pytest.mark.parametrize(("after_limit", "ends"), [("adjudicate", "queue"),
                                                   ("forfeit", "finished")])
def test_two_absent_players_under_autoplay_stop_at_the_limit(db_url: str, after_limit: str,
                                                             ends: str) -> None:
    match = nim(pile=30, clock="45s", on_timeout="autoplay")
    moment = START
    for _ in range(20):
        sweep(moment, GRACE, limits=Limits(3, after_limit))
        moment += MINUTE
    match = fresh(match)
    autoplayed = Move.select().where(Move.match == match, Move.note.is_null(False))
    assert autoplayed.count() <= 6, "at most 3 autoplayed moves per seat"
    if ends == "queue":
        (entry,) = Adjudication.select()
        assert entry.cause == "autoplay-limit" and match.is_live
        assert {m.to_address for m in mails("adjudication")} == {ANN, BEN}
    else:
        assert match.status == "finished" and "forfeits" in match.result["reason"]
        assert {m.to_address for m in mails("result")} == {ANN, BEN}
    assert Seat.select().where(Seat.deadline.is_null(False)).count() == 0


def test_an_extension_is_bounded_and_everyone_gets_the_new_deadline(db_url: str) -> None:
    match = nim(clock="45s")
    sweep(START, GRACE)
    sweep(START + MINUTE, GRACE)
    with pytest.raises(InvalidRequestError, match="at most 30 days"):
        make_ruling(match.id, "extend", "fair", "ref", START + MINUTE,
                    extension=timedelta(days=99_999))
    make_ruling(match.id, "extend", "fair", "ref", START + MINUTE, extension=timedelta(days=2))
    ruling_mails = mails("ruling")
    assert {m.to_address for m in ruling_mails} == {ANN, BEN}
    assert [context_for(m, RenderCache())["new_deadline"]["utc"] for m in ruling_mails] == [
        "Wed 07 Jan 2026, 12:01 UTC"] * 2


def test_a_sweep_that_settles_a_timeout_sends_no_reminder_for_it(db_url: str) -> None:
    nim(clock="45s", on_timeout="adjudicate")
    sweep(START, GRACE)
    # The reminder (due at 36 s) and the deadline (45 s) fall due in the same sweep.
    report = sweep(START + MINUTE, GRACE)
    assert report.settled == 1 and report.reminded == 0
    assert mails("reminder") == []


# --- races ----------------------------------------------------------------------------------

def test_an_accept_racing_a_move_exactly_one_wins(db_url: str) -> None:
    for _ in range(10):
        match = nim(pile=20)
        submit_move(match.id, 0, "take 1", 0, START, offer_draw=True)
        accepted, moved = race(lambda m=match: draw_yes(m.id, 1, START),
                               lambda m=match: submit_move(m.id, 1, "take 1", 1, START))
        match = fresh(match)
        offer, *later = DrawOffer.select().where(DrawOffer.match == match).order_by(DrawOffer.id)
        if isinstance(moved, Exception):
            assert isinstance(moved, MatchNotLiveError), repr(moved)
            assert match.status == "finished" and offer.status == "accepted" and match.ply == 1
            assert later == []
        else:
            # The move declined the offer first; "draw yes" then made a new offer of its own.
            assert match.is_live and offer.status == "declined" and match.ply == 2
            assert "offered a draw" in accepted and [o.seat for o in later] == [1]


def test_a_resign_racing_the_winning_move_exactly_one_wins(db_url: str) -> None:
    for _ in range(10):
        match = nim(pile=1)
        resigned, moved = race(lambda m=match: resign(m.id, 1, START),
                               lambda m=match: submit_move(m.id, 0, "take 1", 0, START))
        match = fresh(match)
        assert match.status == "finished" and match.result["winners"] == [0]
        assert isinstance(resigned, Exception) != isinstance(moved, Exception)
        if isinstance(moved, Exception):
            assert isinstance(moved, MatchNotLiveError) and match.ply == 0
            assert match.result["reason"] == "Second resigned"
        else:
            assert isinstance(resigned, ConflictError) and match.ply == 1
        assert len(mails("result", match)) == 2


def test_a_claim_racing_the_late_move_exactly_one_wins(db_url: str) -> None:
    for _ in range(10):
        match = nim(clock="45s", on_timeout="claim")
        sweep(START, GRACE)
        sweep(START + MINUTE, GRACE)
        claimed, moved = race(lambda m=match: claim_victory(m.id, 1, START + MINUTE),
                              lambda m=match: submit_move(m.id, 0, "take 1", 0,
                                                          START + MINUTE))
        match = fresh(match)
        assert isinstance(claimed, Exception) != isinstance(moved, Exception)
        if isinstance(moved, Exception):
            assert isinstance(moved, MatchNotLiveError) and match.ply == 0
            assert match.result["winners"] == [1]
        else:
            assert isinstance(claimed, ConflictError) and match.is_live and match.ply == 1
        Match.delete().where(Match.id == match.id).execute()
