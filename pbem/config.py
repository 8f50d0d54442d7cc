"""Settings: a TOML file plus `PBEM_*` environment overrides, frozen into one value.

Precedence, lowest first: built-in defaults, the TOML file (`PBEM_CONFIG`, else `pbem.toml` in
the working directory if present), then environment variables named `PBEM_` + the upper-cased
key. Keys are plain lower-case names, the same as the fields below; see config.example.toml.
"""

from __future__ import annotations

import functools
import os
import secrets
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from pbem.addresses import AddressError, check_address, parse_sender
from pbem.errors import ConfigError
from pbem.keys import HOW_TO_MAKE_ONE, weakness


@dataclass(frozen=True)
class Settings:
    development: bool = False
    instance_path: str = "instance"
    database_url: str = ""
    base_url: str = "http://127.0.0.1:5000"
    secret_key: str = ""
    smtp_host: str = ""
    smtp_port: int = 25
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_starttls: bool = False
    smtp_timeout: int = 30
    mail_from: str = "pbem <pbem@localhost>"
    # A tick drains the outbox; between ticks mail waits. Short, so a move's mail leaves within
    # seconds and a busy outbox never stands idle long (at 10 s, 300 mails/s piled up 3,000
    # between ticks); a tick with nothing due is a claim that finds nothing (an indexed
    # statement) and the job's one-row record of its run.
    outbox_interval_seconds: int = 2
    outbox_max_attempts: int = 8
    outbox_batch_size: int = 50
    # Each tick sends batch after batch until nothing is due or this many seconds have passed
    # (then the next tick goes on): one tick never holds the worker's other jobs for long.
    outbox_slice_seconds: int = 30
    # How long a worker's claim on a batch holds before another may send it (a worker killed
    # mid-batch): long enough for a batch to a slow SMTP server.
    outbox_lease_seconds: int = 90
    # Days a sent mail can still be shown as sent (its params); the record is kept after.
    mail_retention_days: int = 7
    max_request_bytes: int = 64 * 1024
    # A page waiting for the other player's move asks the server this often whether it moved.
    page_poll_seconds: int = 10
    # A player seen on a match's page (or polling the API) within this many seconds is
    # looking at it: their "your turn" mail waits until they have been away this long (one
    # mail however many moves came meanwhile). 0: every turn mail goes at once.
    notify_away_seconds: int = 300
    # Web push (RFC 8292): the server's VAPID private key, a PEM text or the path of a PEM
    # file; empty: `pbem init` makes one in the instance folder (vapid_private_key.pem). The
    # subject tells push services whom to contact (empty: mailto: the mail_from address).
    vapid_private_key: str = ""
    vapid_subject: str = ""
    default_time_control: str = "3d"
    default_on_timeout: str = "adjudicate"
    deadline_interval_seconds: int = 60
    outage_grace_seconds: int = 600
    vacation_days_per_year: int = 14
    # Signed-in browsers (players and admins): ended after this long unused, and in any case
    # this long after signing in.
    session_idle_days: int = 14
    session_max_days: int = 90
    # Rate limits, each counted over `rate_window_minutes` and stored in the database so every
    # web process agrees: failed admin logins per client address and per account (the latter
    # only from browsers the admin never signed in from), sign-in mails per address and per
    # client address.
    rate_window_minutes: int = 15
    # How many reverse proxies in front of the web app set X-Forwarded-For (0: none). Rate
    # limits per client address need the real address, not the proxy's.
    trusted_proxies: int = 0
    login_failures_allowed: int = 5
    login_failures_per_account: int = 50
    signin_mails_per_address: int = 3
    signin_mails_per_client: int = 10
    # Challenges: how long an invitation stays open, how many a player may have pending, and
    # how many invitation mails a player may cause per day.
    challenge_expiry_days: int = 7
    max_pending_challenges: int = 10
    invitations_per_day: int = 20
    autoplay_limit: int = 3
    after_autoplay_limit: str = "adjudicate"
    # The computer's level (1 to 5) when it stands in for a late seat (the autoplay policy) or
    # takes over a seat an admin handed to it.
    autoplay_level: int = 2
    # How often the worker looks for the computer's moves to make, and how long one claim on
    # such a move holds (a worker that dies mid-thought leaves it to another after this).
    computer_interval_seconds: int = 2
    computer_lease_seconds: int = 60
    max_extension_days: int = 30
    # /healthz reports unhealthy when the worker's last sweep is older than this.
    health_max_heartbeat_seconds: int = 600
    # A Bearer token that may read /admin/metrics without an admin login (empty: none may).
    metrics_token: str = ""
    # The hour (UTC) of the daily mail to admins about queue entries older than a day.
    queue_digest_hour: int = 8
    # Reply by email (see pbem/mail/addresses.py and pbem/mail/inbound/).
    reply_address: str = ""
    inbound_require_sender_match: bool = True
    inbound_error_answers_per_hour: int = 3
    inbound_secret: str = ""
    imap_host: str = ""
    imap_port: int = 993
    imap_user: str = ""
    imap_password: str = ""
    imap_folder: str = "INBOX"
    # Where a message goes that could not be handled even as a refusal (a bug of ours): out
    # of the way, so it never blocks the messages after it; the admin's inbound page says so.
    imap_quarantine_folder: str = "pbem-quarantine"
    imap_tls: bool = True
    imap_interval_seconds: int = 30
    # Where bounces come back (pbem/mail/inbound/bounces.py): every mail's envelope sender is
    # this address with a signed tag for the mail, `bounces+<tag>@domain` (VERP). Empty:
    # `bounces@` the domain of `mail_from`.
    bounce_address: str = ""

    @property
    def uses_dev_mailbox(self) -> bool:
        """With no SMTP host, mail is kept in the database and shown on the dev mailbox page."""
        return not self.smtp_host

    @property
    def reply_base(self) -> str:
        """The address reply addresses are built from; in development, one at the mail domain
        so the development mailbox can reply without any setting."""
        if self.reply_address:
            return self.reply_address.strip()
        return f"play@{self.mail_domain}" if self.development else ""

    @property
    def bounce_base(self) -> str:
        """The address bounces come back to, before a mail's tag is added to it."""
        return self.bounce_address.strip() or f"bounces@{self.mail_domain}"

    @property
    def mail_domain(self) -> str:
        return parse_sender(self.mail_from)[1].rsplit("@", 1)[-1]


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: str | None = None,
) -> Settings:
    """Build the settings; `overrides` (tests, command-line flags) win over everything."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    path = config_file or environ.get("PBEM_CONFIG")
    if not path and Path("pbem.toml").is_file():
        path = "pbem.toml"
    if path:
        values.update(_read_toml(Path(path)))
    for field in fields(Settings):
        raw = environ.get(f"PBEM_{field.name.upper()}")
        if raw is not None:
            values[field.name] = raw
    values.update(overrides or {})
    settings = Settings(**{name: _coerce(name, value) for name, value in values.items()})
    _check_mail_from(settings.mail_from)
    _check_reply_address(settings.reply_address)
    return _finish(settings)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"configuration file {path} does not exist") from None
    except OSError as error:
        raise ConfigError(f"configuration file {path} cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"configuration file {path} is not valid TOML: {error}") from None
    known = {field.name for field in fields(Settings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}")
    return data


@functools.cache
def _field_types() -> dict[str, Any]:
    # The classes themselves: `field.type` is only the annotation's text under
    # `from __future__ import annotations`, and a class without it.
    return typing.get_type_hints(Settings)


def _coerce(name: str, value: Any) -> Any:
    types = _field_types()
    if name not in types:
        raise ConfigError(f"unknown setting {name!r}")
    kind = types[name]
    if kind is bool:
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word not in {"1", "0", "true", "false", "yes", "no", "on", "off", ""}:
            raise ConfigError(f"setting {name} must be true or false, not {value!r}")
        return word in {"1", "true", "yes", "on"}
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise ConfigError(f"setting {name} must be a whole number, not {value!r}") from None
    if kind is str:
        return str(value)
    raise ConfigError(f"setting {name} has a type pbem cannot read: {kind!r}")


def _check_mail_from(mail_from: str) -> None:
    try:
        parse_sender(mail_from)
    except AddressError as error:
        raise ConfigError(
            f"setting mail_from (PBEM_MAIL_FROM) is not a usable From address: {error}. "
            "Write one address, optionally with a name: 'pbem <games@example.org>'."
        ) from None


def _check_reply_address(reply_address: str) -> None:
    if not reply_address:
        return
    try:
        address = check_address(reply_address, dotted_domain=False)
    except AddressError as error:
        raise ConfigError(f"setting reply_address (PBEM_REPLY_ADDRESS) is not usable: {error}. "
                          "Write a bare address: 'play@games.example.org'.") from None
    if "." in address.split("@", 1)[0][-1:]:
        raise ConfigError("setting reply_address (PBEM_REPLY_ADDRESS) must not end its local "
                          "part with a dot: the reply key is added after a dot.")


def _finish(settings: Settings) -> Settings:
    if settings.after_autoplay_limit not in ("adjudicate", "forfeit"):
        raise ConfigError("setting after_autoplay_limit must be adjudicate or forfeit, not "
                          f"{settings.after_autoplay_limit!r}")
    if not 1 <= settings.autoplay_level <= 5:
        raise ConfigError(f"setting autoplay_level is a computer level from 1 to 5, not "
                          f"{settings.autoplay_level!r}")
    if not 1 <= settings.computer_interval_seconds <= 3600:
        raise ConfigError("setting computer_interval_seconds must be from 1 to 3600")
    if not 10 <= settings.computer_lease_seconds <= 3600:
        raise ConfigError("setting computer_lease_seconds must be from 10 to 3600")
    if not 1 <= settings.autoplay_limit <= 1000:
        raise ConfigError("setting autoplay_limit must be from 1 to 1000")
    if not 1 <= settings.page_poll_seconds <= 3600:
        raise ConfigError("setting page_poll_seconds must be from 1 to 3600")
    if not 0 <= settings.notify_away_seconds <= 86400:
        raise ConfigError("setting notify_away_seconds must be from 0 to 86400")
    if not 1 <= settings.max_extension_days <= 3650:
        raise ConfigError("setting max_extension_days must be from 1 to 3650")
    instance = Path(settings.instance_path).resolve()
    changes: dict[str, Any] = {"instance_path": str(instance)}
    if not settings.database_url:
        changes["database_url"] = f"sqlite:///{instance / 'pbem.sqlite3'}"
    changes["base_url"] = settings.base_url.rstrip("/")
    if not settings.secret_key:
        if not settings.development:
            raise ConfigError(
                "PBEM_SECRET_KEY is not set. It signs every player's private link; set it to a "
                f"long random value ({HOW_TO_MAKE_ONE}), "
                "or run in development mode (PBEM_DEVELOPMENT=1 or `pbem serve --dev`)."
            )
        changes["secret_key"] = _development_secret(instance)
    elif not settings.development and (reason := weakness(settings.secret_key)):
        raise ConfigError(
            f"PBEM_SECRET_KEY is too weak: {reason}. From one player's link a weak key can be "
            f"guessed offline and every link forged. Make a strong one with {HOW_TO_MAKE_ONE} "
            "(changing it revokes the links already sent)."
        )
    return replace(settings, **changes)


def _development_secret(instance: Path) -> str:
    # Kept in the instance folder so emailed links keep working across restarts in development.
    instance.mkdir(parents=True, exist_ok=True)
    key_file = instance / "dev-secret-key"
    if not key_file.exists():
        key_file.write_text(secrets.token_hex(32))
    return key_file.read_text().strip()
