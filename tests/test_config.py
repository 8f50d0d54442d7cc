"""Settings: defaults, the TOML file, PBEM_* overrides, and clear refusals."""

from __future__ import annotations

import dataclasses
import secrets
import sys
import types
from pathlib import Path

import pytest

from pbem.config import load_settings
from pbem.errors import ConfigError
from pbem.keys import weakness
from tests.conftest import STRONG_KEY

EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.toml"


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('base_url = "https://from.file/"\nsmtp_port = 2525\n'
                      f'secret_key = "{STRONG_KEY}"\n')
    settings = load_settings(environ={"PBEM_SMTP_PORT": "587", "PBEM_SMTP_STARTTLS": "yes",
                                      "PBEM_SMTP_HOST": "mail.example.org",
                                      "PBEM_INSTANCE_PATH": str(tmp_path)},
                             config_file=str(config))
    assert settings.base_url == "https://from.file"
    assert (settings.smtp_port, settings.smtp_starttls) == (587, True)
    assert settings.database_url == f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    assert not settings.uses_dev_mailbox


def test_every_documented_variable_is_read_from_the_environment(tmp_path: Path) -> None:
    environ = {
        "PBEM_DATABASE_URL": "postgresql://u@db/pbem", "PBEM_BASE_URL": "https://x.org",
        "PBEM_SECRET_KEY": STRONG_KEY, "PBEM_SMTP_HOST": "h", "PBEM_SMTP_PORT": "26",
        "PBEM_SMTP_USER": "u", "PBEM_SMTP_PASSWORD": "p", "PBEM_SMTP_STARTTLS": "1",
        "PBEM_MAIL_FROM": "Games <g@x.org>", "PBEM_INSTANCE_PATH": str(tmp_path),
    }
    settings = load_settings(environ=environ)
    assert (settings.database_url, settings.base_url, settings.secret_key) == (
        "postgresql://u@db/pbem", "https://x.org", STRONG_KEY)
    assert (settings.smtp_host, settings.smtp_port, settings.smtp_user,
            settings.smtp_password, settings.smtp_starttls) == ("h", 26, "u", "p", True)
    assert settings.mail_domain == "x.org"


def test_the_example_configuration_loads(tmp_path: Path) -> None:
    settings = load_settings({"secret_key": STRONG_KEY, "instance_path": str(tmp_path)},
                             environ={}, config_file=str(EXAMPLE))
    assert settings.smtp_port == 587 and not settings.development


def test_a_secret_key_is_required_outside_development(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY is not set"):
        load_settings({"instance_path": str(tmp_path)}, environ={})
    dev = load_settings({"instance_path": str(tmp_path)}, environ={"PBEM_DEVELOPMENT": "1"})
    again = load_settings({"instance_path": str(tmp_path)}, environ={"PBEM_DEVELOPMENT": "1"})
    assert dev.secret_key == again.secret_key, "development links survive a restart"
    assert dev.uses_dev_mailbox


@pytest.mark.parametrize(("content", "message"), [
    ("smtp_port = 'many'", "whole number"),
    ("colour = 'red'", "unknown setting"),
    ("this is not toml", "not valid TOML"),
    ("smtp_starttls = 'perhaps'", "true or false"),
])
def test_bad_configuration_is_refused_clearly(tmp_path: Path, content: str,
                                              message: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_settings({"secret_key": STRONG_KEY}, environ={}, config_file=str(config))


def test_a_missing_configuration_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(environ={"PBEM_CONFIG": str(tmp_path / "nope.toml")})


@pytest.mark.parametrize("key", [
    "changeme", "CHANGEME", "changeme2024", "secret", "Password1", "test", "dev", "example",
    "…", "x", "k" * 64, "ab" * 40, "0123456789" * 5, "1f" * 20, "a" * 42 + "b",
    "short-but-mixed-Key_42",
])
def test_weak_or_placeholder_secret_keys_are_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match="too weak") as refused:
        load_settings({"secret_key": key, "instance_path": str(tmp_path)}, environ={})
    assert "secrets.token_urlsafe(32)" in str(refused.value), "the message shows how to make one"
    with pytest.raises(ConfigError, match="too weak"):
        load_settings({"instance_path": str(tmp_path)}, environ={"PBEM_SECRET_KEY": key})


# Fresh keys each run, named by kind so that parallel test workers collect the same tests.
@pytest.mark.parametrize("key", [secrets.token_urlsafe(32), secrets.token_hex(32),
                                 secrets.token_urlsafe(64)],
                         ids=["urlsafe-32", "hex-32", "urlsafe-64"])
def test_strong_secret_keys_are_accepted(tmp_path: Path, key: str) -> None:
    settings = load_settings({"secret_key": key, "instance_path": str(tmp_path)}, environ={})
    assert settings.secret_key == key


def test_development_mode_needs_no_key_and_accepts_a_weak_one(tmp_path: Path) -> None:
    made = load_settings({"instance_path": str(tmp_path), "development": True}, environ={})
    assert weakness(made.secret_key) is None, "the generated development key is strong"
    weak = load_settings({"instance_path": str(tmp_path), "development": True,
                          "secret_key": "dev"}, environ={})
    assert weak.secret_key == "dev"
@pytest.mark.parametrize(("mail_from", "why"), [
    ("games@example.org, admin@example.org", "exactly one address"),
    ("pbem", "not an email address"),
    ("pbem <>", "not an address"),
    ("=?utf-8?q?Support?= <games@example.org>", "encoded word"),
    ("pbem <=?utf-8?q?admin=40bank.example?=@example.org>", "encoded words"),
    ("pbem <games@example.org>\r\nBcc: victim@example.org", "control characters"),
])
def test_a_malformed_mail_from_is_refused(tmp_path: Path, mail_from: str, why: str) -> None:
    with pytest.raises(ConfigError, match="PBEM_MAIL_FROM") as refused:
        load_settings({"development": True, "instance_path": str(tmp_path)},
                      environ={"PBEM_MAIL_FROM": mail_from})
    assert why in str(refused.value)


@pytest.mark.parametrize(("mail_from", "domain"), [
    ("Games <g@x.org>", "x.org"),
    ('"Games, the club" <g@Games.Example.ORG>', "games.example.org"),
    ("Jeux à distance <jeux@example.fr>", "example.fr"),
    ("pbem@localhost", "localhost"),
])
def test_mail_from_is_read_as_an_address(tmp_path: Path, mail_from: str, domain: str) -> None:
    settings = load_settings({"development": True, "instance_path": str(tmp_path)},
                             environ={"PBEM_MAIL_FROM": mail_from})
    assert settings.mail_domain == domain


def test_coercion_does_not_depend_on_postponed_annotations(tmp_path: Path) -> None:
    # Load config.py again without `from __future__ import annotations`: the dataclass fields
    # then carry real classes instead of their names, and must still be coerced the same way.
    import pbem.config

    source = Path(pbem.config.__file__).read_text()
    assert "from __future__ import annotations\n" in source
    module = types.ModuleType("pbem_config_eager")
    sys.modules[module.__name__] = module  # dataclasses look their module up while building
    try:
        exec(compile(source.replace("from __future__ import annotations\n", ""),
                     "config_eager.py", "exec", dont_inherit=True), module.__dict__)
        assert {field.type for field in dataclasses.fields(module.Settings)} == {bool, int, str}
        settings = module.load_settings(
            {"instance_path": str(tmp_path)},
            environ={"PBEM_DEVELOPMENT": "yes", "PBEM_SMTP_PORT": " 26 ",
                     "PBEM_SMTP_STARTTLS": "off", "PBEM_BASE_URL": "https://x.org/"})
    finally:
        del sys.modules[module.__name__]
    assert (settings.development, settings.smtp_port, settings.smtp_starttls) == (True, 26, False)
    assert settings.base_url == "https://x.org"
    with pytest.raises(ConfigError, match="whole number"):
        module.load_settings({"development": True, "instance_path": str(tmp_path)},
                             environ={"PBEM_SMTP_PORT": "many"})
