"""Players: search by address or name; a player's matches, mail status, sessions and tokens,
and the actions an admin takes for them (new links, end sessions, block new challenges)."""

from __future__ import annotations

from flask import current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.core.accounts import api_tokens, sessions
from pbem.core.accounts.models import Player
from pbem.core.admin import chat as chat_admin
from pbem.core.admin import console
from pbem.core.admin import players as player_admin
from pbem.core.mailout.accounts import is_suppressed
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.models import Seat
from pbem.errors import PbemError
from pbem.i18n import _, ngettext
from pbem.web.admin.access import acted, actor, admin_required, bp, posted_action_key, row_or_404
from pbem.web.site.clock import now


@bp.get("/players")
@admin_required
def players() -> str | tuple[str, int]:
    text = (request.args.get("q") or "").strip()
    try:
        found = console.find_players(text)
    except PbemError as error:
        return render_template("admin/players.html", found=[], q=text, error=str(error)), 422
    return render_template("admin/players.html", found=found, q=text, error=None)


@bp.get("/players/<int:player_id>")
@admin_required
def player(player_id: int) -> str:
    found = row_or_404(Player, player_id)
    seats = list(Seat.select(Seat).where(Seat.player == found).order_by(Seat.id.desc()))
    mails = list(OutboxMessage.select().where(OutboxMessage.to_address == found.email)
                 .order_by(OutboxMessage.id.desc()).limit(50))
    failed = sum(m.status == MessageStatus.FAILED for m in mails)
    return render_template("admin/player.html", player=found, seats=seats, mails=mails,
                           failed=failed, suppressed=is_suppressed(found.email),
                           sessions=sessions.player_sessions(found),
                           tokens=api_tokens.tokens_of(found))


@bp.post("/players/<int:player_id>/<any(links, sessions, block, unblock, deliverable, "
         "chatbar, chatunbar):action>")
@admin_required
def player_action(player_id: int, action: str) -> Response:
    key = posted_action_key()
    reason = (request.form.get("reason") or "").strip()[:500]
    return acted(lambda: _act(player_id, action, reason, key), "admin.player",
                 player_id=player_id)


def _act(player_id: int, action: str, reason: str, key: str | None) -> str:
    """Do one of the player page's actions; what it did, in the admin's words."""
    if action == "links":
        secret = current_app.config["PBEM_SETTINGS"].secret_key
        sent = player_admin.resend_links(secret, player_id, actor(), now(), key)
        return ngettext("%(num)s new seat link emailed; the old one no longer works.",
                        "%(num)s new seat links emailed; the old ones no longer work.", sent)
    if action == "sessions":
        ended = player_admin.revoke_sessions(player_id, actor(), now(), key)
        return ngettext("%(num)s session ended.", "%(num)s sessions ended.", ended)
    if action in ("chatbar", "chatunbar"):
        chat_admin.set_barred(player_id, action == "chatbar", actor(), reason, now(), key)
        return (_("Barred from the chat (they still play).") if action == "chatbar"
                else _("Free to write in the chat again."))
    if action == "deliverable":
        player_admin.clear_undeliverable(player_id, actor(), now(), key)
        return _("The undeliverable mark is cleared; mail goes out again.")
    player_admin.set_blocked(player_id, action == "block", actor(), reason, now(), key)
    return (_("Blocked from starting challenges and seeks.") if action == "block"
            else _("Free to start challenges again."))
