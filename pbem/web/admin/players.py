"""Players: search by address or name; a player's matches, mail status, sessions and tokens,
and the actions an admin takes for them."""

from __future__ import annotations

from flask import abort, render_template, request

from pbem.core import console
from pbem.core.models import MessageStatus, OutboxMessage, Player, Seat
from pbem.errors import PbemError
from pbem.web.admin.access import admin_required, bp


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
    found = Player.get_or_none(Player.id == player_id)
    if found is None:
        abort(404)
    seats = list(Seat.select(Seat).where(Seat.player == found).order_by(Seat.id.desc()))
    mails = list(OutboxMessage.select().where(OutboxMessage.to_address == found.email)
                 .order_by(OutboxMessage.id.desc()).limit(50))
    failed = sum(m.status == MessageStatus.FAILED for m in mails)
    return render_template("admin/player.html", player=found, seats=seats, mails=mails,
                           failed=failed)
