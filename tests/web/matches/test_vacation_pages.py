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
