"""Resign, draw offers, abort and claims from the play page (with its confirmation step), the
JSON API and the CLI; every email delivered over real SMTP."""

from __future__ import annotations

from datetime import timedelta

from pbem.cli import main
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import DrawOffer, Match
from pbem.core.matches.sweep import sweep
from tests.conftest import START, SMTPRecorder

ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"


def nim(settings, **kwargs):
    return create_match("nim", [ANN, BEN], {"pile": "20"}, settings.secret_key, START, **kwargs)


def test_resigning_on_the_page_asks_first_then_ends_the_match(
        settings, client, worker, smtp: SMTPRecorder) -> None:
    created = nim(settings)
    ann, ben = (f"/play/{t}" for t in created.tokens)
    page = client.get(ann).data.decode()
    assert 'action="/play/' in page and ">Resign</button>" in page
    asked = client.post(f"{ann}/resign")
    assert asked.status_code == 200 and b"Resign this match?" in asked.data
    assert Match.get().is_live, "the first POST only asks"
    done = client.post(f"{ann}/resign", data={"confirm": "yes"})
    assert done.status_code == 303 and done.headers["Location"].endswith(ann)
    assert b"You resigned." in client.get(ann).data
    assert b"Match over." in client.get(ben).data and b">Resign</button>" not in client.get(
        ben).data
    worker.send_outbox()
    body = smtp.to(BEN)[-1].get_body(("plain",)).get_content()
    assert "Second (ben) wins" in body and "First resigned" in body
    again = client.post(f"{ann}/resign", data={"confirm": "yes"})
    assert again.status_code == 409 and b"is over" in again.data


def test_a_draw_offered_with_a_move_is_shown_mailed_and_accepted_on_the_page(
        settings, client, worker, smtp: SMTPRecorder) -> None:
    created = nim(settings)
    ann, ben = (f"/play/{t}" for t in created.tokens)
    assert b'name="offer_draw"' in client.get(ann).data
    client.post(ann, data={"move": "take 1", "ply": "0", "offer_draw": "yes"})
    worker.send_outbox()
    offer_mail = smtp.to(BEN)[-1].get_body(("plain",)).get_content()
    assert "First (ann) offers a draw" in offer_mail and ben in offer_mail
    page = client.get(ben).data.decode()
    assert "First offers a draw." in page and ">Accept the draw</button>" in page
    assert ">Decline the draw</button>" in page
    asked = client.post(f"{ben}/draw/yes")
    assert b"Accept First&#39;s draw offer?" in asked.data
    client.post(f"{ben}/draw/yes", data={"confirm": "yes"})
    match = Match.get()
    assert match.status == "finished" and match.result["winners"] == [0, 1]
    assert b"The match is drawn by agreement." in client.get(ben).data
    # The status line reads as two sentences, as on the public page.
    assert b"</strong> The match is drawn. Drawn by agreement" in client.get(ben).data


def test_a_declined_offer_goes_back_to_the_offerer(settings, client, worker,
                                                    smtp: SMTPRecorder) -> None:
    created = nim(settings)
    ann, ben = (f"/play/{t}" for t in created.tokens)
    client.post(f"{ann}/draw/yes", data={"confirm": "yes"})
    assert b"You offered a draw." in client.get(ann).data
    client.post(f"{ben}/draw/no", data={"confirm": "yes"})
    worker.send_outbox()
    assert "Second declined your draw offer" in smtp.to(ANN)[-1].get_body(
        ("plain",)).get_content()
    refused = client.post(f"{ann}/draw/yes", data={"confirm": "yes"})
    assert refused.status_code == 409 and b"after 2 more moves" in refused.data


def test_the_api_resigns_offers_answers_aborts_and_claims(settings, client) -> None:
    created = nim(settings, time_control="45s", on_timeout="claim")
    ann, ben = (f"/api/play/{t}" for t in created.tokens)
    record = client.get(ann).get_json()
    assert record["draw_offer"] is None
    assert record["can"] == ["move", "resign", "offer-draw", "abort"]
    offered = client.post(f"{ann}/draw/yes")
    assert offered.status_code == 200 and offered.get_json()["draw_offer"]["by"] == 0
    assert client.get(ben).get_json()["can"] == ["resign", "accept-draw", "decline-draw",
                                                "abort"]
    declined = client.post(f"{ben}/draw/no").get_json()
    assert declined["draw_offer"] is None and "declined" in declined["done"]
    refused = client.post(f"{ben}/draw/no")
    assert refused.status_code == 409 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["detail"] == "There is no draw offer to answer."
    claim = client.post(f"{ben}/claim-victory")
    assert claim.status_code == 409 and "Nobody's time" in claim.get_json()["detail"]
    sweep(START, timedelta(hours=1))
    sweep(START + timedelta(minutes=1), timedelta(hours=1))
    assert "claim-victory" in client.get(ben).get_json()["can"]
    won = client.post(f"{ben}/claim-victory").get_json()
    assert won["status"] == "finished" and won["result"]["winners"] == [1]
    assert client.post("/api/play/not-a-token/resign").status_code == 404


def test_the_api_aborts_a_four_seat_match_before_everyone_moved(settings, client) -> None:
    created = create_match("bids", [ANN, BEN, CY, DI], {}, settings.secret_key, START, seed=5)
    first = f"/api/play/{created.tokens[0]}"
    hand = client.get(first).get_json()["legal_moves"]
    assert client.post(first, json={"move": hand[0], "ply": 0, "offer_draw": True}
                       ).status_code == 200
    assert DrawOffer.get().seat == 0
    aborted = client.post(f"/api/play/{created.tokens[3]}/abort").get_json()
    assert aborted["status"] == "aborted" and aborted["can"] == []
    assert client.post(first, json={"move": hand[1], "ply": 1}).status_code == 409


def test_an_operator_acts_for_a_seat_from_the_shell(settings, db_url, tmp_path,
                                                    monkeypatch, capsys) -> None:
    monkeypatch.setenv("PBEM_DATABASE_URL", db_url)
    monkeypatch.setenv("PBEM_SECRET_KEY", settings.secret_key)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    match = nim(settings).match
    assert main(["match", "draw-yes", str(match.id), "0"]) == 0
    assert "offered a draw" in capsys.readouterr().out
    assert main(["match", "draw-no", str(match.id), "0"]) == 2
    assert "your own offer" in capsys.readouterr().err
    assert main(["match", "resign", str(match.id), "1"]) == 0
    assert Match.get_by_id(match.id).result["winners"] == [0]
    assert main(["match", "abort", str(match.id), "1"]) == 2
    assert "is over" in capsys.readouterr().err
    assert Match.get_by_id(match.id).result["reason"] == "Second resigned"


def test_the_admin_entry_shows_the_offers_and_answers_a_repeated_ruling(
        settings, client) -> None:
    from pbem.core.matches.lifecycle import draw_no, draw_yes
    from pbem.core.matches.models import Adjudication
    from tests.web.admin.test_queue import csrf_from, log_in

    match = nim(settings, time_control="45s").match
    draw_yes(match.id, 1, START)
    draw_no(match.id, 0, START)
    sweep(START, timedelta(hours=1))
    sweep(START + timedelta(minutes=1), timedelta(hours=1))
    entry = Adjudication.get()
    log_in(client)
    page = client.get(f"/admin/adjudications/{entry.id}").data.decode()
    offers = page.split("<h2>Draw offers</h2>", 1)[1].split("</table>", 1)[0]
    assert "declined (said no, First)" in offers  # as the game names seat 0
    token = csrf_from(page.encode())
    form = {"ruling": "extend", "extension": "2d", "reason": "a storm", "csrf_token": token}
    too_long = client.post(f"/admin/adjudications/{entry.id}",
                           data={**form, "extension": "99999d"}, follow_redirects=True)
    assert b"at most 30 days" in too_long.data
    assert client.post(f"/admin/adjudications/{entry.id}", data=form).status_code == 303
    again = client.post(f"/admin/adjudications/{entry.id}", data=form, follow_redirects=True)
    assert b"Already ruled" in again.data
    assert Adjudication.get().ruling == "extend"


def test_a_damaged_match_can_still_be_ruled_on_from_admin(settings, client) -> None:
    from pbem.core.matches.models import Adjudication
    from tests.web.admin.test_queue import csrf_from, log_in

    match = nim(settings, time_control="45s").match
    Match.update(state={"broken": True}).where(Match.id == match.id).execute()
    sweep(START + timedelta(minutes=1), timedelta(hours=1))
    entry = Adjudication.get()
    assert entry.cause == "error"
    log_in(client)
    page = client.get(f"/admin/adjudications/{entry.id}")
    assert page.status_code == 200 and b"cannot be read" in page.data
    token = csrf_from(page.data)
    refused = client.post(f"/admin/adjudications/{entry.id}", follow_redirects=True, data={
        "ruling": "autoplay", "reason": "damaged", "csrf_token": token})
    assert refused.status_code == 200 and b"cannot be read" in refused.data
    client.post(f"/admin/adjudications/{entry.id}", data={
        "ruling": "abort", "reason": "damaged", "csrf_token": token})
    assert Match.get_by_id(match.id).status == "aborted"
