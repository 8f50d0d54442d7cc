"""Where mail goes: an SMTP server, or (no SMTP host configured) the development mailbox.

A sender opens a session for a batch: the SMTP session keeps one connection for the whole
batch and reconnects once if the server drops it mid-batch.
"""

from __future__ import annotations

import contextlib
import re
import smtplib
import ssl
from collections.abc import Callable, Iterator
from typing import Protocol

from pbem.config import Settings
from pbem.mail.wire import Outgoing

_LEADING_DOT = re.compile(rb"(?m)^\.")


class DeliveryError(Exception):
    """Sending failed. `temporary` failures are retried with backoff; permanent ones are not.
    A permanent refusal by the server (`bounce`) also marks the address undeliverable."""

    def __init__(self, message: str, temporary: bool, bounce: bool | None = None) -> None:
        super().__init__(message)
        self.temporary = temporary
        self.bounce = (not temporary) if bounce is None else bounce


# Work the outbox does while the server answers a message's envelope: called once when the
# envelope starts; what it returns (if anything) is called, to finish that work, before the
# message's bytes go.
Meanwhile = Callable[[], Callable[[], None] | None]


class Session(Protocol):
    """A batch's way to the server: `begin` hands a message over, `end` returns once the
    server accepted it (or raises `DeliveryError`); one message at a time. `begin` runs
    `meanwhile` (if given) while the server answers the envelope, where a session has one to
    send, and finishes it before the message's bytes go, so the outbox's own write overlaps
    that wait."""

    def begin(self, mail: Outgoing, meanwhile: Meanwhile | None = None) -> None: ...

    def end(self) -> None: ...


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
    """One connection for many messages, opened on first use.

    A message goes in two steps, `begin` and `end`, so the outbox can render the next
    message while the server takes in this one: `begin` carries it through MAIL, RCPT and
    DATA and writes its bytes, `end` reads the server's verdict. A server spends as long on
    taking in a message as the outbox spends rendering one, and this lets the two overlap
    instead of each waiting for the other. A message is only known to be accepted when `end`
    returns, so it is recorded as sent then, as before."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.smtp: smtplib.SMTP | None = None
        self.unreachable: DeliveryError | None = None
        self.awaiting = False  # a message was written and its final reply is not read yet

    def send(self, mail: Outgoing) -> None:
        self.begin(mail)
        self.end()

    def begin(self, mail: Outgoing, meanwhile: Meanwhile | None = None) -> None:
        """Hand `mail` to the server up to its final reply (which `end` reads). `meanwhile`
        starts once MAIL is written and is finished before DATA's bytes (or, if the
        connection cannot take the message, both happen before anything is sent); whatever
        it raises goes to the caller."""
        once = _Once(meanwhile)
        try:
            self._begin(mail, once)
        except _Failed:
            # The caller's work failed while the server held our MAIL: nothing more goes (the
            # work, a record, must come before the next message), and the connection, a
            # reply behind, is closed; the caller gets its own error below.
            self.close()
        finally:
            once.run_through()
        once.raise_failure()

    def _begin(self, mail: Outgoing, meanwhile: _Once) -> None:
        if self.unreachable is not None:
            raise self.unreachable  # no second 30-second timeout per message in this batch
        if self.awaiting:
            raise RuntimeError("begin() twice without end(): the first verdict would be lost")
        fresh = self.smtp is None
        try:
            self._hand_over(mail, meanwhile)
        except _Failed:
            raise
        except (smtplib.SMTPServerDisconnected, ConnectionError) as error:
            self.close()
            if fresh:
                raise self._unreachable(error) from error
            try:  # the server closed an idle or worn-out connection: one new one
                self._hand_over(mail, meanwhile)
            except _Failed:
                raise
            except Exception as again:
                raise self._failure(again) from again
        except Exception as error:
            raise self._failure(error) from error

    def end(self) -> None:
        """The server's verdict on the message `begin` handed over: returns if it took it,
        raises `DeliveryError` if not."""
        if not self.awaiting or self.smtp is None:
            raise RuntimeError("end() without a message handed over by begin()")
        self.awaiting = False
        try:
            code, reply = self.smtp.getreply()
        except (smtplib.SMTPServerDisconnected, OSError) as error:
            # The connection broke before the verdict. This message goes again later (the
            # server may or may not have kept it); the next one opens a new connection, as
            # `begin` does after an idle one was dropped, instead of failing the batch.
            self.close()
            raise DeliveryError(f"SMTP connection lost before the server's reply: {error}",
                                temporary=True) from error
        if code != 250:
            self._reset(code)
            raise self._failure(smtplib.SMTPDataError(code, reply))

    def _hand_over(self, mail: Outgoing, meanwhile: _Once) -> None:
        """What `smtplib.SMTP.sendmail` does for one recipient, stopping before the reply to
        the message's bytes; `meanwhile` runs between writing MAIL and reading its reply."""
        if self.smtp is None:
            self.smtp = self._connect()
        smtp = self.smtp
        smtp.ehlo_or_helo_if_needed()
        # As `smtp.mail` does it, with the caller's work done before the reply is read.
        optionlist = _mail_options(smtp, mail)
        # Addresses are checked on the way in (pbem.addresses: no spaces, brackets, commas or
        # quotes), so `<address>` is what `smtplib.quoteaddr` would make of them, without its
        # parse of each one.
        smtp.putcmd("mail", f"FROM:<{mail.sender}>{optionlist}")
        meanwhile()
        if meanwhile.failure is not None:
            raise _Failed
        code, reply = smtp.getreply()
        if code != 250:
            self._reset(code)
            raise smtplib.SMTPSenderRefused(code, reply, mail.sender)
        smtp.putcmd("rcpt", f"TO:<{mail.recipient}>")
        code, reply = smtp.getreply()
        if code not in (250, 251):
            self._reset(code)
            raise smtplib.SMTPRecipientsRefused({mail.recipient: (code, reply)})
        smtp.putcmd("data")
        code, reply = smtp.getreply()
        if code != 354:
            self._reset(code)
            raise smtplib.SMTPDataError(code, reply)
        data = _dot_stuffed(mail.data)
        meanwhile.finish()  # the caller's work (the last mail's record) is done before this goes
        if meanwhile.failure is not None:
            raise _Failed
        smtp.send(data + (b"" if data.endswith(b"\r\n") else b"\r\n") + b".\r\n")
        self.awaiting = True

    def _reset(self, code: int) -> None:
        """After a refusal, as `sendmail` does: 421 means the server is closing; otherwise
        RSET, so the connection can carry the next message."""
        if self.smtp is None:
            return
        if code == 421:
            self.close()
        else:
            with contextlib.suppress(smtplib.SMTPServerDisconnected):
                self.smtp.rset()

    def _failure(self, error: BaseException) -> DeliveryError:
        """`error` as the outbox records it (closing the connection if it is broken). Only a
        refusal of the recipient's address marks it undeliverable (a bounce): a refusal of
        our sender, our login or the message itself says nothing about the address."""
        if isinstance(error, DeliveryError):
            return error
        if isinstance(error, smtplib.SMTPRecipientsRefused):
            codes = [code for code, _ in error.recipients.values()]
            return DeliveryError(f"recipient refused: {error.recipients}",
                                 temporary=all(400 <= code < 500 for code in codes))
        if isinstance(error, (smtplib.SMTPAuthenticationError, smtplib.SMTPConnectError,
                              smtplib.SMTPHeloError, smtplib.SMTPNotSupportedError)):
            # The server, not this message: a wrong password or a refusing server is put
            # right by its operator, and the mail waits for that (retried with backoff).
            self.close()
            return self._unreachable(error)
        if isinstance(error, smtplib.SMTPResponseException):
            permanent = 500 <= error.smtp_code < 600
            reply = (error.smtp_error.decode("utf-8", "replace")
                     if isinstance(error.smtp_error, bytes) else str(error.smtp_error))
            # After DATA, only an enhanced status of 5.1.x (RFC 3463: the address) bounces.
            bounce = (permanent and isinstance(error, smtplib.SMTPDataError)
                      and reply.startswith("5.1."))
            return DeliveryError(f"SMTP {error.smtp_code}: {error.smtp_error!r}",
                                 temporary=not permanent, bounce=bounce)
        if isinstance(error, (TimeoutError, smtplib.SMTPException, OSError)):
            self.close()
            return self._unreachable(error)
        raise error

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
        self.awaiting = False
        if self.smtp is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self.smtp.quit()
            with contextlib.suppress(OSError):
                self.smtp.close()
            self.smtp = None


class _Once:
    """Starts `action` the first time it is called, and never again, and `finish` finishes
    it once; what either raised is kept in `failure`, for `begin` to raise as it is (not as
    an SMTP error)."""

    def __init__(self, action: Meanwhile | None) -> None:
        self.action = action
        self.finishing: Callable[[], None] | None = None
        self.failure: Exception | None = None

    def __call__(self) -> None:
        action, self.action = self.action, None
        if action is not None:
            try:
                self.finishing = action()
            except Exception as error:
                self.failure = error

    def finish(self) -> None:
        finishing, self.finishing = self.finishing, None
        if finishing is not None:
            try:
                finishing()
            except Exception as error:
                self.failure = self.failure or error

    def run_through(self) -> None:
        """Start it if nothing did, and finish it: whatever happened to the message."""
        self()
        self.finish()

    def raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure


class _Failed(Exception):
    """The caller's `meanwhile` failed: stop handing the message over."""


class _OneByOne:
    """The session of a sender that has none: each message is sent whole in `begin`."""

    def __init__(self, sender: Sender) -> None:
        self.sender = sender

    def begin(self, mail: Outgoing, meanwhile: Meanwhile | None = None) -> None:
        once = _Once(meanwhile)
        once.run_through()
        once.raise_failure()
        self.sender.send(mail)

    def end(self) -> None:
        return None


@contextlib.contextmanager
def open_session(sender: Sender) -> Iterator[Session]:
    """A batch session for any sender (one that has no `session()` sends one by one)."""
    opener = getattr(sender, "session", None)
    if opener is None:
        yield _OneByOne(sender)
        return
    with opener() as session:
        yield session


def sender_for(settings: Settings) -> Sender:
    return DevMailboxSender() if settings.uses_dev_mailbox else SMTPSender(settings)


def _mail_options(smtp: smtplib.SMTP, mail: Outgoing) -> str:
    """The MAIL command's options for this message (its size, and SMTPUTF8 for an address
    that is not ASCII), as `smtp.mail` writes them; DeliveryError when the server cannot carry
    such an address."""
    options: list[str] = []
    if not (mail.sender + mail.recipient).isascii():
        if not smtp.has_extn("smtputf8"):
            raise DeliveryError(f"{mail.recipient!r} or {mail.sender!r} is not ASCII, and "
                                "the SMTP server does not offer SMTPUTF8 to carry it",
                                temporary=False, bounce=False)
        options = ["SMTPUTF8", "BODY=8BITMIME"]
    if smtp.does_esmtp and smtp.has_extn("size"):
        options.insert(0, f"size={len(mail.data)}")
    if not (options and smtp.does_esmtp):
        return ""
    if "SMTPUTF8" in options:
        smtp.command_encoding = "utf-8"  # the server offers it (checked above)
    return " " + " ".join(options)


def _dot_stuffed(data: bytes) -> bytes:
    """The message as `SMTP.data` writes it: a line starting with "." doubled (the lone "."
    ends it). The outbox's lines never start with one (base64 bodies, folded headers), so the
    regular expression seldom runs."""
    if data.startswith(b".") or b"\n." in data:
        return _LEADING_DOT.sub(b"..", data)
    return data
