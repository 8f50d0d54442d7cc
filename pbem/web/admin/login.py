"""Admin login and logout (a password per admin; `pbem admin create` makes one)."""

from __future__ import annotations

from flask import redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from pbem.core.admins import authenticate
from pbem.web.admin.access import bp


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("admin/login.html", error=None)
    admin = authenticate(request.form.get("email", ""), request.form.get("password", ""))
    if admin is None:
        return render_template("admin/login.html", error="Wrong email or password."), 401
    session.clear()
    session["admin"] = admin.email
    target = request.args.get("next", "")
    # Only ever return to a page of this site.
    return redirect(target if target.startswith("/admin") else url_for("admin.queue"), 303)


@bp.post("/logout")
def logout() -> Response:
    session.clear()
    return redirect(url_for("admin.login"), 303)
