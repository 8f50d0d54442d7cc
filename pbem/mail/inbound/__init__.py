"""Reply by email: one pipeline for every way a message comes in.

`pbem inbound` (a mail server's pipe), the worker's IMAP polling and `POST /inbound/mime` all
hand the raw message to `handle()`, which reads it (`reading`, `text`) and passes what it
found to the core service (`pbem.core.mailin.replies.receive`), which acts exactly once per message.
"""

from __future__ import annotations

from pbem.mail.inbound.pipeline import TEMPORARY_ERRORS, handle

__all__ = ["TEMPORARY_ERRORS", "handle"]
