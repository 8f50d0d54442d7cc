"""Admin accounts: what it costs to load them, and the equal-time answer for unknown emails."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from pbem.core.accounts import admins


def test_importing_the_app_computes_no_password_hash() -> None:
    # scrypt takes 32 MiB and up to 0.3 s: a process pays it only when it checks a password.
    probe = textwrap.dedent("""
        import werkzeug.security

        made = []
        real = werkzeug.security.generate_password_hash
        werkzeug.security.generate_password_hash = lambda *a, **k: made.append(1) or real(*a, **k)
        import pbem.cli, pbem.core.accounts.admins, pbem.web, pbem.worker
        print(len(made))
    """)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.strip() == "0", result.stderr


@pytest.mark.production_password_hashing
def test_an_unknown_email_is_checked_against_a_real_hash(db_url: str) -> None:
    assert admins.authenticate("nobody@example.org", "any password at all") is None
    dummy = admins._dummy_hash()
    assert dummy.startswith("scrypt:32768:8:1$") and dummy is admins._dummy_hash()


@pytest.mark.production_password_hashing
def test_passwords_are_stored_at_full_strength(db_url: str) -> None:
    from pbem.clock import utcnow

    admin = admins.create_admin("root@example.org", "correct horse battery", utcnow())
    assert admin.password_hash.startswith("scrypt:32768:8:1$")
    assert admins.authenticate("root@example.org", "correct horse battery") == admin
    assert admins.authenticate("root@example.org", "correct horse battery!") is None


def test_the_tests_hash_passwords_the_same_way_only_cheaper(db_url: str) -> None:
    from pbem.clock import utcnow

    admin = admins.create_admin("root@example.org", "correct horse battery", utcnow())
    assert admin.password_hash.startswith("scrypt:1024:8:1$")
    assert admins._dummy_hash().startswith("scrypt:1024:8:1$")
