"""Clocks, reminders, vacations, timeout policies, outages: all with an injected clock."""

from __future__ import annotations

import threading
from datetime import date, datetime, timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, ChangeLog, Match, Move, Seat, Vacation
from pbem.core.matches.play import submit_move
from pbem.core.matches.sweep import sweep
from pbem.core.matches.vacations import allowance, cancel, declare
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from tests.conftest import START
from tests.support.render import rendered

SECRET = "test-secret-key"
ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"
DAY, HOUR, MINUTE = timedelta(days=1), timedelta(hours=1), timedelta(minutes=1)
GRACE = timedelta(minutes=10)


def nim(clock: str = "3d", on_timeout: str = "adjudicate", players=(ANN, BEN)) -> Match:
    return create_match("nim", list(players), {}, SECRET, START, time_control=clock,
                        on_timeout=on_timeout).match


def seat(match: Match, number: int) -> Seat:
    return Seat.get(Seat.match == match, Seat.seat == number)


def mails(template: str) -> list[OutboxMessage]:
    return list(OutboxMessage.select().where(OutboxMessage.template == template)
                .order_by(OutboxMessage.id))


def run_sweep(at, grace=GRACE):
    return sweep(at, grace)


def keep_worker_alive(until, step=MINUTE * 5) -> None:
    """Tick the sweep often enough that no outage is seen, up to `until`."""
    moment = START
    while moment < until:
        run_sweep(moment)
        moment += step


# --- time controls --------------------------------------------------------------------------

def test_a_fixed_clock_gives_each_move_the_same_time(db_url: str) -> None:
    match = nim("3d")
    assert seat(match, 0).deadline == START + 3 * DAY
    assert seat(match, 1).deadline is None, "the clock runs only while a seat owes a move"
    submit_move(match.id, 0, "take 1", 0, START + DAY)
    assert seat(match, 0).deadline is None
    assert seat(match, 1).deadline == START + DAY + 3 * DAY
    assert seat(match, 0).allowance_seconds == 3 * 86_400


def test_the_capped_fischer_clock_banks_unused_time(db_url: str) -> None:
    match = nim("7d+1d/14d")
    submit_move(match.id, 0, "take 1", 0, START + 2 * DAY)
    assert seat(match, 0).allowance_seconds == 6 * 86_400  # 7 - 2 + 1
    submit_move(match.id, 1, "take 1", 1, START + 2 * DAY + HOUR)
    assert seat(match, 0).deadline == START + 2 * DAY + HOUR + 6 * DAY
    assert seat(match, 1).allowance_seconds == 8 * 86_400 - 3600  # 7 - 1h + 1


def test_each_seat_of_a_simultaneous_decision_has_its_own_running_clock(db_url: str) -> None:
    match = create_match("bids", [ANN, BEN, CY], {}, SECRET, START, time_control="1d").match
    assert [seat(match, n).deadline for n in range(3)] == [START + DAY] * 3
    hand = match.state["hands"][1]
    submit_move(match.id, 1, f"play {hand[0]}", 0, START + HOUR)
    assert seat(match, 1).deadline is None
    assert seat(match, 0).deadline == seat(match, 2).deadline == START + DAY


def test_bad_clocks_and_policies_are_refused(db_url: str) -> None:
    with pytest.raises(InvalidRequestError, match="not a time control"):
        nim("three days")
    with pytest.raises(InvalidRequestError, match="not a timeout policy"):
        nim("3d", "ignore")
    assert Match.select().count() == 0


# --- reminders ------------------------------------------------------------------------------

def test_a_reminder_is_sent_once_when_a_day_remains(db_url: str) -> None:
    match = nim("3d")
    run_sweep(START + 2 * DAY - MINUTE, grace=3 * DAY)
    assert mails("reminder") == []
    run_sweep(START + 2 * DAY, grace=3 * DAY)
    run_sweep(START + 2 * DAY + MINUTE, grace=3 * DAY)
    (reminder,) = mails("reminder")
    assert reminder.to_address == ANN and (reminder.match_id, reminder.seat) == (match.id, 0)
    assert rendered(reminder)["deadline"]["left"] == "1 day left"


def test_a_short_clock_reminds_at_a_fifth_of_the_move_time(db_url: str) -> None:
    nim("45s")
    run_sweep(START + timedelta(seconds=35))
    assert mails("reminder") == []
    run_sweep(START + timedelta(seconds=36))
    assert len(mails("reminder")) == 1


def test_each_turn_gets_its_own_reminder(db_url: str) -> None:
    match = nim("1d")
    run_sweep(START + 20 * HOUR, grace=DAY)
    submit_move(match.id, 0, "take 1", 0, START + 21 * HOUR)
    submit_move(match.id, 1, "take 1", 1, START + 22 * HOUR)
    run_sweep(START + 22 * HOUR + 20 * HOUR, grace=DAY)
    assert [m.to_address for m in mails("reminder")] == [ANN, ANN]


# --- vacations ------------------------------------------------------------------------------

def test_a_vacation_stops_the_clocks_in_every_match_and_tells_the_opponents(
        db_url: str) -> None:
    first, second = nim("3d"), nim("3d", players=(ANN, CY))
    # Vacation notices are news: only players who asked for every event get them.
    Player.update(mail_pref="each").where(Player.email.in_([BEN, CY])).execute()
    ann = Player.get(Player.email == ANN)
    declare(ann.id, date(2026, 1, 6), date(2026, 1, 7), 14, START)
    # Away from Jan 6 00:00 to Jan 8 00:00: two days of stopped clock.
    for match in (first, second):
        assert seat(match, 0).deadline == START + 5 * DAY
    told = mails("vacation")
    assert sorted(m.to_address for m in told) == [BEN, CY]
    assert "Tue 06 Jan 2026" in rendered(told[0])["starts"]
    status = allowance(ann.id, 2026, 14)
    assert (status.used, status.left) == (2, 12)
    # The clock restarts after the vacation: a move then is charged only running time.
    submit_move(first.id, 0, "take 1", 0, START + 4 * DAY)
    assert seat(first, 0).deadline is None and seat(first, 1).deadline == START + 7 * DAY


def test_the_player_row_keeps_the_end_of_the_last_vacation_for_the_clocks(
        db_url: str) -> None:
    match = nim("30d")
    ann = Player.get(Player.email == ANN)
    assert ann.away_until is None
    declare(ann.id, date(2026, 1, 20), date(2026, 1, 21), 14, START)
    declare(ann.id, date(2026, 1, 6), date(2026, 1, 6), 14, START)
    # The later of the two ends, whatever the order they were declared in.
    assert Player.get_by_id(ann.id).away_until == datetime(2026, 1, 22)
    # Both vacations fall inside Ann's move time: her clock stops for three days.
    assert seat(match, 0).deadline == START + 33 * DAY
    submit_move(match.id, 0, "take 1", 0, START + DAY)
    # Once the last one is over, her clock runs straight through.
    submit_move(match.id, 1, "take 1", 1, datetime(2026, 1, 23))
    assert seat(match, 0).deadline == datetime(2026, 1, 23) + 30 * DAY


def test_a_vacation_withdrawn_before_it_begins_gives_back_the_clock_and_the_days(
        db_url: str) -> None:
    match = nim("3d")
    Player.update(mail_pref="each").where(Player.email == BEN).execute()
    ann = Player.get(Player.email == ANN)
    declared = declare(ann.id, date(2026, 1, 6), date(2026, 1, 7), 14, START)
    assert seat(match, 0).deadline == START + 5 * DAY
    cancel(ann.id, declared.vacation.id, START + HOUR)
    assert seat(match, 0).deadline == START + 3 * DAY
    assert Vacation.select().count() == 0 and allowance(ann.id, 2026, 14).used == 0
    assert Player.get_by_id(ann.id).away_until is None
    (told,) = mails("vacation")[1:]
    assert told.to_address == BEN and told.params["cancelled"] == "withdrawn"
    logged = ChangeLog.get(ChangeLog.match == match.id, ChangeLog.kind == "vacation-cancelled")
    assert logged.payload["under_way"] is False


def test_a_vacation_ended_early_stops_the_clock_only_for_the_time_away(db_url: str) -> None:
    match = nim("3d")
    ann = Player.get(Player.email == ANN)
    declared = declare(ann.id, date(2026, 1, 6), date(2026, 1, 7), 14, START)
    back = datetime(2026, 1, 6, 9, 0)  # nine hours into the first day away
    cancel(ann.id, declared.vacation.id, back)
    assert seat(match, 0).deadline == START + 3 * DAY + 9 * HOUR
    assert Vacation.get().ends_at == back and Player.get_by_id(ann.id).away_until == back
    assert allowance(ann.id, 2026, 14).used == 1, "the day begun counts, the rest is back"
    with pytest.raises(ConflictError, match="already over"):
        cancel(ann.id, declared.vacation.id, back + MINUTE)


def test_a_vacation_called_off_just_after_it_began_is_withdrawn_as_a_mistake(
        db_url: str) -> None:
    match = nim("3d")
    ann = Player.get(Player.email == ANN)
    declared = declare(ann.id, START.date(), START.date(), 14, START)  # from now, today
    assert declared.vacation.starts_at == START
    cancelled = cancel(ann.id, declared.vacation.id, START + 5 * MINUTE)
    assert not cancelled.ended and Vacation.select().count() == 0
    assert allowance(ann.id, 2026, 14).used == 0 and seat(match, 0).deadline == START + 3 * DAY


def test_only_the_players_own_vacation_still_to_end_can_be_called_off(db_url: str) -> None:
    nim("3d")
    ann, ben = (Player.get(Player.email == email) for email in (ANN, BEN))
    declared = declare(ann.id, date(2026, 1, 6), date(2026, 1, 7), 14, START)
    with pytest.raises(NotFoundError):
        cancel(ben.id, declared.vacation.id, START)
    with pytest.raises(NotFoundError):
        cancel(ann.id, declared.vacation.id + 1, START)
    with pytest.raises(ConflictError):
        cancel(ann.id, declared.vacation.id, datetime(2026, 1, 8))
    assert Vacation.get().ends_at == datetime(2026, 1, 8), "nothing changed"


def test_vacations_beyond_the_allowance_overlapping_or_in_the_past_are_refused(
        db_url: str) -> None:
    nim()
    ann = Player.get(Player.email == ANN).id
    with pytest.raises(InvalidRequestError, match="allowance is 14 and you have 14 left"):
        declare(ann, date(2026, 2, 1), date(2026, 2, 15), 14, START)
    declare(ann, date(2026, 2, 1), date(2026, 2, 10), 14, START)
    with pytest.raises(InvalidRequestError, match="already have a vacation"):
        declare(ann, date(2026, 2, 10), date(2026, 2, 11), 14, START)
    with pytest.raises(InvalidRequestError, match="you have 4 left"):
        declare(ann, date(2026, 3, 1), date(2026, 3, 5), 14, START)
    with pytest.raises(InvalidRequestError, match="in the past"):
        declare(ann, date(2026, 1, 1), date(2026, 1, 2), 14, START)
    with pytest.raises(InvalidRequestError, match="ends before it starts"):
        declare(ann, date(2026, 3, 5), date(2026, 3, 1), 14, START)
    assert allowance(ann, 2026, 14).used == 10


def test_a_vacation_declared_while_the_deadline_runs_pushes_it_back(db_url: str) -> None:
    match = nim("45s")
    declare(Player.get(Player.email == ANN).id, START.date(), START.date(), 14, START)
    assert seat(match, 0).deadline == START + DAY - timedelta(hours=12) + timedelta(seconds=45)


# --- timeouts -------------------------------------------------------------------------------

def test_adjudicate_opens_a_queue_entry_and_tells_every_player(db_url: str) -> None:
    match = nim("45s", "adjudicate")
    report = run_sweep(START + MINUTE)
    assert report.settled == 1
    (entry,) = Adjudication.select()
    assert (entry.match_id, entry.seat, entry.cause, entry.status) == (
        match.id, 0, "timeout", "open")
    told = mails("adjudication")
    assert sorted(m.to_address for m in told) == [ANN, BEN]
    assert Match.get_by_id(match.id).status == "active"
    assert run_sweep(START + 2 * MINUTE).settled == 0, "settled once only"


def test_forfeit_ends_a_two_player_match_for_the_other_seat(db_url: str) -> None:
    match = nim("45s", "forfeit")
    run_sweep(START + MINUTE)
    match = Match.get_by_id(match.id)
    assert match.status == "finished" and match.result["winners"] == [1]
    assert "ran out of time and forfeits" in match.result["reason"]
    assert sorted(m.to_address for m in mails("result")) == [ANN, BEN]
    assert all(s.deadline is None for s in match.seat_rows())


def test_forfeit_with_three_players_puts_the_late_seat_last(db_url: str) -> None:
    match = create_match("bids", [ANN, BEN, CY], {}, SECRET, START, time_control="45s",
                         on_timeout="forfeit").match
    for number in (1, 2):
        submit_move(match.id, number, f"play {match.state['hands'][number][0]}", 0, START)
    run_sweep(START + MINUTE)
    match = Match.get_by_id(match.id)
    assert match.status == "finished" and match.result["winners"] == [1, 2]
    assert match.result["scores"][0] < min(match.result["scores"][1:])


def test_autoplay_moves_for_the_absent_seat_and_the_match_goes_on(db_url: str) -> None:
    match = nim("45s", "autoplay")
    run_sweep(START + MINUTE)
    (move,) = Move.select()
    assert (move.seat, move.text) == (0, "take 1") and "autoplay" in move.note
    match = Match.get_by_id(match.id)
    assert match.status == "active" and match.to_move == [1]
    assert seat(match, 1).deadline == START + MINUTE + timedelta(seconds=45)
    assert mails("your_turn")[-1].to_address == BEN


def test_two_sweeps_at_once_settle_every_deadline_exactly_once(db_url: str) -> None:
    for _ in range(12):
        nim("45s", "adjudicate")
    barrier = threading.Barrier(2)
    reports = []

    def run() -> None:
        barrier.wait()
        with database.connection_context():
            reports.append(sweep(START + MINUTE, GRACE))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.settled for r in reports) == 12
    assert Adjudication.select().count() == 12
    assert len(mails("adjudication")) == 24


def test_a_seat_that_moves_before_the_ruling_makes_its_entry_moot(db_url: str) -> None:
    match = nim("45s", "adjudicate")
    run_sweep(START + MINUTE)
    submit_move(match.id, 0, "take 2", 0, START + 2 * MINUTE)
    assert Adjudication.get().status == "closed"
    assert seat(match, 1).deadline == START + 2 * MINUTE + timedelta(seconds=45)


# --- when the server fails ------------------------------------------------------------------

def test_deadlines_inside_a_worker_outage_are_extended_not_expired(db_url: str) -> None:
    match = nim("90m", "forfeit")
    run_sweep(START)  # the worker's heartbeat
    # The worker is down from START to START + 2h; the 90-minute deadline fell inside.
    report = run_sweep(START + 2 * HOUR)
    assert report.extended_by_outage == 1 and report.settled == 0
    assert seat(match, 0).deadline == START + 90 * MINUTE + 2 * HOUR
    assert Match.get_by_id(match.id).status == "active"
    keep_worker_alive(START + 4 * HOUR)
    assert Match.get_by_id(match.id).status == "finished"


def test_a_short_pause_within_the_grace_changes_nothing(db_url: str) -> None:
    match = nim("90m")
    run_sweep(START)
    assert run_sweep(START + 9 * MINUTE).extended_by_outage == 0
    assert seat(match, 0).deadline == START + 90 * MINUTE


def test_an_undelivered_turn_email_holds_the_deadline_for_an_admin(db_url: str) -> None:
    match = nim("45s", "forfeit")
    OutboxMessage.update(status=MessageStatus.FAILED).where(
        OutboxMessage.template == "your_turn").execute()
    report = run_sweep(START + MINUTE)
    assert report.held == 1 and report.settled == 0
    assert Match.get_by_id(match.id).status == "active", "no forfeit without a delivered email"
    entry = Adjudication.get()
    assert (entry.cause, entry.status) == ("undelivered", "open")


def test_a_forfeit_in_mimic_taking_ranks_the_others_by_their_points_so_far(db_url) -> None:
    from pbem.games import get_rules

    rules = get_rules("mimic-taking")
    match = create_match("mimic-taking", [ANN, BEN, CY], {}, SECRET, START, time_control="1h",
                         on_timeout="forfeit").match
    state = rules.from_position("round=2 leader=0 hands=O1,O4/B2,G8/P3,P5 scores=9,-3,4")
    Match.update(state=rules.dump(state), to_move=sorted(rules.to_move(state))).where(
        Match.id == match.id).execute()
    # The hand-built position has seat 0 to lead: its clock is the one running.
    from pbem.core.matches.deadlines import start_clock, stop_all_clocks

    stop_all_clocks(match)
    start_clock(match, seat(match, 0), START)
    run_sweep(START + 2 * HOUR, grace=DAY)
    result = Match.get_by_id(match.id).result
    assert result["winners"] == [2], "the late seat had the most points, yet comes last"
    assert result["scores"][0] < result["scores"][1] < result["scores"][2]


def test_two_workers_starting_together_both_record_their_first_heartbeat(db_url) -> None:
    from pbem.core.admin.models import Heartbeat

    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def first_tick() -> None:
        barrier.wait()
        try:
            with database.connection_context():
                sweep(START, GRACE)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=first_tick) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and Heartbeat.select().count() == 1


@pytest.mark.parametrize("policy", ["adjudicate", "forfeit", "claim", "autoplay"])
def test_a_seat_late_with_its_salt_takes_the_one_it_was_given(db_url, policy: str) -> None:
    from pbem.core.matches.creation import current_state
    from pbem.games import get_rules
    from pbem.games.dealing import default_salt

    rules = get_rules("mimic-taking")
    match = create_match("mimic-taking", [ANN, BEN, CY], {}, SECRET, START, time_control="1h",
                         on_timeout=policy).match
    assert rules.load(match.state).salting, "a new match waits for every seat's salt"
    submit_move(match.id, 0, "salt Ann's own", 0, START + MINUTE)
    report = run_sweep(START + 2 * HOUR, grace=DAY)
    assert report.settled == 2
    match = Match.get_by_id(match.id)
    assert match.status == "active" and match.result is None, "nobody loses before a deal"
    assert not Adjudication.select().exists(), "nor waits for an admin"
    state = current_state(match)
    assert state.salts == ("Ann's own", default_salt(match.deal_seed, 1),
                           default_salt(match.deal_seed, 2))
    assert not state.salting and all(len(hand) == 12 for hand in state.hands)
    late = list(Move.select().where(Move.match == match, Move.seat > 0).order_by(Move.ply))
    assert [(move.seat, move.text) for move in late] == [(1, "salt"), (2, "salt")]
    (leader,) = match.to_move
    assert seat(match, leader).deadline is not None, "the first card's clock runs"
