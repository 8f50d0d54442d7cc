"""A lean outbox: rows name what to render (match, seat, ply, small params), never a rendered
body, so no seat link is stored and a finished match no longer leaves megabytes of mail behind.

Rows already in the table keep their record (recipient, subject, status, times); a message
still waiting is given the ply it was written at, so it renders from that position.
"""

from __future__ import annotations

import json
from typing import Any

from peewee import IntegerField, TextField

from pbem.core.db.migrations.helpers import add_column_once, has_column

TABLE = "outbox_message"


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, TABLE, "ply", IntegerField(null=True))
    add_column_once(migrator, db, TABLE, "params", TextField(null=True))
    if has_column(db, TABLE, "context"):
        _carry_over_waiting_messages(db)
    for column in ("body_html", "body_text", "context", "in_reply_to"):
        if has_column(db, TABLE, column):
            migrator.migrate(migrator.drop_column(TABLE, column))


def _carry_over_waiting_messages(db: Any) -> None:
    rows = db.execute_sql(f"SELECT id, context FROM {TABLE} WHERE status <> 'sent'").fetchall()
    for row_id, raw in rows:
        context = json.loads(raw) if raw else {}
        deadline = (context.get("deadline") or {}).get("at")
        params = {"deadline": deadline[:-1]} if deadline else {}
        db.execute_sql(f"UPDATE {TABLE} SET ply = %s, params = %s WHERE id = %s"
                       .replace("%s", db.param),
                       (context.get("ply"), json.dumps(params), row_id))
