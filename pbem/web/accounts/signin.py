"""Signing in by an emailed link: ask for a link, open it (GET shows a button), press it
(POST signs in), and sign out (which ends the session on the server)."""

from __future__ import annotations

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.core.accounts import signin
from pbem.core.accounts.limits import LimitReachedError
from pbem.core.accounts.models import SessionKind
from pbem.core.mailout import accounts as account_mail
from pbem.errors import InvalidRequestError
from pbem.i18n import _
from pbem.web.accounts.auth import current_player, safe_next, sign_in, sign_out
from pbem.web.site.clock import now

bp = Blueprint("signin", __name__)


@bp.get("/signin")
def form() -> str:
    return render_template("signin/form.html", error=None, email="",
                           next=safe_next(request.args.get("next"), ""))


@bp.post("/signin")
def send() -> tuple[str, int] | str:
    email = (request.form.get("email") or "")[:300]
    target = safe_next(request.form.get("next"), "")
    try:
        address = account_mail.request_sign_in_link(current_app.config["PBEM_SETTINGS"], email,
                                      request.remote_addr or "", now())
    except (InvalidRequestError, LimitReachedError) as error:
        status = 429 if isinstance(error, LimitReachedError) else 400
        return render_template("signin/form.html", error=str(error), email=email[:254],
                               next=target), status
    # The same answer whether or not the address has played here before.
    return render_template("signin/sent.html", email=address)


@bp.get("/signin/<token>")
def confirm(token: str) -> str:
    signin.usable_link(token, now())
    return render_template("signin/confirm.html", token=token,
                           next=safe_next(request.args.get("next"), ""))


@bp.post("/signin/<token>")
def redeem(token: str) -> Response:
    player = signin.redeem(token, now())
    sign_in(SessionKind.PLAYER, player=player)
    flash(_("Signed in as %(email)s.", email=player.email), "ok")
    return redirect(safe_next(request.form.get("next"), url_for("me.home")), 303)


@bp.post("/signout")
def signout() -> Response:
    if current_player() is not None:
        sign_out(SessionKind.PLAYER)
        flash(_("Signed out."), "ok")
    return redirect(url_for("signin.form"), 303)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
