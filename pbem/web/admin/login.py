"""Admin login and logout (a password per admin; `pbem admin create` makes one). Failed logins
are throttled per account and per client; a login starts a server-side session."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.admins import authenticate
from pbem.core.accounts.limits import Limit, LimitReachedError, release
from pbem.core.accounts.models import SessionKind
from pbem.web.accounts.auth import sign_in, sign_out
from pbem.web.admin.access import bp
from pbem.web.site.clock import now


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("admin/login.html", error=None)
    settings = current_app.config["PBEM_SETTINGS"]
    email = (request.form.get("email") or "").strip().lower()[:254]
    failures = Limit("admin-login", settings.login_failures_allowed,
                     timedelta(minutes=settings.rate_window_minutes), "failed logins")
    try:
        counted = failures.reserve([f"account:{email}", f"client:{request.remote_addr}"], now())
    except LimitReachedError as error:
        return render_template("admin/login.html", error=str(error)), 429
    admin = authenticate(email, request.form.get("password", ""))
    if admin is None:
        return render_template("admin/login.html", error="Wrong email or password."), 401
    release(counted)  # only failures count
    sign_in(SessionKind.ADMIN, admin=admin)
    target = request.args.get("next", "")
    # Only ever return to a page of this site.
    return redirect(target if target.startswith("/admin") else url_for("admin.queue"), 303)


@bp.post("/logout")
def logout() -> Response:
    sign_out(SessionKind.ADMIN)
    return redirect(url_for("admin.login"), 303)
