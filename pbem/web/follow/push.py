"""Web push subscriptions: the public key browsers subscribe with, and three doors to keep or
drop a browser's subscription, each with its own credential:

- `POST`/`DELETE /api/me/push`: a personal API token (`account` scope);
- `POST /play/<token>/push` (and `/push/remove`): the seat link, from the play page's toggle
  (the link is the credential there, as for the page's other forms);
- `POST /me/push` (and `/push/remove`, `/push/channels`): the signed-in session, from `/me`.

The body is the browser's `PushSubscription.toJSON()` (removal: its `endpoint`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from pbem.core.accounts.api_tokens import Scope
from pbem.core.accounts.models import Player
from pbem.core.matches.seat_links import seat_for_token
from pbem.core.push import channels, subscriptions
from pbem.errors import InvalidRequestError, NotFoundError
from pbem.i18n import _
from pbem.push.keys import public_key
from pbem.web.accounts.auth import player_required, scope_required, signed_in_player
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.security import private

api = Blueprint("push_api", __name__, url_prefix="/api")
seat_bp = Blueprint("push_seat", __name__)
me_bp = Blueprint("push_me", __name__)


@api.get("/push/key")
def key() -> Response:
    """The server's VAPID public key, as `applicationServerKey` takes it."""
    found = public_key(current_app.config["PBEM_SETTINGS"])
    if found is None:
        raise NotFoundError(_("Push notifications are not set up on this server."))
    return jsonify(key=found)


@api.post("/me/push")
@scope_required(Scope.ACCOUNT)
def api_subscribe() -> tuple[Response, int]:
    return _subscribe(signed_in_player()), 201


@api.delete("/me/push")
@scope_required(Scope.ACCOUNT)
def api_unsubscribe() -> Response:
    return _unsubscribe(signed_in_player())


@seat_bp.post("/play/<token>/push")
def seat_subscribe(token: str) -> tuple[Response, int]:
    return _subscribe(seat_for_token(token).player), 201


@seat_bp.post("/play/<token>/push/remove")
def seat_unsubscribe(token: str) -> Response:
    return _unsubscribe(seat_for_token(token).player)


@me_bp.post("/me/push")
@player_required
def me_subscribe() -> tuple[Response, int]:
    return _subscribe(signed_in_player()), 201


@me_bp.post("/me/push/remove")
@player_required
def me_unsubscribe() -> Response:
    return _unsubscribe(signed_in_player())


@me_bp.post("/me/push/channels")
@player_required
def me_channels() -> Response:
    """The /me form: for each kind of news, mail, push or both."""
    player = signed_in_player()
    for kind in channels.KINDS:
        chosen = request.form.get(kind)
        if chosen is not None:
            channels.choose(player.id, kind, chosen)
    return redirect_with(_("Saved: how you hear about your games."), "me.home")


def push_context(player: Player) -> dict[str, Any]:
    """What /me's push controls show."""
    return {"choices": channels.choices_of(player.id),
            "kinds": {kind: _(words) for kind, words in channels.KIND_WORDS.items()},
            "channels": {name: _(words) for name, words in channels.CHANNEL_WORDS.items()},
            "subscribed": subscriptions.has_subscription(player.id)}


def _subscribe(player: Player) -> Response:
    subscriptions.subscribe(player, _body(), now())
    return private(jsonify(subscribed=True))


def _unsubscribe(player: Player) -> Response:
    body = _body()
    if not subscriptions.unsubscribe(player, body.get("endpoint")):
        raise NotFoundError(_("That browser was not subscribed."))
    return private(jsonify(subscribed=False))


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True) if request.is_json else None
    if not isinstance(body, dict):
        raise InvalidRequestError(_("Send a JSON object (Content-Type: application/json)."))
    return body


def init_app(app: Flask) -> None:
    for blueprint in (api, seat_bp, me_bp):
        app.register_blueprint(blueprint)
