"""Mail preferences: which events mail a player now (filled in by the preferences commit)."""

from __future__ import annotations

from datetime import datetime

from pbem.core.models import Player


def sends_now(player: Player, template: str, deadline: datetime | None, now: datetime) -> bool:
    return True
