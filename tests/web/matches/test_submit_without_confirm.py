"""Submitting a clicked move without confirming: a setting of the player, saved on
/me/settings or from a seat's play page (as a form, or by the page's script asking for JSON),
rendered into the play page for its script. Odd input changes nothing and says why."""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from tests.support.players import csrf_from, post_form, sign_in
from tests.support.statements import statements as counted_statements

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"
BOX = "submit_without_confirm"
JSON = {"Accept": "application/json"}


def chosen(email: str) -> bool:
    return Player.get(Player.email == email).submit_without_confirm


def panel_setting(html: str) -> str:
    """What the play page tells its script: the click panel's attribute and the box."""
    found = re.search(r'<div class="click-move" id="click-move" '
                      r'data-submit-without-confirm="(yes|no)" hidden>', html)
    assert found, "no click panel"
    box = re.search(r'<input type="checkbox" id="click-skip-confirm"[^>]*>', html).group(0)
    assert ("checked" in box) == (found.group(1) == "yes")
    return found.group(1)


def test_off_by_default_and_saved_with_the_other_settings(client, worker, smtp, settings,
                                                          clock) -> None:
    token = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[0]
    assert not chosen(ANN)
    assert panel_setting(client.get(f"/play/{token}").get_data(as_text=True)) == "no"
    sign_in(client, ANN, worker, smtp)
    page = client.get("/me/settings").get_data(as_text=True)
    assert re.search(r'<input type="checkbox" name="submit_without_confirm" value="yes" '
                     r'aria-describedby="submit-note">\s*Submit moves without confirming</label>',
                     page)

    saved = post_form(client, "/me/settings", name="Ann", timezone="", **{BOX: "yes"})
    assert saved.status_code == 303 and chosen(ANN)
    assert 'value="yes" aria-describedby="submit-note" checked' in client.get(
        "/me/settings").get_data(as_text=True)
    assert panel_setting(client.get(f"/play/{token}").get_data(as_text=True)) == "yes"
    # An unticked box sends nothing: saving the form without it turns the setting off.
    assert post_form(client, "/me/settings", name="Ann", timezone="").status_code == 303
    assert not chosen(ANN)
    assert panel_setting(client.get(f"/play/{token}").get_data(as_text=True)) == "no"


@pytest.mark.parametrize("sent", [["maybe"], ["on"], [""], ["yes", "yes"], ["yes", "no"]])
def test_odd_input_on_the_settings_page_changes_nothing(client, worker, smtp, sent) -> None:
    sign_in(client, ANN, worker, smtp)
    csrf = csrf_from(client.get("/me/settings").data)
    refused = client.post("/me/settings", data={"csrf_token": csrf, "name": "Queen Ann",
                                                "timezone": "Europe/Paris", BOX: sent})
    assert refused.status_code == 400
    assert "The box “Submit moves without confirming” came as" in refused.get_data(as_text=True)
    assert "Nothing was changed" in refused.get_data(as_text=True)
    ann = Player.get(Player.email == ANN)
    assert (ann.name, ann.timezone, ann.submit_without_confirm) == (None, None, False)


def test_a_refused_name_does_not_save_the_box_either(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    refused = post_form(client, "/me/settings", name="x", timezone="", **{BOX: "yes"})
    assert refused.status_code == 400 and not chosen(ANN)


def test_the_play_page_form_saves_the_players_setting_for_every_match(client, settings,
                                                                      clock) -> None:
    first = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens
    other = create_match("mimic", [CY, ANN], {}, settings.secret_key, clock.now).tokens
    # No sign-in and no CSRF token: the seat's link is the credential, as for a move.
    saved = client.post(f"/play/{first[0]}/settings", data={BOX: "yes"})
    assert saved.status_code == 303
    assert saved.headers["Location"].endswith(f"/play/{first[0]}")
    page = client.get(f"/play/{first[0]}").get_data(as_text=True)
    assert "Saved: on the board, a move is sent as soon as your clicks spell it." in page
    assert panel_setting(page) == "yes"
    assert chosen(ANN) and not chosen(BEN) and not chosen(CY)
    # Ann's own setting: her seat in another match has it, and unticking it there (the box
    # sends nothing) turns it off everywhere.
    assert client.get(f"/api/play/{other[1]}").get_json()[BOX] is True
    assert client.post(f"/play/{other[1]}/settings", data={}).status_code == 303
    assert not chosen(ANN)
    client.post(f"/play/{other[0]}/settings", data={BOX: "yes"})  # Cy's seat: Cy's setting
    assert chosen(CY) and not chosen(ANN)


def test_the_page_script_saves_with_json_back(client, settings, clock) -> None:
    token = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[0]
    on = client.post(f"/play/{token}/settings", data={BOX: "yes"}, headers=JSON)
    assert on.status_code == 200 and on.get_json() == {BOX: True} and chosen(ANN)
    off = client.post(f"/play/{token}/settings", data={}, headers=JSON)
    assert off.status_code == 200 and off.get_json() == {BOX: False} and not chosen(ANN)
    # Nothing was flashed for a page the script never loads (the page does carry the script's
    # own "Saved: …" words, for it to show: those are data, not a message).
    assert "Saved: on the board" not in client.get(f"/play/{token}").get_data(as_text=True)


def test_odd_input_on_the_play_page_changes_nothing(client, settings, clock) -> None:
    token = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[0]
    refused = client.post(f"/play/{token}/settings", data={BOX: "true"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "The box “Submit moves without confirming” came as &#39;true&#39;" in page
    assert panel_setting(page) == "no" and not chosen(ANN)
    problem = client.post(f"/play/{token}/settings", data={BOX: ["yes", "yes"]}, headers=JSON)
    assert problem.status_code == 400 and problem.mimetype == "application/problem+json"
    assert "Nothing was changed" in problem.get_json()["detail"] and not chosen(ANN)
    # A wrong link opens no seat, so no one's setting changes.
    assert client.post("/play/not-a-token/settings", data={BOX: "yes"}).status_code == 404
    assert not Player.select().where(Player.submit_without_confirm).exists()


def test_the_api_record_carries_the_setting(client, settings, clock) -> None:
    token = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[0]
    assert client.get(f"/api/play/{token}").get_json()[BOX] is False
    client.post(f"/play/{token}/settings", data={BOX: "yes"})
    assert client.get(f"/api/play/{token}").get_json()[BOX] is True


def test_the_play_page_reads_the_setting_without_a_query_of_its_own(
        client, settings, clock) -> None:
    """The page is hot (see prepared.py): the player's row comes joined to the seat found by
    its link, so the setting costs no statement of its own."""
    token = create_match("mimic", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[0]
    client.post(f"/play/{token}/settings", data={BOX: "yes"})
    with counted_statements() as statements:
        page = client.get(f"/play/{token}").get_data(as_text=True)
    assert panel_setting(page) == "yes"
    assert statements, "the spy saw the page's statements"
    lone = [sql for sql in statements if re.search(r'FROM [`"]player[`"]', sql)]
    assert lone == [], lone
    assert any("submit_without_confirm" in sql and "token_hash" in sql for sql in statements)
