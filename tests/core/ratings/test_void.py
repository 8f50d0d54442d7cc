"""An admin voids a finished rated match for ratings: it stays on record, unrated, and every
rating is what it would have been had the match never counted (checked against openskill
directly, and by a rebuild that changes nothing after)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from pbem.core.admin.actions import void
from pbem.core.admin.audit import AuditFilter, search
from pbem.core.matches.changes import apply_change
from pbem.core.matches.lifecycle import Resign
from pbem.core.matches.models import ChangeLog, Match
from pbem.core.ratings.models import Rating, RatingEvent
from pbem.core.ratings.rebuild import rebuild
from pbem.errors import ConflictError, InvalidRequestError
from tests.conftest import START
from tests.core.ratings.test_ratings import PEOPLE, _match
from tests.web.admin.test_console import form
from tests.web.admin.test_queue import log_in

ANN, BEN, CY = PEOPLE[:3]


def _won_by(loser_seat: int, emails: list[str]) -> Match:
    match = _match(emails, START)
    apply_change(match.id, Resign(seat=loser_seat), START)
    return Match.get_by_id(match.id)


def test_a_voided_match_leaves_the_ratings_as_if_it_never_counted(db_url: str) -> None:
    first = _won_by(1, [ANN, BEN])    # ann beats ben
    voided = _won_by(0, [ANN, CY])    # cy beats ann: voided below
    last = _won_by(1, [BEN, CY])      # ben beats cy
    void(voided.id, "ref@club.org", "the accounts were one person", START)

    model = PlackettLuce()
    ann, ben, cy = model.rating(), model.rating(), model.rating()
    [[ann], [ben]] = model.rate([[ann], [ben]], ranks=[1, 2])
    [[ben], [cy]] = model.rate([[ben], [cy]], ranks=[1, 2])
    stored = {row.player.email: row for row in Rating.select()}
    for email, expected in ((ANN, ann), (BEN, ben), (CY, cy)):
        assert stored[email].mu == pytest.approx(expected.mu, abs=1e-9)
        assert stored[email].sigma == pytest.approx(expected.sigma, abs=1e-9)
    assert stored[ANN].games == 1 and stored[CY].games == 1 and stored[BEN].games == 2
    assert not RatingEvent.select().where(RatingEvent.match == voided.id).exists()
    assert {e.match_id for e in RatingEvent.select()} == {first.id, last.id}
    after = Match.get_by_id(voided.id)
    assert not after.rated and after.voided_at == START and after.result  # still on record
    assert ChangeLog.select().where(ChangeLog.match == voided.id,
                                    ChangeLog.kind == "void").count() == 1
    (audited,) = search(AuditFilter(action="void"))  # read from the change log
    assert audited.reason == "the accounts were one person"
    assert rebuild().changed == 0  # a later rebuild agrees


def test_what_cannot_be_voided_is_refused_and_nothing_changes(db_url: str) -> None:
    live = _match([ANN, BEN], START)
    casual = _match([ANN, CY], START, rated=False)
    apply_change(casual.id, Resign(seat=0), START)
    done = _won_by(1, [BEN, CY])
    before = [(r.player_id, r.mu, r.sigma) for r in Rating.select().order_by(Rating.id)]
    for match_id, words in ((live.id, "has not finished"), (casual.id, "is casual")):
        with pytest.raises(ConflictError, match=words):
            void(match_id, "ref@club.org", "why", START)
    with pytest.raises(InvalidRequestError, match="reason"):
        void(done.id, "ref@club.org", " ", START)
    void(done.id, "ref@club.org", "collusion", START)
    with pytest.raises(ConflictError, match="voided already"):
        void(done.id, "ref@club.org", "again", START)
    assert before and Rating.select().count() == 0  # ben and cy's only rated game is gone
    assert len(search(AuditFilter(action="void"))) == 1


def test_an_admin_voids_from_the_match_page_and_the_public_page_says_so(client,
                                                                       db_url: str) -> None:
    log_in(client)
    done = _won_by(1, [ANN, BEN])
    page = f"/admin/matches/{done.id}"
    assert b"Void for ratings" in client.get(page).data
    answer = client.post(f"{page}/void", data=form(client, page, reason="a stolen account"))
    assert answer.status_code == 303
    assert b"recomputed" in client.get(page).data
    assert b"Void for ratings" not in client.get(page).data  # nothing left to void
    public = client.get(f"/matches/{done.id}").data
    assert b"voided for ratings by an admin" in public and b"a stolen account" in public
    assert Rating.select().count() == 0
