"""The computer players: one player row per level, named "Computer (level N)".

A seat the computer holds from the start points at one of these rows, so every page, mail,
record and API answer that names a seat's player names it "Computer (level N)" with no
special case. No person can take the name (a display name has no brackets), the address is
under the reserved `.invalid` domain (nothing can be sent to it, and the address check refuses
it, so nobody can sign in as it or invite it), it is kept out of the archive's player search,
and the mail layer never queues mail for it.
"""

from __future__ import annotations

from datetime import datetime

from pbem.bots import LEVELS
from pbem.core.accounts.models import Player

COMPUTER_DOMAIN = "computer.invalid"


def computer_name(level: int) -> str:
    return f"Computer (level {level})"


def computer_player(level: int, now: datetime) -> Player:
    """The computer player of `level`, made on first use (two requests making it at once:
    the second insert is ignored and both read the one row)."""
    if level not in LEVELS:
        raise ValueError(f"there is no computer level {level!r} (1 to {len(LEVELS)})")
    (Player.insert(email=f"computer-{level}@{COMPUTER_DOMAIN}", name=computer_name(level),
                   created_at=now, hidden_from_archive=True, mail_pref="off",
                   computer_level=level)
     .on_conflict_ignore().execute())
    player: Player = Player.get(Player.computer_level == level)
    return player
