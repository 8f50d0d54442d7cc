"""The adjudication queue (`/admin`): entries oldest first with their evidence, and rulings
with a reason and a preview of what they will do and the mails they will send."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from flask import current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.core.admin import console
from pbem.core.admin.audit import AlreadyDoneError
from pbem.core.mailout.preferences import undeliverable_players
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.computer_turns import StandIn
from pbem.core.matches.creation import get_match
from pbem.core.matches.models import Adjudication
from pbem.core.matches.rulings import RULINGS, make_ruling
from pbem.core.records.match_record import public_record
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.web.admin.access import actor, bp, posted_action_key, row_or_404, staff_required
from pbem.web.admin.words import ruling_text
from pbem.web.matches.public import requested_moves
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

log = logging.getLogger(__name__)


@bp.get("")
@staff_required
def queue() -> str:
    # Imported on first use: the inbound mail's package is not every web worker's.
    from pbem.core.mailin.bounces import complaints

    return render_template("admin/queue.html", rows=console.queue(now()),
                           undeliverable=undeliverable_players(), complaints=complaints())


@bp.get("/adjudications/<int:entry_id>")
@staff_required
def entry(entry_id: int) -> str:
    return _entry_page(_entry(entry_id))


@bp.post("/adjudications/<int:entry_id>")
@staff_required
def rule(entry_id: int) -> Response | str | tuple[str, int]:
    found = _entry(entry_id)
    ruling = request.form.get("ruling", "")
    reason = request.form.get("reason", "")
    try:
        extension = (TimeControl.parse((request.form.get("extension") or "").strip()).bank
                     if ruling == "extend" else None)
        if request.form.get("do") == "preview":
            preview = console.preview_ruling(found, ruling, reason, actor(), now(), extension,
                                             _max_extension(), _stand_in())
            return _entry_page(found, preview=preview, form=request.form)
        make_ruling(found.match_id, ruling, reason, actor(), now(), extension=extension,
                    entry_id=entry_id, max_extension=_max_extension(),
                    action_key=posted_action_key(), stand_in=_stand_in())
    except AlreadyDoneError as error:
        return redirect_with(str(error), "admin.queue")
    except PbemError as error:
        if request.form.get("do") == "preview":
            return _entry_page(found, form=request.form, error=str(error)), 422
        return redirect_with(str(error), "admin.entry", category="error", entry_id=entry_id)
    return redirect_with(_("Ruling made on match %(match)s: %(ruling)s.", match=found.match_id,
                           ruling=ruling_text(RULINGS[ruling])), "admin.queue")


def _entry(entry_id: int) -> Adjudication:
    return row_or_404(Adjudication, entry_id)


def _entry_page(found: Adjudication, preview: console.Preview | None = None,
                form: object = None, error: str | None = None) -> str:
    match = get_match(found.match_id)
    try:
        record = public_record(match, now(), moves_upto=requested_moves(match.ply))
    except Exception:
        # An entry with cause "error": the stored match cannot be read, yet must be ruled on.
        log.exception("match %s cannot be shown", match.id)
        record = None
    return render_template("admin/entry.html", entry=found, record=record, match=match,
                           ev=console.evidence(found, now()), rulings=RULINGS,
                           clocks=[console.clock_state(match, seat, now())
                                   for seat in match.seat_rows()],
                           preview=preview, form=form or {}, error=error)


def _stand_in() -> StandIn:
    """The computer an autoplay or hand-over ruling puts in the late seat's place."""
    return StandIn(current_app.config["PBEM_SETTINGS"].autoplay_level, time.monotonic)


def _max_extension() -> timedelta:
    return timedelta(days=current_app.config["PBEM_SETTINGS"].max_extension_days)
