"""Players' own data: addresses (validated, and whether mail reaches them), display names
(and finding a player by one), time zones, the board's confirmation step.

What a player sees of their matches (`records/home.py`) and the mails about their account
(`mailout/accounts.py`: sign-in links, seat links, the suppression list) build on this."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import available_timezones

import peewee

from pbem.core.accounts.models import FormerName, Player
from pbem.core.db.connection import write_transaction
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.i18n import LANGUAGES, _

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


TAKEBACK_CHOICES = ("never", "casual", "always")


def set_takebacks(player: Player, choice: str) -> None:
    """The player's takeback preference (`TAKEBACK_CHOICES`; core/takebacks reads it)."""
    if choice not in TAKEBACK_CHOICES:
        raise UnprocessableError(_("%(choice)r is not a takeback choice (never, casual, "
                                   "always).", choice=choice[:16]))
    Player.update(takebacks=choice).where(Player.id == player.id).execute()
    player.takebacks = choice


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


def set_text_mode(player_id: int, on: bool) -> None:
    """Text mode, as a seat's play page sets it (like `set_submit_without_confirm`)."""
    Player.update(text_mode=on).where(Player.id == player_id).execute()


def mark_undeliverable(address: str, reason: str, now: datetime) -> None:
    """The mail server refused `address` for good (a 5xx): opponents and admins see it."""
    Player.update(undeliverable_at=now, undeliverable_reason=reason[:200]).where(
        Player.email == address, Player.undeliverable_at.is_null()).execute()


def clear_undeliverable(player_id: int) -> None:
    """The player proved the address works (they signed in from a mailed link)."""
    Player.update(undeliverable_at=None, undeliverable_reason=None).where(
        Player.id == player_id).execute()


def find_player(name: str) -> Player | None:
    """By display name (exactly, else ignoring case when that names one player); a player
    without one goes by their address's local part, when only one such player has it."""
    name = name.strip()
    if not name or len(name) > 64 or "@" in name or not name.isprintable():
        return None
    # Databases differ on case (MariaDB's collation ignores it): compare in Python.
    named = [p for p in Player.select().where(Player.name == name).limit(5) if p.name == name]
    if named:
        return named[0]
    folded = list(Player.select().where(peewee.fn.LOWER(Player.name) == name.lower()).limit(2))
    if len(folded) == 1:
        return folded[0]
    # Addresses are stored in lower case, so the local part is found in any case too.
    local = name.lower()
    candidates = Player.select().where(Player.name.is_null(),
                                       Player.email.startswith(local + "@")).limit(20)
    # LIKE treats _ and % as wildcards and may ignore case: keep exact local parts only.
    unnamed = [p for p in candidates if p.email.split("@", 1)[0] == local]
    return unnamed[0] if len(unnamed) == 1 else None
