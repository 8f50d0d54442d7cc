"""Talk at the board on the web: the seat's forms under its board (chat, notes, mute, report,
block), the spectators' forms on the public match page, and the JSON API for both rooms a
seat uses (`/api/play/<token>/chat`, `/api/play/<token>/notes`).

A seat's link is its credential (as for its other forms, no CSRF token); the spectators'
forms act for the signed-in player and carry one. Every form works without script: it posts,
and the page comes back with a message (or the error and what was typed).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Flask, flash, jsonify, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.core.conversation import chat, moderation, personal
from pbem.core.conversation.chat import Channel
from pbem.core.mailout import chat as chat_mail
from pbem.core.matches.seat_links import seat_for_token
from pbem.core.records.exports import seat_record_export
from pbem.errors import InvalidRequestError, PbemError
from pbem.i18n import _
from pbem.web.accounts.auth import SignInRequiredError, current_player, player_required
from pbem.web.matches.seat import page, record_for
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import known_fields, whole_number
from pbem.web.site.security import private

# Seat forms: exempt from CSRF like the rest of /play/<token> (the link is the credential).
seat_bp = Blueprint("seat_talk", __name__)
# The spectators' forms: a signed-in player's cookie, so CSRF-protected.
watch_bp = Blueprint("watch_talk", __name__)
# JSON only, token in the path: exempt from CSRF like the rest of the API.
api_bp = Blueprint("talk_api", __name__, url_prefix="/api")


# --- the seat's page -----------------------------------------------------------------------

@seat_bp.post("/play/<token>/chat")
def seat_post(token: str) -> Response:
    seat = seat_for_token(token)
    text = request.form.get("text", "")
    try:
        chat_mail.post_and_mail(seat, text, now())
    except PbemError as error:
        response = page(seat, record_for(seat), status=error.status, error=str(error),
                        chat_typed=text if len(text) <= chat.MAX_MESSAGE * 2 else "")
        _retry_after(response, error)
        return response
    return redirect_with(_("Message posted."), "play.show", section="chat", token=token)


@seat_bp.post("/play/<token>/notes")
def seat_notes(token: str) -> Response:
    seat = seat_for_token(token)
    text = request.form.get("notes", "")
    try:
        personal.save_notes(seat, text, now())
    except PbemError as error:
        return page(seat, record_for(seat), status=error.status, error=str(error),
                    notes_typed=text)
    return redirect_with(_("Notes saved (only this seat sees them).") if text.strip()
                         else _("Notes cleared."), "play.show", section="notes", token=token)


@seat_bp.post("/play/<token>/chat/mute")
def seat_mute(token: str) -> Response:
    seat = seat_for_token(token)
    muted = request.form.get("muted") == "yes"
    personal.set_muted(seat.match_id, seat.player_id, muted, now())
    return redirect_with(_("This match's chat is muted: no chat mails, no quotes in turn mails.")
                         if muted else _("This match's chat is back on."),
                         "play.show", section="chat", token=token)


@seat_bp.post("/play/<token>/chat/<int:message_id>/report")
def seat_report(token: str, message_id: int) -> Response:
    seat = seat_for_token(token)
    moderation.report(message_id, seat.player, request.form.get("reason", ""), now(),
                      seat=seat)
    return redirect_with(_("Thank you: the message was reported to the admins."), "play.show",
                         section="chat", token=token)


@seat_bp.post("/play/<token>/chat/<int:message_id>/block")
def seat_block(token: str, message_id: int) -> Response:
    seat = seat_for_token(token)
    _readable_by_seat(seat, message_id)
    try:
        author = personal.block_author(seat.player, message_id, now())
    except PbemError as error:
        return page(seat, record_for(seat), status=error.status, error=str(error))
    return redirect_with(_("You blocked %(name)s: you will not see or get their messages. Your "
                           "settings page lists whom you blocked.", name=author.public_name),
                         "play.show", section="chat", token=token)


@seat_bp.get("/play/<token>/record.json")
def seat_download(token: str) -> Response:
    """The seat's own record: the public record plus its notes and the players' chat."""
    seat = seat_for_token(token)
    body = json.dumps(seat_record_export(seat), indent=1, ensure_ascii=False) + "\n"
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="pbem-match-{seat.match_id}-seat-{seat.seat + 1}.json"')
    response.headers["Cache-Control"] = "no-store"
    return response


def _readable_by_seat(seat: Any, message_id: int) -> None:
    from pbem.core.conversation.models import ChatMessage, Room

    message = ChatMessage.get_or_none(ChatMessage.id == message_id)
    if message is None or message.match_id != seat.match_id or message.room != Room.PLAYERS:
        raise InvalidRequestError(_("That message is not in this match's chat."))


# --- the spectators' room, on the public page ----------------------------------------------

@watch_bp.post("/matches/<int:match_id>/chat")
def watch_post(match_id: int) -> Response:
    player = current_player()
    if player is None:
        raise SignInRequiredError(_("Sign in to talk in the spectators' room."))
    text = request.form.get("text", "")
    try:
        chat.post_as_spectator(match_id, player, text, now())
    except PbemError as error:
        from pbem.web.matches.public import render_show

        response = render_show(match_id, status=error.status, error=str(error),
                               chat_typed=text if len(text) <= chat.MAX_MESSAGE * 2 else "")
        _retry_after(response, error)
        return response
    return redirect_with(_("Message posted."), "matches.show", section="chat", match_id=match_id)


@watch_bp.post("/matches/<int:match_id>/chat/<int:message_id>/report")
def watch_report(match_id: int, message_id: int) -> Response:
    player = current_player()
    if player is None:
        raise SignInRequiredError(_("Sign in to report a message."))
    from pbem.core.conversation.models import ChatMessage, Room

    message = ChatMessage.get_or_none(ChatMessage.id == message_id)
    if message is None or message.match_id != match_id or message.room != Room.SPECTATORS:
        raise InvalidRequestError(_("That message is not in this match's spectators' room."))
    moderation.report(message_id, player, request.form.get("reason", ""), now())
    return redirect_with(_("Thank you: the message was reported to the admins."), "matches.show",
                         section="chat", match_id=match_id)


@watch_bp.post("/me/blocks/<int:player_id>/remove")
@player_required
def unblock(player_id: int) -> Response:
    player = current_player()
    if player is not None:
        personal.unblock(player, player_id)
    flash(_("Unblocked: their messages reach you again."), "ok")
    return redirect(url_for("me.settings") + "#blocks", code=303)


@watch_bp.post("/me/blocks")
@player_required
def block() -> Response:
    player = current_player()
    if player is None:
        raise SignInRequiredError(_("Sign in first."))
    try:
        blocked = personal.block(player, request.form.get("name", ""), now())
    except PbemError as error:
        # Said beside the form (a name mistyped), not on a page of its own.
        flash(str(error), "error")
    else:
        flash(_("You blocked %(name)s.", name=blocked.public_name), "ok")
    return redirect(url_for("me.settings") + "#blocks", code=303)


# --- the API -------------------------------------------------------------------------------

MAX_PAGE = 100  # messages a page of the API may ask for


@api_bp.get("/play/<token>/chat")
def api_chat(token: str) -> Response:
    """The players' room, newest first, a keyset page at a time (`?before=<id>&limit=`)."""
    seat = seat_for_token(token)
    before = _whole_arg("before")
    limit = _whole_arg("limit") or chat.PAGE_SIZE
    if limit > MAX_PAGE:
        raise InvalidRequestError(_('"limit" is at most %(limit)s', limit=MAX_PAGE))
    shown, next_before = chat.players_room(seat, before, limit)
    return private(jsonify({
        "match": seat.match_id, "seat": seat.seat,
        "messages": [message.as_json() for message in shown],
        "next": (url_for("talk_api.api_chat", token=token, before=next_before, limit=limit)
                 if next_before is not None else None),
        "muted": chat.is_muted(seat.match_id, seat.player_id)}))


@api_bp.post("/play/<token>/chat")
def api_chat_post(token: str) -> Response:
    seat = seat_for_token(token)
    body = _json_object()
    text = body.get("text")
    known_fields(body, ("text",))
    if not isinstance(text, str):
        raise InvalidRequestError(_('"text" must be a string: the message, plain text'))
    message = chat_mail.post_and_mail(seat, text, now(), via=Channel.API)
    shown = chat.Shown(message.id, seat.player.public_name, message.seat, message.text,
                       message.created_at, message.ply, True)
    response = private(jsonify(shown.as_json()))
    response.status_code = 201
    return response


@api_bp.get("/play/<token>/notes")
def api_notes(token: str) -> Response:
    seat = seat_for_token(token)
    return private(jsonify({"text": personal.notes_of(seat)}))


@api_bp.put("/play/<token>/notes")
def api_notes_put(token: str) -> Response:
    seat = seat_for_token(token)
    text = _json_object().get("text")
    if not isinstance(text, str):
        raise InvalidRequestError(_('"text" must be a string: the notes, plain text ("" clears '
                                    "them)"))
    return private(jsonify({"text": personal.save_notes(seat, text, now())}))


def _whole_arg(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    value = whole_number(raw)
    if value is None or value < 1:
        raise InvalidRequestError(_('"%(name)s" must be a whole number of 1 or more', name=name))
    return value


def _json_object() -> dict[str, Any]:
    if not request.is_json:
        raise InvalidRequestError(_("send a JSON body with Content-Type: application/json"))
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise InvalidRequestError(_("the body must be a JSON object: %(shape)s",
                                    shape='{"text": "..."}'))
    return body


def _retry_after(response: Response, error: PbemError) -> None:
    wait = getattr(error, "retry_after", None)
    if error.status == 429 and wait is not None:
        response.headers["Retry-After"] = str(max(1, int(wait.total_seconds() + 0.999)))


def init_app(app: Flask) -> None:
    for blueprint in (seat_bp, watch_bp, api_bp):
        app.register_blueprint(blueprint)
