"""Players' own data: addresses (validated), display names, time zones, the board's
confirmation step, the suppression list, the home page's summary, and getting a lost seat
link back."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import available_timezones

import peewee

from pbem.core.accounts.models import FormerName, Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.mailout import accounts as account_mail
from pbem.core.mailout.models import Suppression
from pbem.core.mailout.notify import reason_words
from pbem.core.matches.clocks import deadline_info
from pbem.core.matches.creation import rules_for
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.matches.seat_links import reissue
from pbem.errors import InvalidRequestError, NotFoundError, UnprocessableError
from pbem.i18n import LANGUAGES, N_, _

MAX_NAME = 40
_NAME = re.compile(r"[\w][\w .'-]*[\w.]", re.UNICODE)


def normalize_email(text: str) -> str:
    """A valid address in the form we store (lower case), or a clear InvalidRequestError."""
    raw = (text or "").strip()
    if not raw:
        raise InvalidRequestError(_("Enter an email address."))
    if len(raw) > 254 or "=?" in raw or any(not char.isprintable() for char in raw):
        raise InvalidRequestError(_("%(address)r is not an email address we can write to.",
                                    address=raw[:60]))
    # Imported here: only sign-in and invitations check an address, and the validator (with
    # its IDNA tables) is a good share of a web worker's memory that a play page never needs.
    from email_validator import EmailNotValidError, validate_email

    try:
        checked = validate_email(raw, check_deliverability=False, allow_smtputf8=False)
    except EmailNotValidError as error:
        local, at, domain = raw.rpartition("@")
        # Text shaped like an address (something@domain.tld) that still is not one we can
        # write to (a reserved domain, a bad character) is unprocessable (422); anything else
        # is malformed (400).
        shaped = bool(at and local and "." in domain.strip("."))
        kind = UnprocessableError if shaped else InvalidRequestError
        # The validator's reason stays in its own (English) words.
        raise kind(_("%(address)r is not a valid email address: %(reason)s",
                     address=raw[:60], reason=error)) from None
    return checked.normalized.lower()


def update_settings(player: Player, name: str, zone: str, *,
                    submit_without_confirm: bool, now: datetime) -> None:
    """Set the display name, time zone and board confirmation together: all are checked
    before any is written, so a refused form changes nothing. A name given up is kept as a
    former name, so links to the old player page still find the player."""
    name = " ".join((name or "").split())
    zone = (zone or "").strip()
    if name and (len(name) > MAX_NAME or len(name) < 2 or not _NAME.fullmatch(name)
                 or "@" in name):
        raise InvalidRequestError(_(
            "A display name has 2 to %(max)s letters, digits, spaces, dots, dashes or "
            "apostrophes (and no @: it is shown instead of your address).", max=MAX_NAME))
    if zone and (len(zone) > 64 or zone not in available_timezones()):
        raise UnprocessableError(_("%(zone)r is not a time zone name (like Europe/Paris).",
                                   zone=zone[:64]))
    taken = _("The name %(name)r is taken; choose another.", name=name)
    if name and Player.select().where(peewee.fn.LOWER(Player.name) == name.lower(),
                                      Player.id != player.id).exists():
        raise InvalidRequestError(taken)
    try:
        with write_transaction():
            if player.name and player.name != (name or None):
                FormerName.create(player=player.id, name=player.name, until=now)
            Player.update(name=name or None, timezone=zone or None,
                          submit_without_confirm=submit_without_confirm).where(
                Player.id == player.id).execute()
    except peewee.IntegrityError:
        raise InvalidRequestError(taken) from None
    player.name, player.timezone = name or None, zone or None
    player.submit_without_confirm = submit_without_confirm


def set_language(player: Player, code: str | None) -> None:
    """The language pages and mails speak to the player (a code of `pbem.i18n.LANGUAGES`);
    None: the browser's choice on pages, English in mail."""
    if code is not None and code not in LANGUAGES:
        raise UnprocessableError(_("%(code)r is not a language pbem speaks (%(known)s).",
                                   code=code[:16], known=", ".join(LANGUAGES)))
    Player.update(language=code).where(Player.id == player.id).execute()
    player.language = code


def set_submit_without_confirm(player_id: int, on: bool) -> None:
    """The board's confirmation alone, as a seat's play page sets it: the link holder acts
    for the seat's player, but only on this choice, never their name or address."""
    Player.update(submit_without_confirm=on).where(Player.id == player_id).execute()


def suppress(email: str, now: datetime) -> None:
    """Never send this address an invitation again (idempotent)."""
    Suppression.insert(email=email, created_at=now).on_conflict_ignore().execute()


def is_suppressed(email: str) -> bool:
    return Suppression.select().where(Suppression.email == email).exists()


def seats_of(player: Player) -> list[Seat]:
    return _SEATS_OF.rows(player.id)


def my_matches_ahead(player: Player) -> list[ReadAhead]:
    """`my_matches`'s two reads, to send ahead (`pipeline.read_ahead`) with a page's others."""
    return [_SEATS_OF.ahead(player.id), _TABLES_OF.ahead(player.id)]


def tables_of(player: Player) -> dict[int, list[Seat]]:
    """The seats (with their players) of every match the player sits in, by match, in seat
    order: one read, where reading each match's seats took one round trip a match."""
    tables: dict[int, list[Seat]] = {}
    for seat in _TABLES_OF.rows(player.id):
        tables.setdefault(seat.match_id, []).append(seat)
    return tables


# The player's home page (/me) reads both on every visit: compiled once, where peewee building
# the first, a SELECT of every seat and match column, was a quarter of the page's CPU.
_SEATS_OF = Prepared(lambda player_id: Seat.select(Seat, Match).join(Match)
                     .where(Seat.player == player_id).order_by(Match.updated_at.desc()))
_TABLES_OF = Prepared(lambda player_id: Seat.select(Seat, Player).join(Player)
                      .where(Seat.match.in_(Seat.select(Seat.match)
                                            .where(Seat.player == player_id)))
                      .order_by(Seat.match, Seat.seat))


def my_matches(player: Player, now: datetime) -> list[dict[str, Any]]:
    """Every match of the player: their turn first (soonest deadline first), then those
    waiting for others, then finished ones. `seat` is the row, for deriving the link."""
    rows: list[tuple[tuple[int, str, float], dict[str, Any]]] = []
    tables = tables_of(player)
    for seat in seats_of(player):
        match: Match = seat.match
        rules = rules_for(match)
        your_turn = match.is_live and seat.seat in (match.to_move or [])
        seats = tables.get(match.id, [])
        others = [other.player.public_name for other in seats if other.seat != seat.seat]
        # Who the match waits for, named as the opponents are ("waiting for Ben").
        waiting = [other.player.public_name for other in seats
                   if match.is_live and other.seat != seat.seat
                   and other.seat in (match.to_move or [])]
        order = (0 if your_turn else 1 if match.is_live else 2,
                 seat.deadline.isoformat() if your_turn and seat.deadline else "",
                 -(match.finished_at or match.updated_at).timestamp())
        rows.append((order, {
            "id": match.id, "game": match.game, "title": rules.title, "status": match.status,
            "your_turn": your_turn, "seat": seat, "opponents": others, "waiting_for": waiting,
            "deadline": deadline_info(seat.deadline, match.time_control, player.timezone, now)
            if your_turn else None,
            "result": _result_for(match, seat.seat),
            "finished": match.status != MatchStatus.ACTIVE,
        }))
    rows.sort(key=lambda row: row[0])
    return [row for _, row in rows]


def _result_for(match: Match, seat: int) -> str | None:
    """The home page's words for how the match ended for `seat`, in the reader's language (the
    stored reason said again the reader's way: `notify.reason_words`)."""
    if not match.result:
        return _("aborted") if match.status == MatchStatus.ABORTED else None
    winners = match.result.get("winners", [])
    reason = match.result.get("reason", "")
    if seat in winners:
        kind = "won" if len(winners) == 1 else "shared"
    else:
        kind = "lost" if winners else "none"
    if reason:
        rules = rules_for(match)
        said = reason_words(rules, rules.load(match.state), reason,
                            len(match.result.get("scores", ())))
        return _(_VERDICTS_WHY[kind], reason=said)
    return _(_VERDICTS[kind])


_VERDICTS = {"won": N_("You won"), "shared": N_("Shared result"), "lost": N_("You lost"),
             "none": N_("No winner")}
_VERDICTS_WHY = {"won": N_("You won: %(reason)s"), "shared": N_("Shared result: %(reason)s"),
                 "lost": N_("You lost: %(reason)s"), "none": N_("No winner: %(reason)s")}


def check_own_seat(match_id: int, seat_number: int, player: Player) -> None:
    """NotFoundError unless the seat is the player's own (before asking to replace its link)."""
    if not Seat.select().where(Seat.match == match_id, Seat.seat == seat_number,
                               Seat.player == player).exists():
        raise NotFoundError(_("Match %(match)s has no seat %(seat)s of yours.", match=match_id,
                              seat=seat_number))


def reissue_seat_link(secret_key: str, match_id: int, seat_number: int, now: datetime,
                      player: Player | None = None) -> Seat:
    """Revoke a seat's link and email the new one to its player. With `player`, only that
    player's own seat may be re-issued (the /me button); without, any (the operator)."""
    with write_transaction():
        seat = (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id, Seat.seat == seat_number).first())
        if seat is None or (player is not None and seat.player_id != player.id):
            raise NotFoundError(_("Match %(match)s has no seat %(seat)s of yours.",
                                  match=match_id, seat=seat_number)
                                if player is not None else
                                _("Match %(match)s has no seat %(seat)s.", match=match_id,
                                  seat=seat_number))
        reissue(secret_key, seat)
        rules = rules_for(seat.match)
        account_mail.queue(seat.player.email, "seat_link", {
            "match": match_id, "game": seat.match.game, "title": rules.title,
            "seat": seat_number,
        }, now, match=match_id, seat=seat_number)
    return seat
