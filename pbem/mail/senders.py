"""Where mail goes: an SMTP server, or (no SMTP host configured) the development mailbox."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from typing import Protocol

from pbem.config import Settings


class DeliveryError(Exception):
    """Sending failed. `temporary` failures are retried with backoff; permanent ones are not."""

    def __init__(self, message: str, temporary: bool) -> None:
        super().__init__(message)
        self.temporary = temporary


class Sender(Protocol):
    def send(self, email: EmailMessage) -> None: ...


class DevMailboxSender:
    """Keeps nothing extra: a "sent" outbox row is the message, shown at /dev/mail."""

    def send(self, email: EmailMessage) -> None:
        return None


class SMTPSender:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, email: EmailMessage) -> None:
        settings = self.settings
        try:
            with smtplib.SMTP(settings.smtp_host, settings.smtp_port,
                              timeout=settings.smtp_timeout) as smtp:
                if settings.smtp_starttls:
                    smtp.starttls(context=ssl.create_default_context())
                if settings.smtp_user:
                    smtp.login(settings.smtp_user, settings.smtp_password)
                refused = smtp.send_message(email)
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            raise DeliveryError(f"recipient refused: {error.recipients}",
                                temporary=all(400 <= code < 500 for code in codes)) from error
        except smtplib.SMTPResponseException as error:
            raise DeliveryError(f"SMTP {error.smtp_code}: {error.smtp_error!r}",
                                temporary=not 500 <= error.smtp_code < 600) from error
        except (TimeoutError, smtplib.SMTPException, OSError) as error:
            raise DeliveryError(f"SMTP connection failed: {error}", temporary=True) from error
        if refused:
            raise DeliveryError(f"recipient refused: {refused}", temporary=False)


def sender_for(settings: Settings) -> Sender:
    return DevMailboxSender() if settings.uses_dev_mailbox else SMTPSender(settings)
