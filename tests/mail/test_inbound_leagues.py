"""A league's and a ladder's mail answered by reply: `join`, `leave`, `challenge <name>` and
`standings` (commands stay English) through `POST /inbound/mime` and the pipe, each answered by
a mail in the player's language; a bad command gets the list of commands and changes nothing;
the reply address is the player's own for that league or ladder and cannot be forged."""

from __future__ import annotations

from email.message import EmailMessage

from pbem.core.accounts.models import Player
from pbem.core.leagues import ladders, seasons
from pbem.core.leagues import mail as league_mail
from pbem.core.leagues.models import LadderChallenge, LeagueMember
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.conftest import INBOUND_SECRET
from tests.mail.inbound_support import as_sent, latest, reply

NAMES = ("ann@example.org", "ben@example.org", "cid@example.org", "dee@example.org")


def _ladder() -> tuple[int, list[Player]]:
    players = [Player.for_email(address, START) for address in NAMES]
    ladder = ladders.create_ladder(players[0], {"name": "Nim ladder", "game": "nim",
                                                "clock": "2d", "on_timeout": "forfeit"}, START)
    for player in players[:3]:
        ladders.join(ladder.id, player, START)
    # A mail of the ladder to each: the one they will answer.
    for place, player in enumerate(players, start=1):
        league_mail.queue_on_hold(ladder, player, place, START)
    return ladder.id, players


def _league() -> tuple[int, list[Player]]:
    players = [Player.for_email(address, START) for address in NAMES]
    league = seasons.create_league(players[0], {
        "name": "Nim league", "game": "nim", "clock": "2d", "on_timeout": "forfeit",
        "division_size": 4, "promote": 1, "relegate": 1, "season_days": 30}, START)
    for player in players[:2]:
        seasons.join(league.id, player, START)
    league_mail.queue_season_started(league, 1, 1, players, 3, START)  # the mail to answer
    return league.id, players


def _mail(settings, address: str) -> EmailMessage:  # type: ignore[no-untyped-def]
    return as_sent(settings, latest(address, template=None))


def _answer(settings, address: str) -> str:  # type: ignore[no-untyped-def]
    row = latest(address, "league_answer")
    return str(as_sent(settings, row).get_body(("plain",)).get_content())


def _post(client, raw: bytes) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/inbound/mime", data=raw,
                           headers={"Authorization": f"Bearer {INBOUND_SECRET}"})
    assert response.status_code < 300, response.get_data(as_text=True)


def test_a_ladder_mail_answered_by_http_joins_challenges_shows_and_leaves(
        mail_settings, inbound_client) -> None:
    ladder_id, players = _ladder()
    mail = _mail(mail_settings, NAMES[3])
    assert mail["Reply-To"].startswith("play.ladder-")
    assert '"challenge <name>"' in mail.get_body(("plain",)).get_content()
    _post(inbound_client, reply(mail, "join"))
    assert "in place 4" in _answer(mail_settings, NAMES[3])
    assert ladders.places(ladders.get_ladder(ladder_id)).places[-1] == players[3].id
    _post(inbound_client, reply(_mail(mail_settings, NAMES[3]),
                                f"Challenge {players[1].public_name}"))
    made = LadderChallenge.get()
    assert (made.challenger_id, made.defender_id) == (players[3].id, players[1].id)
    assert "You challenged" in _answer(mail_settings, NAMES[3])
    _post(inbound_client, reply(_mail(mail_settings, NAMES[0]), "standings"))
    shown = _answer(mail_settings, NAMES[0])
    assert f"4. {players[3].public_name}" in shown
    _post(inbound_client, reply(_mail(mail_settings, NAMES[3]), "leave"))
    assert players[3].id not in ladders.places(ladders.get_ladder(ladder_id)).places


def test_a_bad_command_or_a_refusal_is_answered_and_changes_nothing(mail_settings,
                                                                    inbound_client) -> None:
    ladder_id, _players = _ladder()
    before = ladders.places(ladders.get_ladder(ladder_id)).places
    _post(inbound_client, reply(_mail(mail_settings, NAMES[1]), "promote me please"))
    assert "challenge <name>" in _answer(mail_settings, NAMES[1])
    _post(inbound_client, reply(_mail(mail_settings, NAMES[0]), "challenge nobody-at-all"))
    assert "could not be done" in _answer(mail_settings, NAMES[0])
    _post(inbound_client, reply(_mail(mail_settings, NAMES[0]), "join"))  # on it already
    assert "already" in _answer(mail_settings, NAMES[0])
    assert InboundMessage.select().where(InboundMessage.action == "refused").count() == 3
    assert ladders.places(ladders.get_ladder(ladder_id)).places == before
    assert LadderChallenge.select().count() == 0


def test_a_league_mail_answered_by_the_pipe_joins_shows_and_leaves(mail_settings,
                                                                    pipe) -> None:
    _league_id, players = _league()
    mail = _mail(mail_settings, NAMES[0])
    assert mail["Reply-To"].startswith("play.league-")
    assert pipe(reply(mail, "standings")) == 0
    assert "No season has started yet." in _answer(mail_settings, NAMES[0])
    assert pipe(reply(mail, "leave")) == 0
    assert "You left" in _answer(mail_settings, NAMES[0])
    assert pipe(reply(mail, "join")) == 0
    assert "the next season seats you" in _answer(mail_settings, NAMES[0])
    assert LeagueMember.get(LeagueMember.player == players[0].id).left_at is None
    assert pipe(reply(mail, "challenge ben")) == 0  # no challenges in a league
    assert '"join", "leave" or "standings"' in _answer(mail_settings, NAMES[0])


def test_the_answer_is_in_the_players_language(mail_settings, inbound_client) -> None:
    _ladder()
    Player.update(language="de").where(Player.email == NAMES[3]).execute()
    _post(inbound_client, reply(_mail(mail_settings, NAMES[3]), "join"))
    assert "Platz 4" in _answer(mail_settings, NAMES[3])


def test_a_key_for_another_player_or_a_stranger_is_refused(mail_settings) -> None:
    ladder_id, players = _ladder()
    mail = _mail(mail_settings, NAMES[3])
    forged = mail["Reply-To"].replace(f"-{players[3].id}-", f"-{players[2].id}-")
    done = handle(reply(mail, "leave", headers={"To": forged}), mail_settings, "pipe", START)
    assert done.action == "unknown_key"
    stranger = handle(reply(mail, "join", sender="eve@example.org"), mail_settings, "pipe",
                      START)
    assert stranger.action == "foreign_sender"
    assert players[3].id not in ladders.places(ladders.get_ladder(ladder_id)).places
    assert OutboxMessage.select().where(OutboxMessage.template == "league_answer").count() == 0


def test_a_players_mails_of_one_ladder_share_one_thread(mail_settings, inbound_client) -> None:
    ladder_id, players = _ladder()
    first = _mail(mail_settings, NAMES[1])
    ladder = ladders.get_ladder(ladder_id)
    league_mail.queue_challenge(ladder, players[2], players[1], 2, START)
    second = _mail(mail_settings, NAMES[1])
    assert first["Subject"] == second["Subject"] == "Nim ladder"
    assert "challenges you for place 2" in second.get_body(("plain",)).get_content()
    root = first["References"].split()[0]
    assert second["References"].split()[0] == root == first["In-Reply-To"]
    assert first["Message-ID"] != second["Message-ID"]
    assert _mail(mail_settings, NAMES[2])["References"].split()[0] != root  # another's own
    asked = reply(second, "standings")
    _post(inbound_client, asked)
    answer = as_sent(mail_settings, latest(NAMES[1], "league_answer"))
    assert answer["Subject"] == "Nim ladder"
    sent_id = asked.split(b"Message-ID: ")[1].split(b"\n")[0].decode().strip()
    assert answer["References"].split() == [root, sent_id] and answer["In-Reply-To"] == sent_id


def test_refusals_are_answered_at_most_error_answers_per_hour(mail_settings) -> None:
    _ladder()
    mail = _mail(mail_settings, NAMES[1])
    for _ in range(mail_settings.inbound_error_answers_per_hour + 2):
        assert handle(reply(mail, "dance"), mail_settings, "pipe", START).action == "refused"
    answers = OutboxMessage.select().where(OutboxMessage.template == "league_answer").count()
    assert answers == mail_settings.inbound_error_answers_per_hour


def test_each_command_works_through_the_other_way_in_too(mail_settings, pipe,
                                                          inbound_client) -> None:
    # The ladder by the pipe, the league by HTTP (the tests above take the other ways).
    ladder_id, players = _ladder()
    ladder_mail = _mail(mail_settings, NAMES[2])
    assert pipe(reply(ladder_mail, "standings")) == 0
    assert f"3. {players[2].public_name}" in _answer(mail_settings, NAMES[2])
    assert pipe(reply(ladder_mail, f"challenge {players[0].public_name}")) == 0
    assert LadderChallenge.get().defender_id == players[0].id
    assert pipe(reply(ladder_mail, "leave")) == 0
    assert pipe(reply(ladder_mail, "join")) == 0
    assert ladders.places(ladders.get_ladder(ladder_id)).places[-1] == players[2].id
    league = seasons.create_league(players[0], {
        "name": "Eximo league", "game": "nim", "clock": "2d", "on_timeout": "forfeit",
        "division_size": 4, "promote": 1, "relegate": 1, "season_days": 30}, START)
    league_mail.queue_season_started(league, 1, 1, players, 3, START)
    league_reply = _mail(mail_settings, NAMES[3])
    for command in ("join", "standings", "leave"):
        _post(inbound_client, reply(league_reply, command))
    assert LeagueMember.get(LeagueMember.player == players[3].id).left_at is not None
    assert "You left Eximo league." in _answer(mail_settings, NAMES[3])
