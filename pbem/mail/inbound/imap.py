"""IMAP polling (the worker's `inbox` job): each unseen message in the folder goes through the
same pipeline as the pipe and the HTTP endpoint, and is marked seen once handled; one that
could not be handled even as a refusal is moved to the quarantine folder.

A message is marked seen only after its handling committed, and handling is exactly once per
Message-ID: a crash between the two means the next poll meets it again and finds it already
done. A message that could not be handled now (database down) stays unseen, and the batch
stops there, so nothing is lost or applied twice.
"""

from __future__ import annotations

import imaplib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted, MailMessageFlags
from imap_tools.errors import MailboxLoginError

from pbem.config import Settings
from pbem.mail.inbound.pipeline import TEMPORARY_ERRORS, handle
from pbem.mail.inbound.reading import MAX_BYTES

log = logging.getLogger(__name__)
TIMEOUT = 30


@dataclass(frozen=True)
class PollReport:
    handled: int = 0
    left: int = 0      # unseen messages left for the next poll (database trouble, a bug)
    error: str = ""    # why the mailbox could not be read at all


def poll(settings: Settings, clock: Callable[[], datetime], limit: int = 50) -> PollReport:
    try:
        with _mailbox(settings) as mailbox:
            mailbox.folder.set(settings.imap_folder)
            uids = mailbox.uids(AND(seen=False))
            return _handle_all(mailbox, uids[:limit], settings, clock)
    except (TimeoutError, MailboxLoginError, imaplib.IMAP4.error, OSError) as error:
        log.warning("inbox: cannot read %s@%s: %s", settings.imap_user, settings.imap_host,
                    error)
        return PollReport(error=str(error))


def _handle_all(mailbox: BaseMailBox, uids: list[str], settings: Settings,
                clock: Callable[[], datetime]) -> PollReport:
    handled = 0
    for position, uid in enumerate(uids):
        raw = _raw(mailbox, uid)
        if raw is None:
            continue  # deleted meanwhile
        try:
            receipt = handle(raw, settings, "imap", clock())
        except TEMPORARY_ERRORS as error:
            log.warning("inbox: database unreachable (%s); %s message(s) left for later",
                        error, len(uids) - position)
            return PollReport(handled, len(uids) - position)
        except Exception:
            # Not even a refusal could be recorded: move it aside so it never blocks the
            # next ones (the quarantine folder), and keep going.
            log.exception("inbox: could not handle message %s; moved to %s", uid,
                          settings.imap_quarantine_folder)
            _quarantine(mailbox, uid, settings.imap_quarantine_folder)
            continue
        mailbox.flag(uid, MailMessageFlags.SEEN, True)
        handled += 1
        log.debug("inbox: message %s: %s", uid, receipt.action)
    return PollReport(handled, len(uids) - handled)


def _quarantine(mailbox: BaseMailBox, uid: str, folder: str) -> None:
    try:
        if not mailbox.folder.exists(folder):
            mailbox.folder.create(folder)
        mailbox.move(uid, folder)
    except (imaplib.IMAP4.error, OSError) as error:  # at least never read it again
        log.warning("inbox: could not move message %s aside (%s); marked seen", uid, error)
        mailbox.flag(uid, MailMessageFlags.SEEN, True)


def _raw(mailbox: BaseMailBox, uid: str) -> bytes | None:
    # PEEK keeps the message unseen until it is handled; the partial fetch stops one byte past
    # the size limit, so an oversized message is never downloaded whole.
    status, data = mailbox.client.uid("FETCH", uid, f"(BODY.PEEK[]<0.{MAX_BYTES + 1}>)")
    if status != "OK":
        return None
    for item in data:
        if isinstance(item, tuple) and len(item) == 2:
            return bytes(item[1])
    return None


def _mailbox(settings: Settings) -> BaseMailBox:
    kind = MailBox if settings.imap_tls else MailBoxUnencrypted
    mailbox = kind(settings.imap_host, settings.imap_port, timeout=TIMEOUT)
    return mailbox.login(settings.imap_user, settings.imap_password, initial_folder=None)
