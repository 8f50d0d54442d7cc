"""A whole match of every real game, played only by replying to pbem's mail.

Each seat replies to its latest "your turn" mail (to its Reply-To, threaded under it, quoting
it) with a move chosen at random (seeded) from its legal moves, until the match ends.
Simultaneous decisions, hidden hands and 3 seats are all met on the way. The mails are not
rendered here, only their headers made (other tests check the rendered mail), so that
hundreds of replies stay fast.
"""

from __future__ import annotations

import random
from datetime import timedelta
from email.message import EmailMessage

import pytest

from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.contexts import RenderCache, context_for
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import message_key
from pbem.core.matches.models import Match, MatchStatus, Move
from pbem.games import GAMES, REGISTRY
from pbem.mail.addresses import reply_address_for
from pbem.mail.inbound import handle
from tests.conftest import ON_SQLITE, START
from tests.mail.inbound_support import as_sent, latest, reply, start

# Seeds that make short matches (so the suite stays fast), from each game's fixtures.
SEEDS = {game.slug: game.fixtures.short_seed for game in GAMES}
MAX_REPLIES = 1500


# Every game's words by mail, on SQLite: the pipeline's races and faults are tested on every
# database elsewhere (test_restarts, test_stop_records, test_poison).
@ON_SQLITE
@pytest.mark.parametrize("game", sorted(SEEDS))
def test_a_whole_match_is_played_by_email_replies(game: str, mail_settings) -> None:
    assert set(SEEDS) == {slug for slug, rules in REGISTRY.items()
                          if not slug.startswith(("nim", "bids"))}
    rules = REGISTRY[game]
    players = tuple(f"player{n}@example.org" for n in range(min(rules.player_counts)))
    seed = SEEDS[game]
    match = start(game, players, seed=seed)
    rng = random.Random(seed)
    now = START
    replies = 0
    while match.status == MatchStatus.ACTIVE:
        assert replies < MAX_REPLIES, f"{game} did not end after {replies} replies"
        for seat in list(match.to_move):
            state = rules.load(match.state)
            if seat not in rules.to_move(state):
                continue
            moves = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
            mail = _delivered(mail_settings, latest(players[seat]))
            now += timedelta(minutes=1)
            receipt = handle(reply(mail, rng.choice(moves)), mail_settings, "pipe", now)
            assert receipt.action == "moved", (game, replies, receipt)
            replies += 1
            match = Match.get_by_id(match.id)
    assert match.status == MatchStatus.FINISHED and match.result is not None
    assert Move.select().where(Move.match == match).count() == match.ply == replies
    assert InboundMessage.select().where(InboundMessage.action == "moved").count() == replies
    # The result mail, like every mail to a seat, still carries the reply address.
    assert as_sent(mail_settings, latest(players[0], "result"))["Reply-To"]


def _delivered(settings, row: OutboxMessage) -> EmailMessage:
    """The headers a reply needs from the mail pbem sent, and its text to quote."""
    mail = EmailMessage()
    mail["From"] = settings.mail_from
    mail["To"] = row.to_address
    context = context_for(row, RenderCache())
    mail["Subject"] = f"{context['title']}, match #{row.match_id}"
    mail["Message-ID"] = f"<{message_key(row, row.match)}@{settings.mail_domain}>"
    mail["Reply-To"] = reply_address_for(settings, row.match_id, row.seat)
    mail.set_content(context["board_text"])
    return mail
