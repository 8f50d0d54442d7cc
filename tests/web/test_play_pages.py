"""A whole match played on the web pages, every email delivered over real SMTP and checked."""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts.models import Player
from pbem.core.conversation.personal import save_notes
from pbem.core.mailout.chat import post_and_mail
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Move, Seat
from tests.conftest import BACKENDS, START, SMTPRecorder
from tests.core.db.test_pipeline import waits

ALICE, BOB = "alice@example.org", "bob@example.org"
LINK = re.compile(r"http://pbem\.test(/play/[A-Za-z0-9_-]+)")


def link_in(mail) -> str:
    return LINK.search(mail.get_body(("plain",)).get_content()).group(1)


def test_two_players_play_a_match_to_the_end_from_their_emails(
        settings, client, worker, smtp: SMTPRecorder) -> None:
    create_match("nim", [ALICE, BOB], {"pile": "5"}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    alice_link, bob_link = link_in(smtp.to(ALICE)[0]), link_in(smtp.to(BOB)[0])
    assert alice_link != bob_link

    page = client.get(alice_link)
    assert page.status_code == 200 and b"Your turn." in page.data
    assert b'<option value="take 3">take 3</option>' in page.data
    assert page.headers["Cache-Control"] == "no-store"
    assert client.get(bob_link).data.count(b"Your turn.") == 0

    # Alice picks from the list; Bob types his move, in his own style.
    reply = client.post(alice_link, data={"move": "take 2", "ply": "0"})
    assert reply.status_code == 303 and reply.headers["Location"].endswith(alice_link)
    assert b"Your move take 2 was made." in client.get(alice_link).data
    worker.send_outbox()
    bob_turn = smtp.to(BOB)[-1]
    assert "First took 2, 3 left" in bob_turn.get_body(("plain",)).get_content()
    assert link_in(bob_turn) == bob_link

    assert client.post(bob_link, data={"move": "", "move_text": " TAKE 1 ", "ply": "1"}
                       ).status_code == 303
    client.post(alice_link, data={"move": "take 2", "ply": "2"})
    worker.send_outbox()

    match = Match.get()
    assert match.status == "finished" and match.result["winners"] == [0]
    assert [m.text for m in Move.select().order_by(Move.ply)] == ["take 2", "take 1", "take 2"]
    for address, verdict in ((ALICE, "Well played!"), (BOB, "Thank you for playing.")):
        result = smtp.to(address)[-1]
        body = result.get_body(("plain",)).get_content()
        assert "First (alice) wins" in body and verdict in body
    assert b"Match over." in client.get(bob_link).data
    assert len(smtp.messages) == 2 + 3 + 2  # welcomes, turns (A, B, A), results


def test_a_refused_move_is_explained_on_the_page_and_changes_nothing(settings, client) -> None:
    token = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens[0]
    page = client.post(f"/play/{token}", data={"move_text": "take 7", "ply": "0"})
    assert page.status_code == 422
    assert b"you cannot take 7: take 1 to 3" in page.data
    assert b'value="take 7"' in page.data, "the typed move is kept for correction"
    assert client.post(f"/play/{token}", data={"move": "take 1"}).status_code == 400
    assert client.post(f"/play/{token}", data={"ply": "0"}).status_code == 422
    assert Match.get().ply == 0


def test_a_stale_form_gets_a_conflict_page(settings, client) -> None:
    token = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens[0]
    assert client.post(f"/play/{token}", data={"move": "take 1", "ply": "0"}).status_code == 303
    again = client.post(f"/play/{token}", data={"move": "take 1", "ply": "0"})
    assert again.status_code == 409 and b"already moved" in again.data
    assert Match.get().ply == 1


def test_a_wrong_or_revoked_token_gets_a_plain_404(settings, client) -> None:
    from pbem.core.matches.models import Seat
    from pbem.core.matches.seat_links import reissue

    token = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens[0]
    assert client.get("/play/not-a-real-token").status_code == 404
    assert client.get("/play/" + "x" * 500).status_code == 404
    assert client.post("/play/not-a-real-token", data={"move": "take 1", "ply": "0"}
                       ).status_code == 404
    new_token = reissue(settings.secret_key, Seat.get(Seat.seat == 0))
    gone = client.get(f"/play/{token}")
    assert gone.status_code == 404 and b"not valid" in gone.data
    assert client.get(f"/play/{new_token}").status_code == 200


def test_get_never_changes_a_match(settings, client) -> None:
    token = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens[0]
    client.get(f"/play/{token}?move=take+1&ply=0")
    assert Match.get().ply == 0


def test_a_typed_move_wins_over_the_list_when_both_are_filled(settings, client) -> None:
    token, other = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens
    pile = Match.get().state["pile"]
    refused = client.post(f"/play/{token}", data={"move": "take 2", "move_text": "take 9",
                                                  "ply": "0"})
    # The typed move is the one judged (and kept for correction); the list's pick is not made.
    assert refused.status_code == 422 and b'value="take 9"' in refused.data
    assert b"take 9" in refused.data and Match.get().ply == 0
    typed = client.post(f"/play/{token}", data={"move": "take 2", "move_text": " take 1 ",
                                                "ply": "0"})
    assert typed.status_code == 303 and Match.get().state["pile"] == pile - 1
    # A blank text box leaves the list's pick in charge.
    client.post(f"/play/{other}", data={"move": "take 2", "move_text": "  ", "ply": "1"})
    assert Match.get().state["pile"] == pile - 3


def test_an_absurdly_long_move_is_refused_without_echoing_it(settings, client) -> None:
    token = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens[0]
    page = client.post(f"/play/{token}", data={"move_text": "x" * 5000, "ply": "0"})
    assert page.status_code == 400 and b"5000 characters long" in page.data
    assert b"x" * 300 not in page.data


def test_the_clocks_show_a_deadline_in_the_readers_own_zone_too(settings, client) -> None:
    # The page says "Deadlines are shown in Europe/Paris and UTC": the clocks list must too,
    # for the opponent's deadline as well as the reader's own.
    tokens = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).tokens
    Player.update(timezone="Europe/Paris").where(Player.email == BOB).execute()
    page = client.get(f"/play/{tokens[1]}").data.decode()
    assert "Deadlines are shown in Europe/Paris and UTC" in page
    clocks = re.search(r'<ul class="clocks">(.*?)</ul>', page, re.S).group(1)
    assert "UTC</time> = Thu 08 Jan 2026, 13:00 (Europe/Paris)" in clocks, clocks


def test_the_time_zone_hint_asks_to_sign_in_only_when_the_reader_is_not_the_seat(
        client, worker, smtp, settings) -> None:
    from tests.support.players import sign_in

    token = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, START).tokens[0]
    hint = "(sign in with this seat's address, ann@example.org, first)"
    assert hint in client.get(f"/play/{token}").get_data(as_text=True)
    sign_in(client, "ben@example.org", worker, smtp)  # someone else: still asked
    assert hint in client.get(f"/play/{token}").get_data(as_text=True)
    signed_in_as_seat = client.application.test_client()
    sign_in(signed_in_as_seat, "ann@example.org", worker, smtp)
    page = signed_in_as_seat.get(f"/play/{token}").get_data(as_text=True)
    assert "Change the time zone in your settings</a>." in page and hint not in page


@pytest.mark.parametrize("db_url", [name for name in BACKENDS if name == "postgres"],
                         indirect=True)
def test_a_play_page_waits_for_postgresql_twice(settings, client) -> None:
    """The seat with its table, then the page's four reads that need only the seat (notes
    and tree, ratings, tournament, chat), sent ahead together: two round trips, where each
    read waited for its own before. The page still shows what each read found."""
    created = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)
    seat = Seat.get(Seat.match == created.match.id, Seat.seat == 0)
    post_and_mail(seat, "Good luck, Bob", START)
    save_notes(seat, "take 2 first", START)
    link = f"/play/{created.tokens[0]}"
    assert client.get(link).status_code == 200  # the first visit writes when it was seen
    with waits() as seen:
        page = client.get(link)
    assert seen == ["SELECT", "SELECT+SELECT+SELECT+SELECT"], seen
    assert b"Good luck, Bob" in page.data and b"take 2 first" in page.data
    older = client.get(f"{link}?before=1")  # another chat page: not the read sent ahead
    assert older.status_code == 200 and b"Good luck, Bob" not in older.data
