"""Fixtures for the reply-by-email tests: settings with a reply address, the pipe's
environment, the app, and a real Dovecot IMAP server on loopback."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.config import Settings
from tests.conftest import STRONG_KEY, SUPPORT_TEMPLATES, Clock, free_port, make_settings

REPLY_BASE = "play@pbem.test"
INBOUND_SECRET = "tY7_inbound-secret-for-tests-only-Qm3"


@pytest.fixture
def mail_settings(db_url: str, tmp_path: Path) -> Settings:
    return make_settings(db_url, tmp_path, reply_address=REPLY_BASE,
                         inbound_secret=INBOUND_SECRET)


@pytest.fixture
def pipe(monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path):
    """Run `pbem inbound` in-process on raw bytes, configured from the environment as a mail
    server's pipe would be; returns the exit status."""
    values = {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
              "PBEM_BASE_URL": "http://pbem.test", "PBEM_INSTANCE_PATH": str(tmp_path),
              "PBEM_MAIL_FROM": "pbem <pbem@pbem.test>", "PBEM_REPLY_ADDRESS": REPLY_BASE}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)

    def run(raw: bytes, *args: str) -> int:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(raw)))
        return main(["inbound", *args])
    return run


@pytest.fixture
def inbound_client(mail_settings: Settings):
    from pbem.core.db.connection import database
    from pbem.web import create_app

    app = create_app(mail_settings, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=Clock())
    app.config["TESTING"] = True
    database.connect(reuse_if_open=True)
    return app.test_client()


DOVECOT_CONF = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/users
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
"""


class Dovecot:
    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.host, self.user, self.password = "127.0.0.1", "pbem", "imap-test-password"


@pytest.fixture
def dovecot(dovecot_server: Dovecot) -> Dovecot:
    """The Dovecot server with an empty INBOX."""
    from imap_tools import MailBoxUnencrypted

    with MailBoxUnencrypted(dovecot_server.host, dovecot_server.port).login(
            dovecot_server.user, dovecot_server.password) as box:
        uids = box.uids()
        if uids:
            box.delete(uids)
    return dovecot_server


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[Dovecot]:
    """A real Dovecot (Debian's dovecot-imapd) on a free loopback port, in a temporary folder,
    stopped after the run. Dovecot runs its mail processes as an unprivileged user (`nobody`)."""
    binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
    if not os.path.exists(binary):
        pytest.fail("Dovecot is not installed: apt-get install dovecot-imapd (.ci/run does)",
                    pytrace=False)
    if os.geteuid() != 0:
        pytest.fail("the IMAP tests start Dovecot, which must run as root (it switches to "
                    "`nobody` for mail); run them as root, as .ci/run does", pytrace=False)
    # A short path: Dovecot's unix sockets live under base_dir, and socket paths are short.
    root = Path(tempfile.mkdtemp(prefix="pbem-dc-"))
    server = Dovecot(root, free_port())
    root.chmod(0o755)
    (root / "mail").mkdir()
    (root / "state").mkdir()
    os.chown(root / "mail", 65534, 65534)
    (root / "users").write_text(
        f"{server.user}:{{PLAIN}}{server.password}:65534:65534::{root}/mail/{server.user}\n")
    (root / "users").chmod(0o644)
    conf = root / "dovecot.conf"
    conf.write_text(DOVECOT_CONF.format(root=root, port=server.port))
    subprocess.run([binary, "-c", str(conf)], check=True)
    try:
        _wait_for_port(server.port, root)
        yield server
    finally:
        subprocess.run(["doveadm", "-c", str(conf), "stop"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)


def _wait_for_port(port: int, root: Path) -> None:
    import socket

    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
    pytest.fail(f"Dovecot did not start on port {port}:\n{log}", pytrace=False)
