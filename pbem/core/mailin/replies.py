"""Reply by email, the service: act on one inbound message already read by the mail layer.

The mail layer (`pbem.mail.inbound`) decodes the MIME message and hands over a `Letter`: who
sent it, the reply key it was addressed to, whether it looks automatic, and the first line of
the player's own text. Here that becomes at most one change to a match, made through the same
services as the web (`play.submit_move`, and the lifecycle's resign and draw commands), and at
most one answer, queued in the outbox under the player's reply.

Everything for one message happens in one transaction that starts by recording it under the
hash of its Message-ID: a message delivered twice (a retried pipe, IMAP and the pipe both) is
acted on once, and a crash before the commit leaves nothing behind, so a retry starts clean.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem import i18n
from pbem.core.conversation import chat
from pbem.core.db.connection import database, write_transaction
from pbem.core.db.retry import retrying
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout import chat as chat_mail
from pbem.core.mailout.contexts import COMMANDS
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.notify import outbox_id
from pbem.core.matches import conditional, lifecycle
from pbem.core.matches.changes import Channel
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.play import MoveResult, submit_move
from pbem.core.matches.seat_links import seat_for_reply_key
from pbem.errors import ConflictError, PbemError
from pbem.games import get_rules
from pbem.games.base import IllegalMoveError, InvalidMoveError, RulesError
from pbem.games.lines import is_conditional_text, parse_conditional_text
from pbem.i18n import N_, _

log = logging.getLogger(__name__)

MAX_LINE = 200
MAX_MESSAGE_ID = 200
# The lifecycle services the commands call: each takes (match_id, seat, now) and returns a
# sentence for the player.
LIFECYCLE: dict[str, Callable[..., Any]] = {
    "resign": lifecycle.resign, "draw": lifecycle.draw_yes, "decline": lifecycle.draw_no}


def install_commands(services: dict[str, Callable[..., Any]]) -> None:
    """Add commands whose services live above mail-in's tier (takebacks: core/takebacks reads
    tournaments), installed with the settlers (`pbem.core.settlers.install`)."""
    LIFECYCLE.update(services)


# Readers of reply keys that are no seat's (a league's or a ladder's mail, from above
# mail-in's tier): each returns None for a key it does not know.
KEY_HANDLERS: list[Callable[[Letter, Policy, datetime], Receipt | None]] = []


def install_key_handler(handler: Callable[[Letter, Policy, datetime], Receipt | None]) -> None:
    """Add a reader of other reply keys (installed with the settlers, once however often)."""
    if handler not in KEY_HANDLERS:
        KEY_HANDLERS.append(handler)


# What an answer says (translated when the answer is queued, in the seat's player's language).
DONE = {"resign": N_("You resigned the match."),
        "draw": N_("Your draw offer (or your acceptance of the one offered) is recorded."),
        "decline": N_("You declined the draw offer.")}
STALE = N_("it answers an older mail, and the position has changed since (or you already "
           "moved from it). Here is the position now; reply to this mail to move.")
# Answers that tell a player something went wrong; at most `error_answers_per_hour` per seat.
ERROR_ANSWERS = frozenset({"refused", "help", "foreign"})


class Action:
    MOVED = "moved"
    COMMAND = "command"
    REFUSED = "refused"
    UNREADABLE = "unreadable"
    DUPLICATE = "duplicate"
    OVERSIZED = "oversized"
    NO_KEY = "no_key"
    UNKNOWN_KEY = "unknown_key"
    AUTOMATIC = "automatic"
    FOREIGN = "foreign_sender"
    MALFORMED = "malformed"  # could not be read at all (too deep, broken): refused, recorded
    POSTED = "posted"  # no move: the reply's text went to the match's chat


@dataclass(frozen=True)
class Letter:
    """One inbound message, as the mail layer read it."""

    message_key: str                   # SHA-256 of the Message-ID, or of the whole message
    via: str                           # pipe, imap, http or dev
    message_id: str | None = None      # "<…>", to thread the answer under
    sender: str | None = None          # the From address, lower case
    recipient: str | None = None       # the reply address, MAC cut short (for the record)
    reply_key: str | None = None       # unverified: checked here against the seat
    automatic: str | None = None       # why it looks sent by a machine, if it does
    oversized: bool = False
    first_line: str | None = None      # the player's first non-empty line, quotes stripped
    answers_to: tuple[str, ...] = ()   # our outbox keys it references, the direct parent first
    malformed: str | None = None       # why it could not be read at all, if it could not
    conditional: str | None = None     # the player's `if … then …` lines, joined by commas
    text: str | None = None            # all the player wrote, first line included (chat)


@dataclass(frozen=True)
class Receipt:
    action: str
    detail: str = ""
    answer: str | None = None
    match_id: int | None = None
    seat: int | None = None
    changed: bool = False              # a move or command changed the match


@dataclass(frozen=True)
class Policy:
    secret_key: str
    require_sender_match: bool = True
    error_answers_per_hour: int = 3
    own_addresses: frozenset[str] = field(default_factory=frozenset)


def receive(letter: Letter, policy: Policy, now: datetime) -> Receipt:
    """Act on one letter exactly once; return what was done. Raises only for database trouble
    (the caller retries the message later).

    Three steps, none inside another's transaction: the message is claimed by its
    Message-ID's hash (a second delivery finds the claim and does nothing); then what it asks
    is done, each change through the match door in the door's own transaction (so a lost race
    or a deadlock is retried there, as for the web); then the outcome is written on the claim.
    A process that dies between the first and the last leaves the claim saying "received",
    shown so on the admin's inbound page, and the message is not acted on twice."""
    record = retrying(lambda: _claim_once(letter, now))
    if record is None:
        return Receipt(Action.DUPLICATE, "this message was already handled")
    receipt = _decide(letter, policy, now)
    retrying(lambda: _record_outcome(record, receipt))
    if receipt.action in (Action.OVERSIZED, Action.NO_KEY, Action.UNKNOWN_KEY):
        log.warning("inbound mail dropped (%s) from %s to %s: %s", receipt.action,
                    letter.sender, letter.recipient, receipt.detail)
    else:
        log.info("inbound mail from %s for match %s seat %s: %s (%s)", letter.sender,
                 receipt.match_id, receipt.seat, receipt.action, receipt.detail)
    return receipt


def recent(limit: int = 200) -> list[InboundMessage]:
    """The latest inbound messages, newest first, for the admin page."""
    return list(InboundMessage.select().order_by(InboundMessage.id.desc()).limit(limit))


def _claim_once(letter: Letter, now: datetime) -> InboundMessage | None:
    with write_transaction():
        return _claim(letter, now)


def _record_outcome(record: InboundMessage, receipt: Receipt) -> None:
    with write_transaction():
        record.action = receipt.action
        record.detail = receipt.detail[:2000]
        record.answer = receipt.answer
        record.match_id = receipt.match_id
        record.seat = receipt.seat
        record.save()


def _claim(letter: Letter, now: datetime) -> InboundMessage | None:
    try:
        with database.atomic():  # a savepoint: a duplicate must not abort the transaction
            return InboundMessage.create(
                message_key=letter.message_key, message_id=_clip(letter.message_id, 200),
                received_at=now, via=letter.via, sender=_clip(letter.sender, 254),
                recipient=_clip(letter.recipient, 254),
                first_line=_clip(letter.first_line, MAX_LINE), action="received")
    except peewee.IntegrityError:
        return None


def _decide(letter: Letter, policy: Policy, now: datetime) -> Receipt:
    if letter.oversized:
        return Receipt(Action.OVERSIZED, "larger than 1 MiB")
    if letter.malformed:
        return Receipt(Action.MALFORMED, letter.malformed)
    if not letter.reply_key:
        return Receipt(Action.NO_KEY, "not addressed to a reply address")
    for handler in KEY_HANDLERS:
        if (handled := handler(letter, policy, now)) is not None:
            return handled
    seat = seat_for_reply_key(policy.secret_key, letter.reply_key)
    if seat is None:
        return Receipt(Action.UNKNOWN_KEY, "unknown, forged or revoked reply key")
    # What the answer says (a refusal's reason, a help line) is written now and stored with
    # it, so it is written in the seat's player's language.
    with i18n.language(seat.player.language, seat.player.timezone):
        return _decide_for(seat, letter, policy, now)


def _decide_for(seat: Seat, letter: Letter, policy: Policy, now: datetime) -> Receipt:
    if letter.automatic:
        return _at(seat, Action.AUTOMATIC, letter.automatic)
    if letter.sender and letter.sender in policy.own_addresses:
        return _at(seat, Action.AUTOMATIC, "sent by this server (a loop)")
    if policy.require_sender_match and letter.sender != seat.player.email.lower():
        # No backscatter: the sender may be forged. The seat's own player hears of it.
        answer = _answer(seat, "foreign", letter, policy, now, sender=letter.sender or "?")
        return _at(seat, Action.FOREIGN, f"sent from {letter.sender}, not the seat's address",
                   answer)
    line = letter.first_line
    if not line:
        answer = _answer(seat, "help", letter, policy, now,
                         reason=_("Your reply had no text of its own above the quoted mail."))
        return _at(seat, Action.UNREADABLE, "no text", answer)
    if letter.conditional and is_conditional_text(line):
        return _conditional_only(seat, letter, policy, now)
    command = _command(line)
    talk = talk_in_reply(seat, line, letter.text, command is not None)
    if talk.message_only:
        return _post_only(seat, talk.message or line, letter, policy, now)
    if command is not None:
        return _run_command(seat, command, letter, policy, now, talk.message)
    return _play(seat, talk.move or line, letter, policy, now, talk.message)


@dataclass(frozen=True)
class Talk:
    """What a reply says besides its first line: the chat message (None: nothing), and
    whether the reply is that message alone (its first line is no move and no command)."""

    message: str | None
    message_only: bool = False
    move: str | None = None  # the move, when the first line also holds words after it


def talk_in_reply(seat: Seat, line: str, text: str | None, is_command: bool) -> Talk:
    """Split a reply into its move (the first line, as ever) and its chat message (the rest of
    the player's own text). When the seat owes no move and the first line neither is a command
    nor reads as a move of this game, the whole text is the message: a player writing to
    their opponent between turns."""
    own = (text or line).strip()
    first, _newline, rest = own.partition("\n")
    # The text's first line is the move line as `first_line` read it; if they differ (a
    # body the two read differently) nothing after the move is taken as a message.
    message = (rest.strip() or None) if first.strip().strip("`*_ ").strip() == line else None
    if is_command:
        return Talk(message)
    match = Match.get_by_id(seat.match_id)
    rules = get_rules(match.game)
    state = rules.load(match.state)
    if match.is_live and seat.seat in rules.to_move(state):
        return _move_then_words(rules, state, seat.seat, line, message)
    try:
        rules.parse_move(state, seat.seat, line)
    except InvalidMoveError:
        return Talk(own, message_only=True)
    except RulesError:
        pass  # reads as a move, just not one for now: refused as a move, as ever
    return Talk(message)


# "e2-e3 — nice trap": a move, a dash with spaces around it, then words, on one line.
_MOVE_THEN_WORDS = re.compile(r"^(?P<move>.+?)\s+(?:\u2014|\u2013|--|-)\s+(?P<words>\S.*)$")


def _move_then_words(rules: Any, state: Any, seat: int, line: str,
                     message: str | None) -> Talk:
    """The seat's move on a first line that does not read as a move as a whole, but does up
    to a spaced dash: the words after the dash open the message. Anything else is left to
    the move's own check (and its refusal, as ever)."""
    found = _MOVE_THEN_WORDS.match(line)
    if found is None or _reads_as_move(rules, state, seat, line):
        return Talk(message)
    if not _reads_as_move(rules, state, seat, found["move"]):
        return Talk(message)
    words = found["words"].strip() + (f"\n{message}" if message else "")
    return Talk(words, move=found["move"].strip())


def _reads_as_move(rules: Any, state: Any, seat: int, text: str) -> bool:
    try:
        rules.parse_move(state, seat, text)
    except InvalidMoveError:
        return False
    except RulesError:
        return True  # a move of this game, if not a legal one
    return True


def _post_only(seat: Seat, text: str, letter: Letter, policy: Policy,
               now: datetime) -> Receipt:
    try:
        posted = chat_mail.post_and_mail(seat, text, now, via=chat.Channel.MAIL)
    except PbemError as error:
        answer = _answer(seat, "refused", letter, policy, now,
                         reason=_("your message was not posted: %(error)s", error=error))
        return _at(seat, Action.REFUSED, f"chat: {error}", answer)
    answer = _answer(seat, "posted", letter, policy, now, posted_id=posted.id)
    return _at(seat, Action.POSTED, f"message {posted.id}", answer)


def _post_ahead(seat: Seat, message: str | None,
                now: datetime) -> tuple[chat.ChatMessage | None, str | None]:
    """Post a reply's message before its move or command is made (so the mail the move queues
    can quote it); (None, why) if it cannot be posted, which does not stop the move."""
    if not message:
        return None, None
    try:
        return chat.post_as_seat(seat, message, now, via=chat.Channel.MAIL), None
    except PbemError as error:
        return None, str(error)


def _talk_params(posted: chat.ChatMessage | None, why: str | None) -> dict[str, Any]:
    # The message's id, never its text: the answer reads the row when it is rendered.
    return ({"posted_id": posted.id} if posted else {}) | ({"not_posted": why} if why else {})


def _play(seat: Seat, line: str, letter: Letter, policy: Policy, now: datetime,
          message: str | None = None) -> Receipt:
    expected = _expected_ply(seat, letter.answers_to)
    posted, why = _post_ahead(seat, message, now)
    try:  # the move runs in the door's own transaction
        result = submit_move(seat.match_id, seat.seat, line, expected, now, via=Channel.MAIL)
    except InvalidMoveError as error:
        _take_back(posted)
        answer = _answer(seat, "help", letter, policy, now, reason=str(error))
        return _at(seat, Action.UNREADABLE, str(error), answer)
    except (RulesError, PbemError) as error:
        _take_back(posted)
        kind = "illegal" if isinstance(error, IllegalMoveError) else type(error).__name__
        reason = str(error)
        if type(error) is ConflictError:  # stale or repeated; the core speaks of pages
            kind, reason = "stale", _(STALE)
        if letter.conditional:
            reason = _("%(reason)s Your conditional moves were not stored either: they answer "
                       "the position after your move.", reason=reason)
        answer = _answer(seat, "refused", letter, policy, now, reason=reason)
        # The record (the admin's inbound page, the dev mailbox) words it as the answer does.
        return _at(seat, Action.REFUSED, f"{kind}: {reason}", answer)
    if posted is not None:
        chat.attach_to_ply(posted, result.match.ply)
        # Seats that got no turn mail from this move (the match ended, or they still owe the
        # same simultaneous decision) are mailed the message by their chat choice.
        chat_mail.mail_others(posted, now, skip_seats=set(result.match.to_move or []))
    said = _conditional_after_move(seat, letter.conditional, result, now)
    # An opponent's conditional move may have answered at once: the answer's board is past it,
    # so it says so, as the page's notice does.
    answer = _answer(seat, "moved", letter, policy, now, move=result.text,
                     move_events=list(result.events), **_talk_params(posted, why),
                     **({"answered_with": result.answered_with} if result.answered_with else {}),
                     **({"conditional": said} if said else {}))
    return _at(seat, Action.MOVED, result.text + (" + message" if posted else "")
               + (f"; {said}" if said else ""), answer, changed=True)


def _take_back(posted: chat.ChatMessage | None) -> None:
    # The reply is answered as a whole: its move was not made, so its message is not kept
    # either (the answer asks for both again).
    if posted is not None:
        chat.withdraw(posted)


# -- conditional moves in a reply (`if c2-c3 then d4-d5, …`; pbem.games.lines' grammar) -----
# Kept apart from the move and the commands: they only ever go to the seat's own tree, never
# to its opponent as text.

def _conditional_after_move(seat: Seat, text: str | None, result: MoveResult,
                            now: datetime) -> str | None:
    """Store the conditional lines written under a move, in the position after it; a sentence
    saying what was stored, or why nothing was (None: the reply had none)."""
    if not text:
        return None
    if result.answered_with is not None:
        return _("Your conditional moves were not stored: your opponent answered at once "
                 "with %(move)s (a conditional move of theirs), so it is your turn again.",
                 move=result.answered_with)
    return _store_conditional(seat, text, result.match.ply, now)


def _conditional_only(seat: Seat, letter: Letter, policy: Policy, now: datetime) -> Receipt:
    """A reply of conditional moves alone, from a seat waiting for its opponent."""
    said = _store_conditional(seat, letter.conditional or "", None, now)
    answer = _answer(seat, "conditional", letter, policy, now, conditional=said)
    return _at(seat, Action.COMMAND, said, answer)


def _store_conditional(seat: Seat, text: str, ply: int | None, now: datetime) -> str:
    try:
        clauses = parse_conditional_text(text)
        stored = conditional.store(seat.match_id, seat.seat, [], now, expected_ply=ply,
                                   clauses=clauses)
    except ConflictError:
        return _("Your conditional moves were not stored: your opponent moved before they "
                 "could be. Look at the position and send them again if they still fit.")
    except (RulesError, PbemError) as error:
        return _("Your conditional moves were not stored: %(error)s", error=error)
    if not stored.lines:
        return _("You have no conditional moves stored.")
    # The lines as a reply writes them: "if … then …" is the reply grammar, kept in English.
    written = "; ".join(f"if {line[0]} then {' '.join(line[1:])}" for line in stored.lines)
    return _("Your conditional moves are stored (they replace any before): %(lines)s. Only "
             "you can see them until they are played.", lines=written)


def _run_command(seat: Seat, command: str, letter: Letter, policy: Policy,
                 now: datetime, message: str | None = None) -> Receipt:
    if command in ("help", "board", "moves"):
        posted, why = _post_ahead(seat, message, now) if message else (None, None)
        if posted is not None:
            chat_mail.mail_others(posted, now)
        return _at(seat, Action.COMMAND, command,
                   _answer(seat, command, letter, policy, now, reason="",
                           **_talk_params(posted, why)))
    posted, why = _post_ahead(seat, message, now)
    try:  # the lifecycle's change runs in its own transaction, through the door
        said = LIFECYCLE[command](seat.match_id, seat.seat, now, via=Channel.MAIL)
    except (RulesError, PbemError) as error:
        _take_back(posted)
        answer = _answer(seat, "refused", letter, policy, now, reason=str(error))
        return _at(seat, Action.REFUSED, f"{command}: {error}", answer)
    if posted is not None:
        chat_mail.mail_others(posted, now)  # no turn mail quotes it: the others are mailed it
    done = said if isinstance(said, str) and said else _(DONE[command])
    answer = _answer(seat, "done", letter, policy, now, done=done, **_talk_params(posted, why))
    return _at(seat, Action.COMMAND, command, answer, changed=True)


def _command(line: str) -> str | None:
    word = " ".join(line.strip().strip(".!?`'\"*").strip().lower().split())
    return word if word in COMMANDS else None


def _expected_ply(seat: Seat, answers_to: Sequence[str]) -> int | None:
    """The ply of the mail this replies to (the web's expected ply); None when the reply names
    none of ours, so the move is judged against the position as it is now."""
    if not answers_to:
        return None
    # Our Message-IDs name their outbox rows (notify.message_key).
    ids = [row_id for key in list(answers_to)[:20]
           if (row_id := outbox_id(key)) is not None]
    rows = {row.id: row for row in OutboxMessage.select(OutboxMessage.id, OutboxMessage.ply)
            .where(OutboxMessage.id.in_(ids), OutboxMessage.match == seat.match_id,
                   OutboxMessage.seat == seat.seat)} if ids else {}
    for row_id in ids:
        if row_id in rows:
            return rows[row_id].ply
    return None


def _answer(seat: Seat, kind: str, letter: Letter, policy: Policy, now: datetime,
            **extra: Any) -> str | None:
    """Queue an answer to the seat's own address (never to another sender); None if the seat
    already had its share of error answers this hour."""
    if kind in ERROR_ANSWERS and _error_answers_within_hour(seat, now) >= \
            policy.error_answers_per_hour:
        return None
    match = Match.get_by_id(seat.match_id)
    # Threads under the player's reply; the seat's player told of a stranger's mail threads
    # under the match instead, since they never saw that mail. The position, the legal moves
    # and the commands are read when the answer is rendered (mailviews.py), as for every mail.
    parent = letter.message_id if kind != "foreign" else None
    if parent is not None and len(parent) > MAX_MESSAGE_ID:
        parent = None
    OutboxMessage.create(
        match=match, seat=seat.seat, ply=match.ply, to_address=seat.player.email,
        template="inbound_answer", params={"answer": kind, "parent": parent, **extra},
        status=MessageStatus.PENDING,
        next_attempt_at=now, created_at=now)
    return kind


def _error_answers_within_hour(seat: Seat, now: datetime) -> int:
    return (InboundMessage.select()
            .where(InboundMessage.match == seat.match_id, InboundMessage.seat == seat.seat,
                   InboundMessage.received_at > now - timedelta(hours=1),
                   InboundMessage.answer.in_(sorted(ERROR_ANSWERS)))
            .count())


def _at(seat: Seat, action: str, detail: str, answer: str | None = None,
        changed: bool = False) -> Receipt:
    return Receipt(action, detail, answer, seat.match_id, seat.seat, changed)


def _clip(text: str | None, limit: int) -> str | None:
    return None if text is None else text[:limit]
