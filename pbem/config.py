"""Settings: a TOML file plus `PBEM_*` environment overrides, frozen into one value.

Precedence, lowest first: built-in defaults, the TOML file (`PBEM_CONFIG`, else `pbem.toml` in
the working directory if present), then environment variables named `PBEM_` + the upper-cased
key. Keys are plain lower-case names, the same as the fields below; see config.example.toml.
"""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from pbem.errors import ConfigError


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
    outbox_interval_seconds: int = 10
    outbox_max_attempts: int = 8
    outbox_batch_size: int = 50
    # Days a sent mail can still be shown as sent (its params); the record is kept after.
    mail_retention_days: int = 7
    max_request_bytes: int = 64 * 1024
    default_time_control: str = "3d"
    default_on_timeout: str = "adjudicate"
    deadline_interval_seconds: int = 60
    outage_grace_seconds: int = 600
    vacation_days_per_year: int = 14

    @property
    def uses_dev_mailbox(self) -> bool:
        """With no SMTP host, mail is kept in the database and shown on the dev mailbox page."""
        return not self.smtp_host

    @property
    def mail_domain(self) -> str:
        address = self.mail_from.rsplit("<", 1)[-1].rstrip(">").strip()
        return address.rsplit("@", 1)[-1] if "@" in address else "localhost"


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
    return _finish(settings)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"configuration file {path} does not exist") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"configuration file {path} is not valid TOML: {error}") from None
    known = {field.name for field in fields(Settings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}")
    return data


def _coerce(name: str, value: Any) -> Any:
    types = {field.name: field.type for field in fields(Settings)}
    if name not in types:
        raise ConfigError(f"unknown setting {name!r}")
    kind = types[name]
    if kind == "bool" and not isinstance(value, bool):
        word = str(value).strip().lower()
        if word not in {"1", "0", "true", "false", "yes", "no", "on", "off", ""}:
            raise ConfigError(f"setting {name} must be true or false, not {value!r}")
        return word in {"1", "true", "yes", "on"}
    if kind == "int" and not isinstance(value, int):
        try:
            return int(str(value).strip())
        except ValueError:
            raise ConfigError(f"setting {name} must be a whole number, not {value!r}") from None
    return value if kind != "str" else str(value)


def _finish(settings: Settings) -> Settings:
    instance = Path(settings.instance_path).resolve()
    changes: dict[str, Any] = {"instance_path": str(instance)}
    if not settings.database_url:
        changes["database_url"] = f"sqlite:///{instance / 'pbem.sqlite3'}"
    changes["base_url"] = settings.base_url.rstrip("/")
    if not settings.secret_key:
        if not settings.development:
            raise ConfigError(
                "PBEM_SECRET_KEY is not set. It signs every player's private link; set it to a "
                "long random value (python -c 'import secrets; print(secrets.token_hex(32))'), "
                "or run in development mode (PBEM_DEVELOPMENT=1 or `pbem serve --dev`)."
            )
        changes["secret_key"] = _development_secret(instance)
    return replace(settings, **changes)


def _development_secret(instance: Path) -> str:
    # Kept in the instance folder so emailed links keep working across restarts in development.
    instance.mkdir(parents=True, exist_ok=True)
    key_file = instance / "dev-secret-key"
    if not key_file.exists():
        key_file.write_text(secrets.token_hex(32))
    return key_file.read_text().strip()
