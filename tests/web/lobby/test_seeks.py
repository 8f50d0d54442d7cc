"""Seeks on the web: listed for everyone, posted and joined when signed in; the join that
fills the seek starts the match, and its mails go out over SMTP."""

from __future__ import annotations

from pbem.core.lobby.models import Seek
from pbem.core.matches.models import Match
from tests.support.players import last_mail, post_form, sign_in


def test_post_list_and_join_a_seek(app, client, worker, smtp) -> None:
    assert b"No open seeks" in client.get("/seeks").data
    assert client.post("/seeks/1/join").status_code == 400  # no CSRF token: refused
    sign_in(client, "ann@example.org", worker, smtp)
    bad = post_form(client, "/seeks", page="/seeks", game="nim", players="5", clock="3d")
    assert bad.status_code == 422 and b"played by 2 players" in bad.data
    posted = post_form(client, "/seeks", page="/seeks", game="nim", players="2",
                       clock="1d", **{"option.nim.pile": "4"})
    assert posted.status_code == 303
    listing = app.test_client().get("/seeks").data
    assert b"Nim (test game)" in listing and b"1 of 2 seats taken" in listing
    assert b"ann@example.org" not in listing
    assert b"Sign in</a> to join" in listing

    ben = app.test_client()
    sign_in(ben, "ben@example.org", worker, smtp)
    joined = post_form(ben, f"/seeks/{Seek.get().id}/join", page="/seeks")
    assert joined.status_code == 303 and joined.headers["Location"] == "/me"
    assert Seek.get().status == "started" and Match.get().options["pile"] == 4
    worker.run_once()
    assert last_mail(smtp, "ben@example.org", "match #")
    assert b"Nim (test game) #" in ben.get("/me").data
    again = post_form(ben, f"/seeks/{Seek.get().id}/join", page="/seeks")
    assert again.status_code == 409 and b"full" in again.data


def test_a_seeks_options_read_on_and_off_not_true_and_false(app, client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    posted = post_form(client, "/seeks", page="/seeks", game="mimic-taking", players="3",
                       clock="3d", **{"option.mimic-taking.face_up": "on"})
    assert posted.status_code == 303
    listing = app.test_client().get("/seeks").data
    assert b"face_up=on" in listing and b"True" not in listing
