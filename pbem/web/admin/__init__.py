"""The admin console, one module per page: the queue and rulings (`queue`), matches,
players, mail, chat reports, the audit log and metrics; `access` holds the roles and the
blueprint, `login` the login. Every form is CSRF-protected and carries a one-time action key."""

from __future__ import annotations

from flask import Flask

from pbem.web.admin import audit, login, mail, matches, metrics, players, queue, reports
from pbem.web.admin.access import bp, template_globals
from pbem.web.admin.words import admin_word, ruling_text

PAGES = (audit, login, mail, matches, metrics, players, queue, reports)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    bp_globals = template_globals()
    app.jinja_env.globals.update(admin_action_key=bp_globals["action_key"],
                                 current_staff=bp_globals["current_staff"],
                                 admin_word=admin_word, ruling_text=ruling_text)
