"""HTTPS only, outside development: browsers are told never to use plain HTTP for a year."""

from __future__ import annotations

from pathlib import Path

from pbem.web import create_app
from tests.conftest import SUPPORT_TEMPLATES, make_settings


def test_strict_transport_security_outside_development_only(client, db_url: str,
                                                            tmp_path: Path) -> None:
    for path in ("/", "/static/pbem.css", "/nowhere", "/api/matches/1"):
        with client.get(path) as response:
            header = response.headers.get("Strict-Transport-Security")
        assert header == "max-age=31536000; includeSubDomains", path
    dev = create_app(make_settings(db_url, tmp_path, development=True),
                     extra_template_dirs=(SUPPORT_TEMPLATES,)).test_client()
    for path in ("/", "/static/pbem.css"):
        with dev.get(path) as response:
            assert response.status_code == 200
            assert "Strict-Transport-Security" not in response.headers
