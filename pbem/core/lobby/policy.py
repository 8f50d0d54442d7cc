"""What the lobby needs to know of the server's settings, and nothing more.

Core never sees the whole `Settings`: the adapters pass it in, and the type checker holds it to
this shape, so a test (or another adapter) can pass any small value that has these four.
"""

from __future__ import annotations

from typing import Protocol


class LobbyPolicy(Protocol):
    @property
    def secret_key(self) -> str:
        """Derives the invitation links' tokens."""

    @property
    def challenge_expiry_days(self) -> int:
        """How long an unanswered challenge stays open."""

    @property
    def max_pending_challenges(self) -> int:
        """How many open challenges and seeks one player may have at once."""

    @property
    def invitations_per_day(self) -> int:
        """How many invitation mails one player may send a day."""
