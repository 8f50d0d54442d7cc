"""Reply by email, case by case: addresses, commands, refusals, threading and every safety
rule (exactly once, sender check, automatic mail, rate limit, oversized and unknown keys)."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy

import pytest

from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import reissue, seat_for_reply_key
from pbem.mail.addresses import find_reply_key
from pbem.mail.inbound import handle
from tests.conftest import START, make_settings
from tests.mail.inbound_support import (
    ALICE,
    BOB,
    as_sent,
    last_inbound,
    latest,
    reply,
    start,
)

LATER = START + timedelta(minutes=5)
CAROL = "carol@example.org"


def answers(address: str = ALICE) -> list[OutboxMessage]:
    return list(OutboxMessage.select().where(OutboxMessage.to_address == address,
                                             OutboxMessage.template == "inbound_answer")
                .order_by(OutboxMessage.id))


def test_every_mail_to_a_seat_has_its_own_reply_address_and_says_how_to_reply(
        mail_settings) -> None:
    start()
    welcome, turn = as_sent(mail_settings, latest(ALICE, "welcome")), \
        as_sent(mail_settings, latest(ALICE))
    bob = as_sent(mail_settings, latest(BOB, "welcome"))
    assert welcome["Reply-To"] == turn["Reply-To"] != bob["Reply-To"]
    local, domain = turn["Reply-To"].split("@")
    assert domain == "pbem.test" and local.startswith("play.1-0-")
    text = turn.get_body(("plain",)).get_content()
    assert text.splitlines()[0].startswith(
        "Move by email: reply with your move on the first line (for example: take 1)")
    html = turn.get_body(("html",)).get_content()
    assert html.index("Move by email") < html.index("Your turn, First")


def test_without_a_reply_address_mail_has_no_reply_to_and_no_hint(db_url, tmp_path) -> None:
    settings = make_settings(db_url, tmp_path)
    start()
    mail = as_sent(settings, latest(ALICE))
    assert mail["Reply-To"] is None
    assert "Move by email" not in mail.get_body(("plain",)).get_content()


def test_a_reply_key_cannot_be_forged_and_dies_with_the_seat_link(mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    key = find_reply_key(mail_settings, [mail["Reply-To"]])[1]
    assert seat_for_reply_key(mail_settings.secret_key, key).seat == 0
    assert seat_for_reply_key(mail_settings.secret_key, key.upper()).seat == 0  # case-folded
    forged = key[:-1] + ("a" if key[-1] != "a" else "b")
    other_seat = key.replace("1-0-", "1-1-", 1)
    for bad in (forged, other_seat, "1-0-", "x" * 500, ""):
        assert seat_for_reply_key(mail_settings.secret_key, bad) is None
    reissue(mail_settings.secret_key, Seat.get(Seat.seat == 0))
    receipt = handle(reply(mail, "take 2"), mail_settings, "pipe", LATER)
    assert receipt.action == "unknown_key" and receipt.answer is None
    assert Match.get_by_id(1).ply == 0 and answers() == []


def test_a_move_is_confirmed_in_the_thread_and_sent_over_smtp(mail_settings, smtp,
                                                              tmp_path, db_url) -> None:
    from pbem.worker import Worker
    from tests.conftest import SUPPORT_TEMPLATES, Clock

    settings = make_settings(db_url, tmp_path, reply_address="play@pbem.test",
                             smtp_host=smtp.host, smtp_port=smtp.port)
    start()
    mail = as_sent(settings, latest(ALICE))
    raw = reply(mail, "Take 2")
    receipt = handle(raw, settings, "pipe", LATER)
    assert (receipt.action, receipt.detail, receipt.answer) == ("moved", "take 2", "moved")
    Worker(settings, clock=Clock(LATER), extra_template_dirs=(SUPPORT_TEMPLATES,)).send_outbox()
    player_id = message_from_bytes(raw, policy=policy.default)["Message-ID"]
    confirmation = next(m for m in smtp.to(ALICE) if m["In-Reply-To"] == player_id)
    assert confirmation["Subject"] == "Re: Nim (test game), match #1"
    assert "Your move take 2 is played." in confirmation.get_body(("plain",)).get_content()
    assert any(m["Subject"] for m in smtp.to(BOB))  # the opponent's usual "your turn"


def test_an_illegal_move_is_refused_with_the_reason_the_position_and_the_legal_moves(
        mail_settings) -> None:
    start(pile="2")
    receipt = handle(reply(as_sent(mail_settings, latest(ALICE)), "take 3"), mail_settings,
                     "pipe", LATER)
    assert receipt.action == "refused" and "cannot take 3" in receipt.detail
    answer = as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    assert "Your reply was not played: you cannot take 3" in answer
    assert "Pile: 2" in answer and "Your legal moves: take 1, take 2" in answer
    assert Match.get_by_id(1).ply == 0


def test_unreadable_mail_gets_help(mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(mail, "Hello! Which move should I make?"), mail_settings, "pipe",
                     LATER)
    assert receipt.action == "unreadable" and receipt.answer == "help"
    text = as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    assert "is not a move" in text and "resign: give up the match" in text
    assert handle(reply(mail, ""), mail_settings, "pipe", LATER).action == "unreadable"


@pytest.mark.parametrize("command", ["board", "Board.", "HELP"])
def test_board_and_help_answer_without_changing_the_match(mail_settings, command) -> None:
    start()
    receipt = handle(reply(as_sent(mail_settings, latest(ALICE)), command), mail_settings,
                     "pipe", LATER)
    assert receipt.action == "command" and receipt.answer == command.strip(".").lower()
    assert "Pile: 9" in as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    assert Match.get_by_id(1).ply == 0


def test_a_mail_lists_the_first_moves_and_a_moves_reply_gets_them_all(mail_settings) -> None:
    """Mimic's first position has 50 legal moves: a turn mail lists 30 and says how to get
    the rest by mail, and the answer to `moves` lists every one."""
    start("mimic")
    turn = as_sent(mail_settings, latest(ALICE))
    text = turn.get_body(("plain",)).get_content()
    assert 'and 20 more (reply "moves" for all of them)' in text
    receipt = handle(reply(turn, "moves"), mail_settings, "pipe", LATER)
    assert (receipt.action, receipt.answer) == ("command", "moves")
    answer = as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    listed = answer.split("Your legal moves: ", 1)[1].split("\n", 1)[0]
    assert len(listed.split(", ")) == 50 and "more" not in listed
    assert Match.get_by_id(1).ply == 0


def test_resign_by_reply_ends_the_match(mail_settings) -> None:
    start()
    receipt = handle(reply(as_sent(mail_settings, latest(ALICE)), "Resign"), mail_settings,
                     "pipe", LATER)
    assert (receipt.action, receipt.answer, receipt.changed) == ("command", "done", True)
    match = Match.get_by_id(1)
    assert match.status == MatchStatus.FINISHED and match.result["winners"] == [1]
    text = as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    assert "You resigned." in text
    assert latest(BOB, "result")  # the opponent hears of it as of any result


def test_mails_after_a_resignation_name_nobody_to_move(mail_settings) -> None:
    """A match resigned mid-game: the answer to the reply, and both result mails, show the
    final board as over (not "Red to move.") and say the match is over instead of asking
    for a move."""
    start("mimic", seed=3)
    turn = latest(ALICE)
    handle(reply(as_sent(mail_settings, turn), "resign"), mail_settings, "pipe", LATER)
    # The turn mail written before the end still reads as it was sent.
    before = as_sent(mail_settings, turn).get_body(("plain",)).get_content()
    assert "Move by email" in before and "Match over." not in before, before
    for mail in (answers()[-1], latest(ALICE, "result"), latest(BOB, "result")):
        text = as_sent(mail_settings, mail).get_body(("plain",)).get_content()
        html = as_sent(mail_settings, mail).get_body(("html",)).get_content()
        assert "to move." not in text and "Match over." in text, text
        assert "This match is over." in text and "Move by email" not in text, text
        assert "Move by email" not in html


def test_a_tournament_matchs_first_move_can_be_made_by_replying(mail_settings) -> None:
    """A round's matches send no welcome (each player gets one mail for the round), but the
    seat to move still gets its turn mail, with its reply address: the first move of a
    tournament match can be made by email like any other."""
    from tests.support.tournaments import started_round_robin

    _tournament, match = started_round_robin((ALICE, BOB), mail_settings.secret_key)
    first = next(seat for seat in match.seat_rows() if seat.seat == 0).player.email
    assert not OutboxMessage.select().where(OutboxMessage.template == "welcome").exists()
    assert {m.to_address for m in OutboxMessage.select().where(
        OutboxMessage.template == "tournament_round")} == {ALICE, BOB}
    turn = as_sent(mail_settings, latest(first))
    assert turn["Reply-To"] and "Move by email" in turn.get_body(("plain",)).get_content()
    receipt = handle(reply(turn, "take 2"), mail_settings, "pipe", LATER)
    assert receipt.action == "moved" and Match.get_by_id(match.id).ply == 1


def test_a_draw_is_offered_and_accepted_by_reply(mail_settings) -> None:
    start()
    offered = handle(reply(as_sent(mail_settings, latest(ALICE)), "draw"), mail_settings,
                     "pipe", LATER)
    assert (offered.action, offered.answer) == ("command", "done")
    assert "You offered a draw" in as_sent(mail_settings, answers()[-1]).get_body(
        ("plain",)).get_content()
    # Bob's mail names who offers (seat and name) and how to answer it by reply.
    offer = as_sent(mail_settings, latest(BOB, "draw_offer")).get_body(("plain",)).get_content()
    assert "too).\n\nFirst (alice) offers a draw in" in offer, offer
    assert 'reply "draw" to accept the draw or "decline" to decline it' in offer
    accepted = handle(reply(as_sent(mail_settings, latest(BOB, None)), "draw"), mail_settings,
                      "pipe", LATER)
    assert accepted.action == "command"
    match = Match.get_by_id(1)
    assert match.status == MatchStatus.FINISHED and match.result["winners"] == [0, 1]


def test_a_draw_offer_is_declined_by_reply_and_decline_without_one_is_refused(
        mail_settings) -> None:
    start()
    nothing = handle(reply(as_sent(mail_settings, latest(BOB, "welcome")), "decline"),
                     mail_settings, "pipe", LATER)
    assert nothing.action == "refused" and nothing.answer == "refused"
    handle(reply(as_sent(mail_settings, latest(ALICE)), "draw"), mail_settings, "pipe", LATER)
    declined = handle(reply(as_sent(mail_settings, latest(BOB, "welcome")), "decline"),
                      mail_settings, "pipe", LATER)
    assert (declined.action, declined.changed) == ("command", True)
    assert Match.get_by_id(1).status == MatchStatus.ACTIVE
    assert "You declined the draw offer" in as_sent(mail_settings, answers(BOB)[-1]).get_body(
        ("plain",)).get_content()


def test_a_reply_to_an_older_turn_mail_is_stale_once_the_position_moved(mail_settings) -> None:
    start()
    first = as_sent(mail_settings, latest(ALICE))
    submit_move(1, 0, "take 1", 0, LATER)
    submit_move(1, 1, "take 1", 1, LATER)
    receipt = handle(reply(first, "take 1"), mail_settings, "pipe", LATER)
    assert receipt.action == "refused" and receipt.detail.startswith("stale: ")
    text = as_sent(mail_settings, answers()[-1]).get_body(("plain",)).get_content()
    assert "Your reply was not played: it answers an older mail" in text
    assert "Pile: 7" in text and "Your legal moves: take 1, take 2, take 3" in text
    assert Match.get_by_id(1).ply == 2
    # The newer mail is current, and a mail naming none of ours is judged as it stands.
    assert handle(reply(as_sent(mail_settings, latest(ALICE)), "take 1"), mail_settings,
                  "pipe", LATER).action == "moved"
    fresh = reply(as_sent(mail_settings, latest(BOB)), "take 1",
                  headers={"In-Reply-To": "<unknown@elsewhere>", "References": ""})
    assert handle(fresh, mail_settings, "pipe", LATER).action == "moved"


def test_a_simultaneous_decision_is_not_stale_when_only_others_chose(mail_settings) -> None:
    start("bids", (ALICE, BOB, CAROL))
    bob_mail = as_sent(mail_settings, latest(BOB))
    carol_mail = as_sent(mail_settings, latest(CAROL))
    alice_card = Match.get_by_id(1).state["hands"][0][0]
    submit_move(1, 0, f"play {alice_card}", 0, LATER)
    bob_card = Match.get_by_id(1).state["hands"][1][0]
    assert handle(reply(bob_mail, f"play {bob_card}"), mail_settings, "pipe",
                  LATER).action == "moved"
    carol_card = Match.get_by_id(1).state["hands"][2][0]
    assert handle(reply(carol_mail, f"play {carol_card}"), mail_settings, "pipe",
                  LATER).action == "moved"
    assert Match.get_by_id(1).ply == 3


def test_a_message_delivered_twice_acts_once(mail_settings, pipe) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    assert pipe(raw) == 0
    assert pipe(raw) == 0
    assert handle(raw, mail_settings, "http", LATER).action == "duplicate"
    assert Match.get_by_id(1).ply == 1 and len(answers()) == 1
    assert InboundMessage.select().count() == 1


def test_mail_without_a_message_id_is_still_handled_once(mail_settings) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2",
                headers={"Message-ID": ""})
    assert handle(raw, mail_settings, "pipe", LATER).action == "moved"
    assert handle(raw, mail_settings, "pipe", LATER).action == "duplicate"


def test_a_stranger_cannot_move_and_is_not_answered_but_the_player_is_told(
        mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(mail, "take 2", sender="mallory@evil.example"), mail_settings,
                     "pipe", LATER)
    assert receipt.action == "foreign_sender" and receipt.answer == "foreign"
    assert Match.get_by_id(1).ply == 0
    assert OutboxMessage.select().where(
        OutboxMessage.to_address == "mallory@evil.example").count() == 0
    told = as_sent(mail_settings, answers()[-1])
    assert told["To"] == ALICE
    assert "mallory@evil.example" in told.get_body(("plain",)).get_content()


def test_the_sender_check_can_be_turned_off(db_url, tmp_path) -> None:
    settings = make_settings(db_url, tmp_path, reply_address="play@pbem.test",
                             inbound_require_sender_match=False)
    start()
    mail = as_sent(settings, latest(ALICE))
    receipt = handle(reply(mail, "take 2", sender="alice.work@example.com"), settings, "pipe",
                     LATER)
    assert receipt.action == "moved"
    assert [m.to_address for m in answers()] == [ALICE]  # answered at the seat's address


@pytest.mark.parametrize("headers", [
    {"Auto-Submitted": "auto-replied"},
    {"Auto-Submitted": "auto-generated; type=vacation"},
    {"Precedence": "bulk"}, {"Precedence": "junk"}, {"Precedence": "list"},
    {"Return-Path": "<>"},
    {"From": "MAILER-DAEMON@mail.example.org"},
    {"From": "postmaster@example.org"},
    {"X-Autoreply": "yes"},
    {"Subject": "Out of Office: Nim (test game), match #1"},
    {"Subject": "Automatic reply: Nim (test game), match #1"},
    {"Subject": "Abwesenheitsnotiz: Nim (test game), match #1"},
    {"List-Id": "<games.lists.example.org>"},
])
def test_automatic_mail_is_never_answered_nor_played(mail_settings, headers) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2", headers=headers)
    receipt = handle(raw, mail_settings, "pipe", LATER)
    assert receipt.action == "automatic" and receipt.answer is None
    assert Match.get_by_id(1).ply == 0 and answers() == []


def test_auto_submitted_no_is_a_person(mail_settings) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2",
                headers={"Auto-Submitted": "no"})
    assert handle(raw, mail_settings, "pipe", LATER).action == "moved"


def test_our_own_mail_coming_back_is_a_loop_and_ignored(mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    # pbem's own answer bounced back into its inbox: automatic by its own header.
    raw = bytes(mail)
    raw = raw.replace(b"To: alice@example.org", f"To: {mail['Reply-To']}".encode(), 1)
    assert handle(raw, mail_settings, "pipe", LATER).action == "automatic"


def test_error_answers_are_limited_per_seat_per_hour(mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    actions = [handle(reply(mail, f"nonsense {n}"), mail_settings, "pipe",
                      LATER + timedelta(minutes=n)) for n in range(6)]
    assert [a.answer for a in actions] == ["help"] * 3 + [None] * 3
    assert len(answers()) == 3
    # An hour later the seat may be answered again.
    later = handle(reply(mail, "nonsense again"), mail_settings, "pipe",
                   LATER + timedelta(minutes=70))
    assert later.answer == "help"


def test_oversized_mail_and_mail_to_no_key_are_dropped_and_recorded(mail_settings,
                                                                    caplog) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    big = reply(mail, "take 2\n" + "x" * (1024 * 1024))
    assert handle(big, mail_settings, "pipe", LATER).action == "oversized"
    stray = reply(mail, "take 2", headers={"To": "play@pbem.test"})
    assert handle(stray, mail_settings, "pipe", LATER).action == "no_key"
    assert Match.get_by_id(1).ply == 0 and answers() == []
    assert [r.action for r in InboundMessage.select().order_by(InboundMessage.id)] == [
        "oversized", "no_key"]
    assert "inbound mail dropped (oversized)" in caplog.text


def test_every_inbound_message_is_recorded_for_the_admin(mail_settings) -> None:
    start()
    mail = as_sent(mail_settings, latest(ALICE))
    handle(reply(mail, "take 2"), mail_settings, "imap", LATER)
    record = last_inbound()
    assert (record.via, record.sender, record.action, record.first_line) == (
        "imap", ALICE, "moved", "take 2")
    assert record.received_at == LATER and record.match_id == 1 and record.seat == 0
    # The reply key is not stored usable: only a stump of it.
    key = find_reply_key(mail_settings, [mail["Reply-To"]])[1]
    assert key not in (record.recipient or "") and record.recipient.startswith("play.1-0-")


@pytest.mark.parametrize("raw", [
    b"",
    b"\x00\xff\xfe garbage",
    b"From: alice@example.org\nTo: play.1-0-aaaa@pbem.test\n\n",
    b"Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/plain; charset=bogus"
    b"\nContent-Transfer-Encoding: base64\n\n!!!notbase64\n--x",
    b"Subject: =?utf-8?q?broken=ZZ?=\nFrom: =?x-unknown?b?AAAA?= <alice@example.org>\n\nhi",
])
def test_malformed_mime_never_crashes(mail_settings, raw) -> None:
    start()
    receipt = handle(raw, mail_settings, "pipe", LATER)
    assert receipt.action in ("no_key", "unknown_key")
    assert Match.get_by_id(1).ply == 0
