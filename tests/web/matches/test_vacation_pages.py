"""A declared vacation on the match pages: the opponents' own pages and the public page say who
is away and when while the vacation is current or still to come, by display name only; the
message after declaring says truthfully who was told."""

from __future__ import annotations

import re

from pbem.core.accounts.models import Player
from pbem.core.matches import lifecycle
from pbem.core.matches.creation import create_match

ANN, BEN = "ann@example.org", "ben@example.org"
ADDRESS = re.compile(r"[\w.+-]+@example\.org")
DAYS = "from Tue 06 Jan 2026 to Wed 07 Jan 2026"
GERMAN_DAYS = "Dienstag, 6. Januar 2026 bis Mittwoch, 7. Januar 2026"


def test_the_match_pages_show_an_opponents_vacation_until_it_ends(
        settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now,
                           time_control="3d")
    Player.update(name="Annie").where(Player.email == ANN).execute()
    ann, ben = (f"/play/{token}" for token in created.tokens)
    public = f"/matches/{created.match.id}"
    done = client.post(f"{ann}/vacation", data={"first_day": "2026-01-06",
                                                "last_day": "2026-01-07"})
    assert done.status_code == 303
    upcoming = f"Annie will be on vacation {DAYS}; their clock stops then."
    for path in (ben, public):
        page = client.get(path).get_data(as_text=True)
        assert upcoming in page, path
        assert set(ADDRESS.findall(page)) <= {BEN}, path
    assert "Annie will be on vacation" not in client.get(ann).get_data(as_text=True), \
        "her own page lists her vacations in its own words"
    assert client.get(f"/api/matches/{created.match.id}").get_json()["away"] == [{
        "seat": 0, "name": "Annie", "from": "2026-01-06T00:00:00Z",
        "to": "2026-01-08T00:00:00Z", "text": DAYS.removeprefix("from "),
        "current": False}]
    # The API's text is in the reader's language, as the pages write the days.
    german = {"Accept-Language": "de"}
    (away,) = client.get(f"/api/matches/{created.match.id}", headers=german).get_json()["away"]
    assert away["text"] == GERMAN_DAYS
    assert GERMAN_DAYS in client.get(ben, headers=german).get_data(as_text=True)
    clock.advance(days=1)  # Tue 06 Jan, noon: she is away
    current = f"Annie is on vacation {DAYS}; their clock is stopped."
    for path in (ben, public):
        assert current in client.get(path).get_data(as_text=True), path
    clock.advance(days=2)  # Thu 08 Jan, noon: back
    for path in (ben, public):
        assert "on vacation" not in client.get(path).get_data(as_text=True), path


def test_after_declaring_the_page_says_who_was_told(settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    ann = f"/play/{created.tokens[0]}"
    client.post(f"{ann}/vacation", data={"first_day": "2026-01-06", "last_day": "2026-01-06"})
    page = client.get(ann).get_data(as_text=True)
    assert "Vacation saved: your clocks stop from 2026-01-06 to 2026-01-06." in page
    assert "Your opponents in 1 match in play see it on its page" in page


def test_without_a_match_in_play_the_page_does_not_claim_anyone_was_told(
        settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    lifecycle.resign(created.match.id, 1, clock.now)
    ann = f"/play/{created.tokens[0]}"
    done = client.post(f"{ann}/vacation", data={"first_day": "2026-01-06",
                                                "last_day": "2026-01-06"})
    assert done.status_code == 303
    page = client.get(ann).get_data(as_text=True)
    assert "Vacation saved" in page and "You have no match in play, so nobody was told." in page
    assert "have been told" not in page and "on vacation" not in page


def test_a_vacation_can_be_withdrawn_before_it_begins_and_ended_early_once_it_has(
        settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now,
                           time_control="3d")
    ann, ben = (f"/play/{token}" for token in created.tokens)
    for first, last in (("2026-01-06", "2026-01-07"), ("2026-01-20", "2026-01-20")):
        client.post(f"{ann}/vacation", data={"first_day": first, "last_day": last})
    (soon, later) = client.get(f"/api{ann}").get_json()["vacation"]["upcoming"]
    page = client.get(ann).get_data(as_text=True)
    assert f'action="{ann}/vacation/{later["id"]}/cancel"' in page and "Withdraw" in page
    done = client.post(f"{ann}/vacation/{later['id']}/cancel")
    assert done.status_code == 303 and done.headers["Location"].endswith("#vacation")
    page = client.get(ann).get_data(as_text=True)
    assert "Vacation withdrawn: its days are yours again." in page
    assert "Your match in play notes it in its history" in page
    assert "Vacation this year: 2 of 14 days used" in page
    clock.advance(days=1)  # Tue 06 Jan, noon: she is away, and comes back early
    assert "End it now" in client.get(ann).get_data(as_text=True)
    client.post(f"{ann}/vacation/{soon['id']}/cancel")
    page = client.get(ann).get_data(as_text=True)
    assert "Welcome back: your vacation ended now, and your clocks run again." in page
    assert "on vacation" not in client.get(ben).get_data(as_text=True)
    refused = client.post(f"{ann}/vacation/{soon['id']}/cancel")
    assert refused.status_code == 409
    assert "That vacation is already over." in refused.get_data(as_text=True)
    assert client.post(f"{ben}/vacation/{soon['id']}/cancel").status_code == 404, \
        "Ben cannot call off Ann's vacation"


def test_the_api_declares_and_calls_off_vacations(settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    api = f"/api/play/{created.tokens[0]}/vacation"
    made = client.post(api, json={"first_day": "2026-01-06", "last_day": "2026-01-07"})
    assert made.status_code == 201 and made.headers["Cache-Control"] == "no-store"
    (vacation,) = made.get_json()["vacation"]["upcoming"]
    assert (vacation["from"], vacation["to"], vacation["current"]) == (
        "2026-01-06T00:00:00Z", "2026-01-08T00:00:00Z", False)
    for body, words in (({"first_day": "2026-01-06"}, '"last_day" must be a date'),
                        ({"first_day": 6, "last_day": "2026-01-07"}, '"first_day" must be'),
                        ({"first_day": "20260106", "last_day": "2026-01-07"}, '"first_day"'),
                        ({"first_day": "2026-01-06", "last_day": "2026-01-07", "x": 1},
                         "unknown field(s): x")):
        refused = client.post(api, json=body)
        assert refused.status_code == 400 and words in refused.get_json()["detail"], body
    # Well-formed days the rules refuse: 422.
    for first, last, words in (("2026-01-09", "2026-01-08", "ends before it starts"),
                               ("2000-01-01", "2000-01-01", "cannot start in the past"),
                               ("2026-01-07", "2026-01-07", "already have a vacation")):
        refused = client.post(api, json={"first_day": first, "last_day": last})
        assert refused.status_code == 422 and words in refused.get_json()["detail"], first
    gone = client.delete(f"{api}/{vacation['id']}")
    assert gone.status_code == 200 and gone.get_json()["vacation"]["upcoming"] == []
    assert gone.get_json()["done"] == "withdrawn"
    again = client.delete(f"{api}/{vacation['id']}")
    assert again.status_code == 404 and again.mimetype == "application/problem+json"


def test_the_message_after_a_form_shows_in_its_section_or_else_at_the_top(
        settings, client, clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    ann = f"/play/{created.tokens[0]}"
    client.post(f"{ann}/vacation", data={"first_day": "2026-01-06", "last_day": "2026-01-06"})
    page = client.get(ann).get_data(as_text=True)
    top, _, section = page.partition('<h2 id="vacation">')
    assert "Vacation saved" in section and "Vacation saved" not in top, \
        "the form came back to #vacation: the message is there, not out of sight at the top"
    (vacation,) = client.get(f"/api{ann}").get_json()["vacation"]["upcoming"]
    lifecycle.resign(created.match.id, 1, clock.now)  # the page loses its vacation section
    client.post(f"{ann}/vacation/{vacation['id']}/cancel")
    page = client.get(ann).get_data(as_text=True)
    assert 'id="vacation"' not in page and "Vacation withdrawn" in page
