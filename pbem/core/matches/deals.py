"""A committed deal's public parts (`games/dealing.py`), as the match's record, its API
answer, its pages and its mails show them."""

from __future__ import annotations

from typing import Any

from pbem.core.matches.models import Match
from pbem.games.base import CommitsDeals, GameRules
from pbem.games.dealing import DEAL_SCHEME


def deal_of(match: Match, rules: GameRules, state: Any) -> dict[str, Any] | None:
    """The scheme, the commitment and the salts always; the seed only once the match has
    ended (before, it would tell every hidden card still to come). None for a match dealt
    before deals were committed, or a game without hidden deals."""
    if match.deal_commitment is None or not isinstance(rules, CommitsDeals):
        return None
    return {"deal_scheme": DEAL_SCHEME, "deal_commitment": match.deal_commitment,
            "deal_match": match.deal_match or match.id,
            "deal_salts": list(rules.deal_salts(state)),
            "deal_seed": None if match.is_live else match.deal_seed}
