"""Challenges through the web and real SMTP: invite, accept by the emailed link (which signs
the invitee in), decline, expiry, cancel, rematch, the suppression list and the limits."""

from __future__ import annotations

import re

from pbem.core.lobby.models import Challenge, Invite
from pbem.core.mailout.models import OutboxMessage, Suppression
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from tests.conftest import make_settings
from tests.support.players import csrf_from, last_mail, link_in, post_form, sign_in, text_of

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


def challenge(client, *opponents: str, game: str = "nim", **fields: str):
    fields.setdefault("opponents", "\n".join(opponents))
    return post_form(client, "/challenges", page="/challenges/new", game=game, **fields)


def invitation_path(smtp, address: str) -> str:
    return link_in(last_mail(smtp, address, "challenges you"), "/invites/")


def test_a_challenge_accepted_by_the_emailed_link_starts_the_match(app, client, worker,
                                                                   smtp, clock) -> None:
    sign_in(client, ANN, worker, smtp)
    # The timeout policies are offered in words; the form posts their ids.
    form = client.get("/challenges/new").data.decode()
    assert '<option value="autoplay"' in form and ">the server moves for the late player<" in form
    sent = challenge(client, BEN, **{"option.nim.pile": "5"}, clock="2d", seat_order="as-listed",
                     on_timeout="forfeit")
    assert sent.status_code == 303
    worker.run_once()
    mail = last_mail(smtp, BEN, "challenges you to Nim")
    assert "Clock: 2 days per move" in text_of(mail) and "pile=5" in text_of(mail)
    assert "If a clock runs out, the late player loses." in text_of(mail)
    assert "ann challenges you to Nim (test game)." in text_of(mail)  # not "to a Nim"
    assert "/never" in text_of(mail) and ANN not in text_of(mail)  # names, not addresses
    path = invitation_path(smtp, BEN)

    ben = app.test_client()  # no account, not signed in
    page = ben.get(path)
    assert page.status_code == 200 and b"Accept" in page.data and b"Decline" in page.data
    assert Invite.get().status == "pending"  # the GET changed nothing
    accepted = ben.post(f"{path}/accept", data={"csrf_token": csrf_from(page.data)})
    assert accepted.status_code == 303 and accepted.headers["Location"] == "/me"
    started = Challenge.get()
    assert started.status == "started" and started.match is not None
    home = ben.get("/me").data  # the accept signed Ben in
    assert b"Signed in as ben@example.org" in home and b"Nim (test game) #" in home
    seats = started.match.seat_rows()
    assert [s.player.email for s in seats] == [ANN, BEN]  # as listed: challenger first
    assert started.match.options["pile"] == 5 and started.match.time_control == "2d"
    worker.run_once()
    assert last_mail(smtp, ANN, "match #")["Subject"]
    assert any("your turn" in text_of(m).lower() for m in smtp.to(ANN))
    assert any("has started" in text_of(m) for m in smtp.to(BEN))
    # Ann's home lists the match with her turn first and its link.
    home = client.get("/me").data.decode()
    assert "Your turn" in home and re.search(r'href="/play/[\w-]+"', home)
    # A second click on the accept button changes nothing.
    assert ben.post(f"{path}/accept", data={"csrf_token": csrf_from(page.data)}
                    ).status_code == 303
    assert Match.select().count() == 1
    # Long after, the old invitation mail no longer signs anyone in.
    clock.advance(minutes=11)
    finder = app.test_client()
    finder.post(f"{path}/accept", data={"csrf_token": csrf_from(finder.get("/signin").data)})
    assert finder.get("/me").status_code == 302


def test_a_decline_is_mailed_to_the_challenger(app, client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN)
    worker.run_once()
    path = invitation_path(smtp, BEN)
    ben = app.test_client()
    page = ben.get(path)
    assert ben.post(f"{path}/decline", data={"csrf_token": csrf_from(page.data)}
                    ).status_code == 303
    worker.run_once()
    assert "declined" in text_of(last_mail(smtp, ANN, "declined your Nim"))
    late = ben.post(f"{path}/accept", data={"csrf_token": csrf_from(page.data)})
    assert late.status_code == 409 and b"declined" in late.data
    assert Match.select().count() == 0 and Challenge.get().status == "declined"


def test_a_challenge_expires_after_seven_days(app, client, worker, smtp, clock) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN)
    clock.advance(days=6, hours=23)
    worker.run_once()
    assert Challenge.get().status == "pending"
    clock.advance(hours=1)
    worker.run_once()
    assert Challenge.get().status == "expired"
    assert "expired" in text_of(last_mail(smtp, ANN, "challenge expired"))
    worker.run_once()
    assert len([m for m in smtp.to(ANN) if "expired" in m["Subject"]]) == 1
    ben = app.test_client()
    path = invitation_path(smtp, BEN)
    page = ben.get(path)
    assert b"expired" in page.data and b">Accept</button>" not in page.data
    # A page opened before the expiry still posts: refused, and nothing starts.
    late = ben.post(f"{path}/accept", data={"csrf_token": csrf_from(ben.get("/signin").data)})
    assert late.status_code == 409 and b"expired" in late.data and Match.select().count() == 0


def test_the_challenger_cancels_while_it_is_pending(app, client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN, CY, game="bids")
    worker.run_once()
    ben, cy = app.test_client(), app.test_client()
    ben_path, cy_path = invitation_path(smtp, BEN), invitation_path(smtp, CY)
    ben.post(f"{ben_path}/accept", data={"csrf_token": csrf_from(ben.get(ben_path).data)})
    assert Challenge.get().status == "pending"  # Cy has not answered
    assert b"You accepted; waiting for the others" in ben.get("/me").data
    cancel = post_form(client, f"/challenges/{Challenge.get().id}/cancel", page="/me")
    assert cancel.status_code == 303 and Challenge.get().status == "cancelled"
    late = cy.post(f"{cy_path}/accept", data={"csrf_token": csrf_from(cy.get("/signin").data)})
    assert late.status_code == 409 and b"cancelled" in late.data
    again = ben.post(f"{ben_path}/accept", data={"csrf_token": csrf_from(ben.get("/me").data)})
    assert again.status_code == 409 and b"cancelled" in again.data  # not "you accepted"
    assert Match.select().count() == 0
    # Only the challenger may cancel.
    sign_in(ben, BEN, worker, smtp)
    assert post_form(ben, f"/challenges/{Challenge.get().id}/cancel", page="/me"
                     ).status_code in (403, 409)


def test_a_signed_in_invitee_answers_from_the_home_page(app, client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN)
    ben = app.test_client()
    sign_in(ben, BEN, worker, smtp)
    home = ben.get("/me").data
    assert b"challenges you to Nim (test game) (3 days per move)." in home
    challenge_id = Challenge.get().id
    # The challenge's page words the clock and the expiry as the invitation mail does.
    page = ben.get(f"/challenges/{challenge_id}").data.decode()
    assert "Clock: 3 days per move;" in page
    assert re.search(r"\(expires \w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC\)", page), page
    assert post_form(ben, f"/challenges/{challenge_id}/accept", page="/me").status_code == 303
    assert Challenge.get().status == "started"
    # Ann cannot answer her own challenge, and strangers cannot see it.
    assert post_form(client, f"/challenges/{challenge_id}/accept", page="/me").status_code == 403
    stranger = app.test_client()
    sign_in(stranger, CY, worker, smtp)
    assert stranger.get(f"/challenges/{challenge_id}").status_code == 404


def test_a_rematch_from_the_finished_matchs_page_rotates_the_seats(app, client, worker,
                                                                 smtp, clock) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN, **{"option.nim.pile": "1"}, seat_order="as-listed")
    ben = app.test_client()
    sign_in(ben, BEN, worker, smtp)
    post_form(ben, f"/challenges/{Challenge.get().id}/accept", page="/me")
    match = Challenge.get().match
    assert b"Offer a rematch" not in client.get(f"/matches/{match.id}").data
    submit_move(match.id, 0, "take 1", 0, clock.now)  # Ann takes the last counter
    page = client.get(f"/matches/{match.id}")
    assert b"Offer a rematch" in page.data
    assert b"Offer a rematch" not in app.test_client().get(f"/matches/{match.id}").data
    offered = client.post(f"/matches/{match.id}/rematch",
                          data={"csrf_token": csrf_from(page.data)})
    assert offered.status_code == 303
    rematch = Challenge.select().order_by(Challenge.id.desc()).first()
    assert rematch.rematch_of_id == match.id and rematch.options == {"pile": 1}
    worker.run_once()
    assert "Rematch?" in last_mail(smtp, BEN, "Rematch?")["Subject"]
    post_form(ben, f"/challenges/{rematch.id}/accept", page="/me")
    seats = Challenge.get_by_id(rematch.id).match.seat_rows()
    assert [s.player.email for s in seats] == [BEN, ANN]


def test_never_email_me_again_stops_later_invitations(app, client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    challenge(client, BEN)
    worker.run_once()
    path = invitation_path(smtp, BEN)
    ben = app.test_client()
    page = ben.get(f"{path}/never")
    assert page.status_code == 200 and Suppression.select().count() == 0
    ben.post(f"{path}/never", data={"csrf_token": csrf_from(page.data)})
    assert Suppression.get().email == BEN
    assert b"will get no more invitations" in ben.get(f"{path}/never").data
    before = len(smtp.to(BEN))
    refused = challenge(client, BEN)
    assert refused.status_code == 400 and b"asked not to receive invitations" in refused.data
    worker.run_once()
    assert len(smtp.to(BEN)) == before and Challenge.select().count() == 1
    # Mails of matches Ben joined still arrive: he accepts the first challenge.
    ben.post(f"{path}/accept", data={"csrf_token": csrf_from(ben.get(path).data)})
    worker.run_once()
    assert any("has started" in text_of(m) for m in smtp.to(BEN))


def test_bad_challenges_are_refused_with_a_message_and_nothing_sent(client, worker,
                                                                   smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    cases = [({"opponents": "not-an-address"}, b"is not a valid email address"),
             ({"opponents": ANN}, b"cannot challenge yourself"),
             ({"opponents": f"{BEN} {CY}"}, b"played by 2 players"),
             ({"opponents": BEN, "clock": "soon"}, b"is not a time control"),
             ({"opponents": BEN, "option.nim.pile": "99"}, b"pile"),
             ({"opponents": BEN, "game": "chess"}, b"there is no game called"),
             ({"opponents": BEN, "seat_order": "tallest"}, b"seat order")]
    mails = OutboxMessage.select().count()
    for fields, message in cases:
        reply = challenge(client, **fields)
        assert reply.status_code in (400, 422) and message in reply.data, (fields, reply.data)
    assert Challenge.select().count() == 0 and OutboxMessage.select().count() == mails


def test_limits_on_pending_challenges_and_daily_invitations(db_url, tmp_path, smtp, clock,
                                                            worker) -> None:
    from pbem.web import create_app
    from tests.conftest import SUPPORT_TEMPLATES

    settings = make_settings(db_url, tmp_path, smtp_host=smtp.host, smtp_port=smtp.port,
                             max_pending_challenges=2, invitations_per_day=3)
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=clock)
    client = app.test_client()
    sign_in(client, ANN, worker, smtp)
    assert challenge(client, BEN).status_code == 303
    assert challenge(client, CY).status_code == 303
    full = challenge(client, "dee@example.org")
    assert full.status_code == 409 and b"You have 2 challenges waiting" in full.data
    # By id: an unordered `get` is any row (PostgreSQL moves an updated row to the end).
    first, second = Challenge.select().order_by(Challenge.id)
    post_form(client, f"/challenges/{first.id}/cancel", page="/me")
    assert challenge(client, "dee@example.org").status_code == 303  # the third invitation
    post_form(client, f"/challenges/{second.id}/cancel", page="/me")
    daily = challenge(client, "eve@example.org")
    assert daily.status_code == 429 and b"Too many invitations today" in daily.data
    assert Invite.select().count() == 3
    clock.advance(days=1)
    assert challenge(client, "eve@example.org").status_code == 303


def test_the_form_draws_each_games_options_as_controls(client, worker, smtp) -> None:
    """A check box for on/off, a list for a fixed set, a number box with its bounds, each with
    the option's help text: nothing is typed as name=value."""
    sign_in(client, ANN, worker, smtp)
    for page in ("/challenges/new", "/seeks"):
        form = client.get(page).get_data(as_text=True)
        box = re.search(r'<input type="checkbox" id="opt-mimic-mimic_goal_wins"[^>]*>', form)
        assert box and 'name="option.mimic.mimic_goal_wins"' in box.group(0)
        assert " checked" in box.group(0)  # on by default, as the game declares
        assert re.search(r'<select id="opt-frozen-forest-forest_size"[^>]*>.*?'
                         r'<option value="10" selected>10 \(default\)</option>', form, re.S)
        assert re.search(r'<input type="number" id="opt-move-in-synch-size"[^>]*min="4" '
                         r'max="19"', form)
        assert 'name="options"' not in form  # no free-text box any more
        assert "Options for Move In Synch" in form


def test_options_from_controls_make_the_match_and_bad_ones_get_the_options_message(
        app, client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    too_big = challenge(client, BEN, game="move-in-synch",
                        **{"option.move-in-synch.size": "25"})
    assert too_big.status_code == 422 and b"option size must be at most 19" in too_big.data
    # The refused form comes back as it was sent.
    assert b'name="option.move-in-synch.size" value="25"' in too_big.data
    # An unticked box is off; other games' fields are ignored.
    sent = challenge(client, BEN, game="mimic", **{"option.mimic-taking.face_up": "on"})
    assert sent.status_code == 303
    made = Challenge.select().order_by(Challenge.id.desc()).get()
    assert made.options == {"mimic_goal_wins": False}
