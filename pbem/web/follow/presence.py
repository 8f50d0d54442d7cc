"""Who is looking at a match: the play page's live updates poll `/play/<token>/ply` (the
public `/matches/<id>/ply` answer, plus the note that this seat looked), and the seat's page
and its API record note it too (`note_presence`). A player who looked within
`notify_away_seconds` gets no "your turn" mail until they have been away that long
(`core/mailout/waiting.py`)."""

from __future__ import annotations

import logging

import peewee
from flask import Blueprint, Flask
from werkzeug.wrappers import Response

from pbem.core.db.connection import database, is_unavailable, unavailable_reason
from pbem.core.matches.seat_links import seat_ref_for_token
from pbem.core.presence.seen import is_due, mark_seen
from pbem.web.matches.public import ply
from pbem.web.site.clock import now

log = logging.getLogger(__name__)
bp = Blueprint("follow", __name__)


@bp.get("/play/<token>/ply")
def seat_ply(token: str) -> Response:
    """How far the match has got (as `/matches/<id>/ply`), asked by the seat's own page: so
    the seat is looking."""
    ref = seat_ref_for_token(token)
    note_presence(ref.match_id, ref.seat)
    return ply(ref.match_id)


def note_presence(match_id: int, seat: int) -> None:
    """The seat is looking now. A database refusing the write (read-only after a failover)
    costs the player nothing but perhaps a mail they did not need."""
    when = now()
    if not is_due(match_id, seat, when):
        return
    try:
        with database.atomic():  # a savepoint: a refused write leaves the request's reads
            mark_seen(match_id, seat, when)
    except peewee.DatabaseError as error:
        if not is_unavailable(error):
            raise
        log.warning("presence in match %s not noted: %s", match_id, unavailable_reason(error))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
