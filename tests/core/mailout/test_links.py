"""Mail-preference and unsubscribe links: written out by hand for speed, they must stay the
tokens itsdangerous makes and reads (links already in players' mailboxes keep working)."""

from __future__ import annotations

import pytest
from itsdangerous import URLSafeSerializer

from pbem.core.mailout.links import (
    PREFERENCES,
    UNSUBSCRIBE,
    _load,
    preferences_token,
    unsubscribe_token,
)
from pbem.errors import NotFoundError
from pbem.keys import purpose_key
from tests.conftest import STRONG_KEY

IDS = [0, 1, 9, 10, 99, 12345, 10**6, 999_999_999, 10**9, 10**12, 2**62]


@pytest.mark.parametrize("player_id", IDS)
def test_a_link_is_the_token_itsdangerous_makes(player_id: int) -> None:
    for purpose, make in ((PREFERENCES, preferences_token), (UNSUBSCRIBE, unsubscribe_token)):
        theirs = URLSafeSerializer(purpose_key(STRONG_KEY, purpose), salt=purpose.value)
        assert make(STRONG_KEY, player_id) == theirs.dumps(player_id)
        assert _load(STRONG_KEY, purpose, make(STRONG_KEY, player_id)) == player_id


def test_a_link_opens_only_its_own_purpose() -> None:
    with pytest.raises(NotFoundError):
        _load(STRONG_KEY, UNSUBSCRIBE, preferences_token(STRONG_KEY, 7))
    with pytest.raises(NotFoundError):
        _load(STRONG_KEY + "x", PREFERENCES, preferences_token(STRONG_KEY, 7))
