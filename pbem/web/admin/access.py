"""Who may open which admin page, the one-time keys of admin forms, and the blueprint every
admin page module adds its routes to.

Roles: `admin` opens everything; `moderator` the queue and the matches. A signed-out request
is sent to the login page; a moderator asking for an admin's page gets a 403 page.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import peewee
from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.models import Admin, AdminRole
from pbem.core.admin.audit import MAX_KEY, AlreadyDoneError
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.web.accounts.auth import SignInRequiredError, current_admin
from pbem.web.site.flashes import redirect_with

bp = Blueprint("admin", __name__, url_prefix="/admin")
RowT = TypeVar("RowT", bound=peewee.Model)


def acted(action: Callable[[], str], endpoint: str, **values: Any) -> Response:
    """Do an admin form's action and go back to `endpoint` with what happened: the words the
    action returns, its refusal as an error, or, for a form sent twice (its one-time key was
    used already), that it was done before."""
    try:
        done = action()
    except AlreadyDoneError as error:
        return redirect_with(str(error), endpoint, **values)
    except PbemError as error:
        return redirect_with(str(error), endpoint, category="error", **values)
    return redirect_with(done, endpoint, **values)


def row_or_404(model: type[RowT], row_id: int) -> RowT:
    """The row an admin page's address names, or the 404 page."""
    found = model.get_or_none(model._meta.primary_key == row_id)
    if found is None:
        abort(404)
    return found


def current_staff() -> Admin | None:
    """The signed-in admin or moderator (a server-side session, see pbem.web.accounts.auth)."""
    return current_admin()


def actor() -> str:
    staff = current_staff()
    if staff is None:  # a view that forgot staff_required: refuse rather than act unnamed
        raise SignInRequiredError(_("Sign in as an admin first."))
    return staff.email


def staff_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Admins and moderators."""
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_staff() is None:
            return redirect(url_for("admin.login", next=request.path))
        return view(*args, **kwargs)
    return wrapped


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Admins only: players, mail, the audit log, metrics."""
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        staff = current_staff()
        if staff is None:
            return redirect(url_for("admin.login", next=request.path))
        if staff.role != AdminRole.ADMIN:
            return render_template("admin/forbidden.html"), 403
        return view(*args, **kwargs)
    return wrapped


def new_action_key() -> str:
    """A fresh key for one admin form (see pbem.core.admin.audit)."""
    return secrets.token_urlsafe(24)


def posted_action_key() -> str | None:
    return (request.form.get("action_key") or "").strip()[:MAX_KEY] or None


def template_globals() -> dict[str, Any]:
    return {"action_key": new_action_key, "current_staff": current_staff}
