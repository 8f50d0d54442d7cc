"""The players' chat and a seat's notes on the play page (no script) and in the API."""

from __future__ import annotations

from pbem.core.conversation.models import ChatMessage, SeatNote
from pbem.core.matches.creation import create_match
from tests.conftest import START

ALICE, BOB = "alice@example.org", "bob@example.org"
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _match(settings):
    return create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)


def test_a_message_posted_on_the_page_shows_to_both_seats_escaped(settings, client) -> None:
    tokens = _match(settings).tokens
    reply = client.post(f"/play/{tokens[0]}/chat", data={"text": f"Hello Bob\n{XSS}"})
    assert reply.status_code == 303 and reply.headers["Location"].endswith("#chat")
    for token in tokens:
        page = client.get(f"/play/{token}").data.decode()
        assert "Hello Bob" in page and "Talk at the board" in page
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    assert ChatMessage.get().text == f"Hello Bob\n{XSS}"


def test_a_too_long_message_is_refused_and_nothing_is_stored(settings, client) -> None:
    token = _match(settings).tokens[0]
    reply = client.post(f"/play/{token}/chat", data={"text": "x" * 1001})
    assert reply.status_code == 422
    assert "the limit is 1000" in reply.data.decode()
    assert ChatMessage.select().count() == 0
    assert client.post(f"/play/{token}/chat", data={"text": "  \n "}).status_code == 422


def test_notes_are_the_seats_own(settings, client) -> None:
    tokens = _match(settings).tokens
    assert client.post(f"/play/{tokens[0]}/notes",
                       data={"notes": f"plan: take 2 {XSS}"}).status_code == 303
    mine = client.get(f"/play/{tokens[0]}").data.decode()
    assert "plan: take 2" in mine and "<script>alert" not in mine
    theirs = client.get(f"/play/{tokens[1]}").data.decode()
    assert "plan: take 2" not in theirs
    assert SeatNote.select().count() == 1


def test_the_chat_api_pages_newest_first_and_limits_the_rate(settings, client) -> None:
    tokens = _match(settings).tokens
    for number in range(8):
        reply = client.post(f"/api/play/{tokens[number % 2]}/chat", json={"text": f"m{number}"})
        assert reply.status_code == 201, reply.data
    page = client.get(f"/api/play/{tokens[1]}/chat?limit=3").get_json()
    assert [m["text"] for m in page["messages"]] == ["m7", "m6", "m5"]
    rest = client.get(page["next"]).get_json()
    assert [m["text"] for m in rest["messages"]] == ["m4", "m3", "m2"]
    last = client.get(rest["next"]).get_json()
    assert [m["text"] for m in last["messages"]] == ["m1", "m0"] and last["next"] is None
    # Alice wrote four; four more in the same minute and the fifth is refused.
    for number in range(4):
        assert client.post(f"/api/play/{tokens[0]}/chat",
                           json={"text": f"a{number}"}).status_code == 201
    refused = client.post(f"/api/play/{tokens[0]}/chat", json={"text": "one too many"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert refused.mimetype == "application/problem+json"
    assert ChatMessage.select().where(ChatMessage.text == "one too many").count() == 0


def test_notes_api_reads_and_replaces(settings, client) -> None:
    tokens = _match(settings).tokens
    assert client.get(f"/api/play/{tokens[0]}/notes").get_json() == {"text": ""}
    assert client.put(f"/api/play/{tokens[0]}/notes",
                      json={"text": "watch the pile"}).get_json() == {"text": "watch the pile"}
    assert client.get(f"/api/play/{tokens[0]}/notes").get_json() == {"text": "watch the pile"}
    assert client.get(f"/api/play/{tokens[1]}/notes").get_json() == {"text": ""}
    assert client.put(f"/api/play/{tokens[0]}/notes", json={"text": 3}).status_code == 400
    assert client.put(f"/api/play/{tokens[0]}/notes",
                      json={"text": "y" * 20_001}).status_code == 422
    assert client.get(f"/api/play/{tokens[0]}/notes").get_json() == {"text": "watch the pile"}


def test_a_seats_own_download_keeps_its_notes_and_no_one_elses(settings, client) -> None:
    match = _match(settings)
    tokens = match.tokens
    client.post(f"/play/{tokens[0]}/notes", data={"notes": "alice's plan"})
    client.post(f"/play/{tokens[1]}/notes", data={"notes": "bob's plan"})
    client.post(f"/play/{tokens[1]}/chat", data={"text": "hi there"})
    own = client.get(f"/play/{tokens[0]}/record.json")
    assert own.status_code == 200 and own.headers["Cache-Control"] == "no-store"
    data = own.get_json()
    assert data["for_seat"]["notes"] == "alice's plan"
    assert [m["text"] for m in data["for_seat"]["chat"]] == ["hi there"]
    assert "bob's plan" not in own.data.decode()
    assert client.get(f"/play/{tokens[1]}/record.json").get_json()["for_seat"]["notes"] == \
        "bob's plan"
    public = client.get(f"/matches/{match.match.id}/record.json").data.decode()
    assert "plan" not in public and "hi there" not in public and "for_seat" not in public


def test_a_turn_mail_quotes_what_was_said_since_the_readers_last_move(
        settings, client, worker, smtp) -> None:
    from tests.support.players import text_of

    tokens = _match(settings).tokens
    client.post(f"/play/{tokens[0]}/notes", data={"notes": "ALICE-SECRET-NOTE"})
    client.post(f"/play/{tokens[1]}/notes", data={"notes": "BOB-SECRET-NOTE"})
    client.post(f"/play/{tokens[1]}/chat", data={"text": "said before Alice moved"})
    client.post(f"/play/{tokens[0]}", data={"move": "take 2", "ply": "0"})
    client.post(f"/play/{tokens[0]}/chat", data={"text": f"Your move, Bob {XSS}"})
    client.post(f"/play/{tokens[1]}/chat", data={"text": "thinking…"})
    client.post(f"/play/{tokens[1]}", data={"move": "take 1", "ply": "1"})
    worker.send_outbox()
    turns = [m for m in smtp.to(ALICE) if "Your turn" in text_of(m)]
    quoted = text_of(turns[-1])
    # Alice's second turn: Bob's words since her move, not his earlier ones, nor her own.
    assert "bob wrote:\n  > thinking…" in quoted
    assert "said before Alice moved" not in quoted and "Your move, Bob" not in quoted
    html = turns[-1].get_body(("html",)).get_content()
    assert "thinking…" in html
    bob_mails = smtp.to(BOB)
    chat_mails = [m for m in bob_mails if "alice wrote" in text_of(m)]
    assert chat_mails  # the page message was mailed to Bob (chat mail "now")
    chat_html = chat_mails[-1].get_body(("html",)).get_content()
    assert "<script>" not in chat_html and "&lt;script&gt;" in chat_html
    # No mail to anyone carries a seat's notes.
    decoded = [part.get_content() for mail in smtp.messages for part in mail.walk()
               if not part.is_multipart()]
    assert any("thinking…" in text for text in decoded)  # decoded: this would see a note
    assert not any("SECRET-NOTE" in text for text in decoded)


def test_control_characters_and_direction_overrides_are_dropped_joiners_kept(
        settings, client) -> None:
    token = _match(settings).tokens[0]
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    sent = client.post(f"/api/play/{token}/chat",
                       json={"text": f"ab\x07c \u202egnp.exe {family}\r\n\r\n\r\n\r\nend  "})
    assert sent.status_code == 201
    assert ChatMessage.get().text == f"abc gnp.exe {family}\n\nend"


def test_a_turn_mail_quotes_the_latest_messages_oldest_first_and_none_it_should_not(
        settings) -> None:
    from datetime import timedelta

    from pbem.core.conversation.chat import QUOTED_AT_MOST, quoted_for
    from pbem.core.conversation.models import PlayerBlock, Room
    from pbem.core.matches.models import Seat

    match = _match(settings).match
    alice, bob = (Seat.get(Seat.match == match, Seat.seat == n).player for n in (0, 1))
    carol = create_match("nim", ["carol@example.org", ALICE], {}, settings.secret_key,
                         START).match.seats[0].player

    def say(author, seat, text, minutes, room=Room.PLAYERS, hidden=False):
        ChatMessage.create(match=match, room=room, seat=seat, author=author, text=text,
                           ply=0, channel="web", created_at=START + timedelta(minutes=minutes),
                           hidden_at=START if hidden else None)

    for n in range(QUOTED_AT_MOST + 2):
        say(bob, 1, f"bob {n}", n)
    say(alice, 0, "alice's own", 20)
    say(bob, 1, "hidden by a moderator", 21, hidden=True)
    say(bob, None, "in the spectators' room", 22, room=Room.SPECTATORS)
    say(carol, 1, "from a blocked writer", 23)
    say(bob, 1, "after the mail was written", 90)
    PlayerBlock.create(player=alice, blocked=carol, created_at=START)
    quoted = [shown.text for shown in
              quoted_for(match.id, 0, alice.id, 0, START + timedelta(minutes=60))]
    assert quoted == [f"bob {n}" for n in range(2, QUOTED_AT_MOST + 2)]
    # A reader who muted the match is quoted nothing; the other reader is not affected.
    from pbem.core.conversation.models import ChatMute

    ChatMute.create(match=match, player=alice, created_at=START)
    assert quoted_for(match.id, 0, alice.id, 0, START + timedelta(minutes=60)) == []
    assert [shown.text for shown in quoted_for(match.id, 1, bob.id, 0,
                                               START + timedelta(minutes=60))] == ["alice's own"]
