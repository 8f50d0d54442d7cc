"""Admin login and logout (a password per admin; `pbem admin create` makes one).

Failed logins are throttled so that guessing is slow but a stranger cannot lock an admin out:

- per client address: `login_failures_allowed` (5) wrong passwords in the window, whatever the
  accounts tried, then that client waits;
- per account: `login_failures_per_account` (50) from browsers the admin has never signed in
  from, so guesses spread over many addresses are slowed too. A browser the admin signed in
  from before carries a signed *device cookie* (the OWASP "device cookies" defence) and is not
  held back by the account's count, only by its own client's: the admin's usual browser still
  signs in while a stranger is being refused.

A login starts a server-side session.
"""

from __future__ import annotations

import math
from datetime import timedelta

from flask import current_app, redirect, render_template, request, url_for
from itsdangerous import BadSignature, URLSafeTimedSerializer
from werkzeug.wrappers import Response

from pbem.core.accounts.admins import authenticate
from pbem.core.accounts.limits import Limit, LimitReachedError, release
from pbem.core.accounts.models import SessionKind
from pbem.i18n import _, ngettext
from pbem.web.accounts.auth import sign_in, sign_out
from pbem.web.admin.access import bp
from pbem.web.site.clock import now

DEVICE_COOKIE = "pbem_admin_device"
DEVICE_DAYS = 365


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("admin/login.html", error=None)
    settings = current_app.config["PBEM_SETTINGS"]
    email = (request.form.get("email") or "").strip().lower()[:254]
    window = timedelta(minutes=settings.rate_window_minutes)
    per_client = Limit("admin-login", settings.login_failures_allowed, window, "failed logins")
    per_account = Limit("admin-login-account", settings.login_failures_per_account, window,
                        "failed logins for this account from browsers it never signed in from")
    counted: list[int] = []
    tried = per_client
    try:
        counted += per_client.reserve([f"client:{request.remote_addr}"], now())
        if not _known_device(email):
            tried = per_account
            counted += per_account.reserve([f"account:{email}"], now())
    except LimitReachedError as error:
        release(counted)
        return render_template("admin/login.html",
                               error=_throttled(tried is per_account, error.retry_after)), 429
    admin = authenticate(email, request.form.get("password", ""))
    if admin is None:
        return render_template("admin/login.html", error=_("Wrong email or password.")), 401
    release(counted)  # only failures count
    sign_in(SessionKind.ADMIN, admin=admin)
    target = request.args.get("next", "")
    # Only ever return to a page of this site.
    response = redirect(target if target.startswith("/admin") else url_for("admin.queue"), 303)
    response.set_cookie(DEVICE_COOKIE, _devices().dumps(admin.email),
                        max_age=DEVICE_DAYS * 86_400, httponly=True, samesite="Lax",
                        secure=not settings.development, path="/admin")
    return response


@bp.post("/logout")
def logout() -> Response:
    # The device cookie stays: signing out does not make this browser a stranger.
    sign_out(SessionKind.ADMIN)
    return redirect(url_for("admin.login"), 303)


def _throttled(per_account: bool, wait: timedelta) -> str:
    """Why the login is refused for now, in the reader's language (the same words as
    `Limit.message`, whole sentences for the translators)."""
    minutes = max(1, math.ceil(wait.total_seconds() / 60))
    if per_account:
        return ngettext("Too many failed logins for this account from browsers it never signed "
                        "in from. Try again in %(num)s minute.",
                        "Too many failed logins for this account from browsers it never signed "
                        "in from. Try again in %(num)s minutes.", minutes)
    return ngettext("Too many failed logins. Try again in %(num)s minute.",
                    "Too many failed logins. Try again in %(num)s minutes.", minutes)


def _devices() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["PBEM_SETTINGS"].secret_key,
                                  salt="pbem-admin-device")


def _known_device(email: str) -> bool:
    """Whether this browser signed in as `email` before (a device cookie signed by us)."""
    cookie = request.cookies.get(DEVICE_COOKIE)
    if not cookie:
        return False
    try:
        signed = _devices().loads(cookie, max_age=DEVICE_DAYS * 86_400)
    except BadSignature:
        return False
    return bool(signed == email)
