"""One thread per match for each player (`core/mailout/threads.py`): a table `mail_thread`
keeping each thread's subject, fixed when its first mail was written, and the outbox row a
new thread starts at. Adds the table and nothing else."""

from __future__ import annotations

from typing import Any

from peewee import DateTimeField, ForeignKeyField, IntegerField, Model, TextField


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class MailThread(Base):
        match = ForeignKeyField(Match, backref="mail_threads", on_delete="CASCADE",
                                index=False)
        seat = IntegerField()
        part = IntegerField()
        subject = TextField()
        first_message = IntegerField()
        created_at = DateTimeField()

        class Meta:
            table_name = "mail_thread"
            indexes = ((("match", "seat", "part"), True),)

    db.create_tables([MailThread], safe=True)
