"""The door's settlers, in the order they run: what every change to a match sets going.

The door (`core/matches/changes.py`, "Settlers") hands each change, once written, to these
functions in this order and in the change's own transaction. They live in the packages above
`matches`, which the door does not import: this list, above every package like the games'
registry, is the one place that names them, and the adapters (the web app, the worker, the
command line, the tests) `install()` it when they start. A new consequence of a change (a
league table, a feed, a push) is one more line here.
"""

from __future__ import annotations

from pbem.core.leagues import replies as league_replies
from pbem.core.leagues import results as leagues
from pbem.core.mailin import replies
from pbem.core.mailout import settler as mail
from pbem.core.matches import changes, computer_turns, creation
from pbem.core.presence import seen
from pbem.core.ratings import settle as ratings
from pbem.core.records import standings
from pbem.core.takebacks import changes as takebacks

SETTLERS: tuple[changes.Settler, ...] = (
    standings.settle_standings,  # each seat's win, loss or draw; the players' tallies
    ratings.settle_ended,  # a rated result moves ratings, once
    leagues.settle_leagues,  # a league's standings or a ladder's places, derived again
    creation.thin_when_ended,  # an ended match keeps one position in fifty
    mail.settle_mail,  # what the change told, as outbox rows (after the clocks are settled)
    computer_turns.settle_computer_turns,  # a computer seat to move gets its job queued
)


def install(notify_away_seconds: int = 300) -> None:
    """Hand every change from now on to SETTLERS (cheap, and the same however often called);
    a turn mail waits while its player has looked within `notify_away_seconds`."""
    seen.set_away(notify_away_seconds)
    changes.install_settlers(SETTLERS, turn_mail_failed=mail.turn_mail_failed)
    replies.install_commands(takebacks.MAIL_COMMANDS)  # reply commands from above mail-in
    replies.install_key_handler(league_replies.receive_key)  # a league's or ladder's replies
