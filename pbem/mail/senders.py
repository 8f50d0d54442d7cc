"""Where mail goes: an SMTP server, or (no SMTP host configured) the development mailbox.

A sender opens a session for a batch: the SMTP session keeps one connection for the whole
batch and reconnects once if the server drops it mid-batch.
"""

from __future__ import annotations

import contextlib
import smtplib
import ssl
from collections.abc import Iterator
from typing import Protocol

from pbem.config import Settings
from pbem.mail.wire import Outgoing


class DeliveryError(Exception):
    """Sending failed. `temporary` failures are retried with backoff; permanent ones are not.
    A permanent refusal by the server (`bounce`) also marks the address undeliverable."""

    def __init__(self, message: str, temporary: bool, bounce: bool | None = None) -> None:
        super().__init__(message)
        self.temporary = temporary
        self.bounce = (not temporary) if bounce is None else bounce


class Session(Protocol):
    def send(self, mail: Outgoing) -> None: ...


class Sender(Protocol):
    def send(self, mail: Outgoing) -> None: ...


class DevMailboxSender:
    """Keeps nothing extra: a "sent" outbox row is the message, shown at /dev/mail."""

    def send(self, mail: Outgoing) -> None:
        return None


class SMTPSender:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, mail: Outgoing) -> None:
        with self.session() as session:
            session.send(mail)

    @contextlib.contextmanager
    def session(self) -> Iterator[SMTPSession]:
        session = SMTPSession(self.settings)
        try:
            yield session
        finally:
            session.close()


class SMTPSession:
    """One connection for many messages, opened on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.smtp: smtplib.SMTP | None = None
        self.unreachable: DeliveryError | None = None

    def send(self, mail: Outgoing) -> None:
        if self.unreachable is not None:
            raise self.unreachable  # no second 30-second timeout per message in this batch
        fresh = self.smtp is None
        try:
            self._send(mail)
        except (smtplib.SMTPServerDisconnected, ConnectionError) as error:
            self.close()
            if fresh:
                raise self._unreachable(error) from error
            try:  # the server closed an idle or worn-out connection: one new one
                self._send(mail)
            except (TimeoutError, smtplib.SMTPServerDisconnected, OSError) as again:
                self.close()
                raise self._unreachable(again) from again
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            raise DeliveryError(f"recipient refused: {error.recipients}",
                                temporary=all(400 <= code < 500 for code in codes)) from error
        except smtplib.SMTPResponseException as error:
            raise DeliveryError(f"SMTP {error.smtp_code}: {error.smtp_error!r}",
                                temporary=not 500 <= error.smtp_code < 600) from error
        except (TimeoutError, smtplib.SMTPException, OSError) as error:
            self.close()
            raise self._unreachable(error) from error

    def _send(self, mail: Outgoing) -> None:
        if self.smtp is None:
            self.smtp = self._connect()
        options: tuple[str, ...] = ()
        if not (mail.sender + mail.recipient).isascii():
            self.smtp.ehlo_or_helo_if_needed()
            if not self.smtp.has_extn("smtputf8"):
                raise DeliveryError(f"{mail.recipient!r} or {mail.sender!r} is not ASCII, and "
                                    "the SMTP server does not offer SMTPUTF8 to carry it",
                                    temporary=False, bounce=False)
            options = ("SMTPUTF8", "BODY=8BITMIME")
        refused = self.smtp.sendmail(mail.sender, [mail.recipient], mail.data, options)
        if refused:
            raise DeliveryError(f"recipient refused: {refused}", temporary=False)

    def _connect(self) -> smtplib.SMTP:
        settings = self.settings
        smtp = smtplib.SMTP(settings.smtp_host, settings.smtp_port,
                            timeout=settings.smtp_timeout)
        try:
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _unreachable(self, error: BaseException) -> DeliveryError:
        self.unreachable = DeliveryError(f"SMTP connection failed: {error}", temporary=True)
        return self.unreachable

    def close(self) -> None:
        if self.smtp is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self.smtp.quit()
            with contextlib.suppress(OSError):
                self.smtp.close()
            self.smtp = None


@contextlib.contextmanager
def open_session(sender: Sender) -> Iterator[Session]:
    """A batch session for any sender (one that has no `session()` sends one by one)."""
    opener = getattr(sender, "session", None)
    if opener is None:
        yield sender
        return
    with opener() as session:
        yield session


def sender_for(settings: Settings) -> Sender:
    return DevMailboxSender() if settings.uses_dev_mailbox else SMTPSender(settings)
