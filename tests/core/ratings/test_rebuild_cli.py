"""`pbem ratings rebuild` from the command line: every rating recomputed from the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.cli import main
from pbem.core.db.connection import bind_database, database
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.core.ratings.models import Rating
from tests.conftest import START, STRONG_KEY


def test_rebuild_restores_damaged_ratings(monkeypatch: pytest.MonkeyPatch, db_url: str,
                                          tmp_path: Path, capsys) -> None:
    for name, value in {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
                        "PBEM_BASE_URL": "http://games.example",
                        "PBEM_INSTANCE_PATH": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    for winner, loser in (("a@x.org", "b@x.org"), ("b@x.org", "c@x.org"),
                          ("a@x.org", "c@x.org")):
        match = create_match("nim", [winner, loser], {}, "k", START, rated=True).match
        apply_change(match.id, Resign(seat=1), START)
    stored = sorted((r.player_id, r.mu, r.sigma, r.games) for r in Rating.select())
    Rating.update(mu=1.0, sigma=1.0, games=0).execute()
    assert main(["ratings", "rebuild"]) == 0
    assert "ratings rebuilt: 3 matches, 6 rating events, 0 changed" in capsys.readouterr().out
    bind_database(db_url)
    database.connect(reuse_if_open=True)
    assert sorted((r.player_id, r.mu, r.sigma, r.games) for r in Rating.select()) == stored
