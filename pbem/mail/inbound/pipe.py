"""`pbem inbound`: one message on standard input, from a mail server's pipe transport.

Exit status follows sysexits, as Postfix, Exim and procmail expect: 0 when the message was
handled, refused or ignored (bouncing would only send mail to a stranger), 75 (EX_TEMPFAIL)
when it could not be handled now (the database is down, the configuration is broken), so the
mail server keeps it and tries again.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import BinaryIO

from pbem.clock import clock_for
from pbem.config import Settings
from pbem.core.db.connection import bind_database, database
from pbem.errors import ConfigError
from pbem.mail.inbound.pipeline import TEMPORARY_ERRORS, handle
from pbem.mail.inbound.reading import MAX_BYTES

EX_OK = 0
EX_TEMPFAIL = 75
log = logging.getLogger(__name__)


def run(stream: BinaryIO, load_settings: Callable[[], Settings],
        recipient: str | None = None) -> int:
    # One byte past the limit is enough to know a message is oversized.
    raw = stream.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        while stream.read(1 << 16):  # drain it, so the mail server sees a clean exit
            pass
    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"pbem inbound: {error}", file=sys.stderr)
        return EX_TEMPFAIL
    try:
        bind_database(settings.database_url)
        with database.connection_context():
            receipt = handle(raw, settings, "pipe", clock_for(settings)(), recipient=recipient)
    except TEMPORARY_ERRORS as error:
        print(f"pbem inbound: cannot reach the database now ({error}); try again later",
              file=sys.stderr)
        return EX_TEMPFAIL
    except Exception:
        # Not even a refusal could be recorded. Asking the mail server to retry would bring
        # the same message back for days: it is logged, and the exit says it was taken.
        log.exception("pbem inbound: could not handle the message; dropped after logging")
        return EX_OK
    print(f"pbem inbound: {receipt.action}"
          + (f" (match {receipt.match_id}, seat {receipt.seat})" if receipt.match_id else "")
          + (f": {receipt.detail}" if receipt.detail else ""), file=sys.stderr)
    return EX_OK
