"""Admin accounts: email, a salted password hash (werkzeug's scrypt) and a role (`admin`:
everything; `moderator`: the queue and the matches only)."""

from __future__ import annotations

import functools
from datetime import datetime

from werkzeug.security import check_password_hash, generate_password_hash

from pbem.addresses import check_address
from pbem.core.accounts.models import Admin, AdminRole
from pbem.core.accounts.sessions import end_admin_sessions
from pbem.errors import InvalidRequestError
from pbem.i18n import _

MIN_PASSWORD = 10
# werkzeug's scrypt at its own default strength (N=2**15, r=8, p=1: 32 MiB, a few tenths of a
# second). The tests swap in a cheaper N (tests/conftest.py): they log in hundreds of times.
PASSWORD_METHOD = "scrypt:32768:8:1"


def create_admin(email: str, password: str, now: datetime,
                 role: str = AdminRole.ADMIN) -> Admin:
    address = check_address(email, dotted_domain=False)
    if len(password) < MIN_PASSWORD:
        raise InvalidRequestError(_("The password needs at least %(min)s characters.",
                                    min=MIN_PASSWORD))
    if role not in tuple(AdminRole):
        raise InvalidRequestError(_("%(role)r is not a role (one of: %(roles)s)", role=role,
                                    roles=", ".join(AdminRole)))
    admin = Admin.get_or_none(Admin.email == address)
    if admin is None:
        return Admin.create(email=address, created_at=now, role=role,
                            password_hash=generate_password_hash(password, method=PASSWORD_METHOD))
    admin.password_hash = generate_password_hash(password, method=PASSWORD_METHOD)
    admin.role = role
    admin.save()
    # A new password must shut out whoever knew the old one, including their open browsers.
    end_admin_sessions(admin)
    return admin


def authenticate(email: str, password: str) -> Admin | None:
    admin = Admin.get_or_none(Admin.email == (email or "").strip().lower())
    if admin is None:
        check_password_hash(_dummy_hash(), password or "")
        return None
    return admin if check_password_hash(admin.password_hash, password or "") else None


def _dummy_hash() -> str:
    """Checked when the email is unknown, so a wrong address takes as long as a wrong password.

    Made on first use, not at import: scrypt takes 32 MiB and up to 0.3 s, which every process
    (worker, shell commands) would pay at start-up though few ever check a password.
    """
    return _dummy_hash_by(PASSWORD_METHOD)


@functools.cache
def _dummy_hash_by(method: str) -> str:
    return generate_password_hash("not-a-real-password", method=method)


def admins_to_mail() -> list[str]:
    """Every admin and moderator: the queue is theirs to watch."""
    return [admin.email for admin in Admin.select(Admin.email).order_by(Admin.id)]
