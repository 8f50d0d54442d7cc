"""A seat's match-life actions on its private page: resign, offer/accept/decline a draw,
abort, claim the win. Each is a POST that first shows a confirmation page (no script needed);
the confirmation POSTs again with `confirm=yes`, and only that calls the core service."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from flask import Blueprint, Flask, make_response, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.matches import lifecycle
from pbem.core.matches.seat_links import seat_for_token
from pbem.errors import PbemError
from pbem.i18n import N_, _
from pbem.web.matches.seat import page, record_for
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("lifecycle", __name__)

Action = Callable[[int, int, datetime], str]

# What each action is called, the question asked before it (both translated where shown),
# and the service that does it.
ACTIONS: dict[str, tuple[str, str, Action]] = {
    "resign": (N_("Resign"), N_("Resign this match? You lose it, and it cannot be undone."),
               lifecycle.resign),
    "draw/yes": (N_("Draw"), N_("Offer a draw, or accept the draw offered to you?"),
                 lifecycle.draw_yes),
    "draw/no": (N_("Decline the draw"), N_("Decline the draw offer? The match goes on."),
                lifecycle.draw_no),
    "abort": (N_("Abort"), N_("Abort this match? It ends with no result for anyone."),
              lifecycle.abort),
    "claim-victory": (N_("Claim the win"), N_("Claim the win? The late player loses the match."),
                      lifecycle.claim_victory),
}


def endpoint(action: str) -> str:
    """`draw/yes` → `lifecycle.draw_yes`, for url_for."""
    return "lifecycle." + action.replace("/", "_").replace("-", "_")


def act(token: str, action: str) -> Response:
    seat = seat_for_token(token)
    label, question, service = ACTIONS[action]
    label, question = _(label), _(question)
    if action == "draw/yes":
        label, question = _draw_wording(record_for(seat))
    if request.form.get("confirm") != "yes":
        response = make_response(render_template(
            "play/confirm.html", record=record_for(seat), label=label, question=question,
            action=url_for(endpoint(action), token=token),
            back=url_for("play.show", token=token)))
        response.headers["Cache-Control"] = "no-store"
        return response
    try:
        done = service(seat.match_id, seat.seat, now())
    except PbemError as error:
        return page(seat, record_for(seat), status=error.status, error=str(error))
    return redirect_with(done, "play.show", token=token)


def _draw_wording(record: dict) -> tuple[str, str]:
    if "accept-draw" in record["can"]:
        offer = record["draw_offer"]
        return (_("Accept the draw"), _("Accept %(label)s's draw offer? If every other player "
                                        "accepts, the match ends drawn.", label=offer["label"]))
    return (_("Offer a draw"), _("Offer a draw? It stands until the others answer, or move "
                                 "instead (which declines it)."))


for _action in ACTIONS:
    bp.add_url_rule(f"/play/<token>/{_action}", endpoint(_action).split(".")[1],
                    functools.partial(act, action=_action), methods=["POST"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
