"""The salts before a Mimic Taking match's first deal, by mail: every seat's first mails say
nothing is dealt yet, what a salt is, and that the salt given will do; a reply `salt <text>`
adds one, `salt` alone takes the given one, and a card played too early is refused with the
reason and changes nothing."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.matches.models import Match
from pbem.games import get_rules
from pbem.games.dealing import default_salt
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import as_sent, latest, reply, start

PLAYERS = ("ann@example.org", "ben@example.org", "cy@example.org")
RULES = get_rules("mimic-taking")
LATER = START + timedelta(minutes=5)


def _texts(mail) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    return (mail.get_body(("plain",)).get_content(), mail.get_body(("html",)).get_content())


def test_the_first_mails_explain_the_salt_and_replies_add_it(mail_settings) -> None:
    match = start("mimic-taking", PLAYERS)
    offered = [default_salt(match.deal_seed, seat) for seat in range(3)]
    for seat, address in enumerate(PLAYERS):
        for template in ("welcome", "your_turn"):
            plain, html = _texts(as_sent(mail_settings, latest(address, template)))
            for text in (plain, html):
                assert "Nothing is dealt yet" in text, (template, seat)
                assert "A salt is any text you like" in text, (template, seat)
                assert offered[seat] in text, "its own given salt"
                assert offered[(seat + 1) % 3] not in text, "never another seat's"
            assert "'salt' alone" in plain and plain.count("Nothing is dealt yet") == 1
        assert "Your legal moves: salt" in _texts(as_sent(mail_settings,
                                                          latest(address)))[0]

    early = handle(reply(as_sent(mail_settings, latest(PLAYERS[0])), "O1"), mail_settings,
                   "pipe", LATER)
    assert early.action == "refused" and "nothing is dealt yet" in early.detail
    assert Match.get_by_id(match.id).ply == 0

    own = handle(reply(as_sent(mail_settings, latest(PLAYERS[0])), "salt rainy tuesday 42"),
                 mail_settings, "pipe", LATER)
    assert (own.action, own.detail) == ("moved", "salt rainy tuesday 42")
    given = handle(reply(as_sent(mail_settings, latest(PLAYERS[1])), "Salt"), mail_settings,
                   "pipe", LATER)
    assert (given.action, given.detail) == ("moved", "salt")
    assert RULES.load(Match.get_by_id(match.id).state).salts == (
        "rainy tuesday 42", offered[1], None)
    last = handle(reply(as_sent(mail_settings, latest(PLAYERS[2])), "salt ☂ / 7"),
                  mail_settings, "pipe", LATER)
    assert last.action == "moved"
    state = RULES.load(Match.get_by_id(match.id).state)
    assert not state.salting and all(len(hand) == 12 for hand in state.hands)
    leader = Match.get_by_id(match.id).to_move[0]
    plain, _html = _texts(as_sent(mail_settings, latest(PLAYERS[leader])))
    assert "Nothing is dealt yet" not in plain and "Your hand" in plain
