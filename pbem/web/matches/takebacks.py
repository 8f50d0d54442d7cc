"""Takebacks on a seat's page and in the API (docs: players, "Fair play"): the page's buttons
(`POST /play/<token>/takeback`, `/takeback/accept`, `/takeback/decline`) and the API's
`POST /api/play/<token>/takeback[/accept|/decline]`, each one change through the door
(core/takebacks). The seat's record carries `takeback` (`record_for`): what it may do now."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Flask
from werkzeug.wrappers import Response

from pbem.core.matches.seat_links import seat_for_token
from pbem.core.takebacks import changes as takebacks
from pbem.errors import PbemError
from pbem.web.matches.seat import api_seat_action, page, record_for
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("takebacks", __name__)

Service = Callable[..., str]
SERVICES: dict[str, Service] = {"takeback": takebacks.request,
                                "takeback/accept": takebacks.accept,
                                "takeback/decline": takebacks.decline}


def _page_action(path: str, service: Service) -> Callable[[str], Response]:
    def view(token: str) -> Response:
        seat = seat_for_token(token)
        try:
            done = service(seat.match_id, seat.seat, now())
        except PbemError as error:
            seat = seat_for_token(token)
            return page(seat, record_for(seat), status=error.status, error=str(error))
        return redirect_with(done, "play.show", token=token)
    view.__name__ = "page_" + path.replace("/", "_")
    return view


def _api_action(path: str, service: Service) -> Callable[[str], Response]:
    view = api_seat_action(service)
    view.__name__ = "api_" + path.replace("/", "_")
    return view


for _path, _service in SERVICES.items():
    bp.add_url_rule(f"/play/<token>/{_path}", view_func=_page_action(_path, _service),
                    methods=["POST"])
    bp.add_url_rule(f"/api/play/<token>/{_path}", view_func=_api_action(_path, _service),
                    methods=["POST"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


