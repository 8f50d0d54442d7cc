"""The check an import or `pbem verify` makes of a record's committed deal
(`games/dealing.py`; `docs/players/fair-play.md`). What a record shows of it is
`core/matches/creation.py` (`deal_of`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pbem.errors import InvalidRequestError
from pbem.games.base import CommitsDeals, GameRules
from pbem.games.dealing import DEAL_SCHEME, commitment, seed_bytes
from pbem.i18n import _


class Deal(NamedTuple):
    """A record's committed deal: its seed, the commitment and the match id it names."""

    seed: str
    commitment: str
    match_id: int
    salts: tuple[str, ...]


def read_deal(record: Mapping[str, Any], rules: GameRules) -> Deal | None:
    """The record's committed deal, its commitment checked against its seed; None for a
    record dealt by the older scheme (no `deal_scheme`), which replays from `seed`."""
    scheme = record.get("deal_scheme")
    if scheme is None:
        return None
    if scheme != DEAL_SCHEME or not isinstance(rules, CommitsDeals):
        raise InvalidRequestError(_("The record's deals follow a scheme this server does not "
                                    "know (%(scheme)r).", scheme=scheme))
    seed, promised = record.get("deal_seed"), record.get("deal_commitment")
    named = record.get("deal_match", record.get("match"))
    salts = record.get("deal_salts")
    if not isinstance(seed, str) or not _is_seed(seed):
        raise InvalidRequestError(_("The record's deal seed is missing or is not 64 "
                                    "hexadecimal digits."))
    if not isinstance(named, int) or isinstance(named, bool) or named < 1:
        raise InvalidRequestError(_("The record names no match for its deal commitment."))
    if not isinstance(salts, list) or not all(isinstance(s, str) for s in salts):
        raise InvalidRequestError(_("The record's salts must be a list of texts."))
    computed = commitment(seed, named)
    if promised != computed:
        raise InvalidRequestError(_(
            "The record's deal commitment %(promised)r does not follow from its seed: "
            "SHA-256 of the seed and match %(match)s is %(computed)s.",
            promised=promised, match=named, computed=computed))
    return Deal(seed, computed, named, tuple(salts))


def check_salts(deal: Deal, rules: GameRules, final: Any) -> None:
    """The salts the record lists must be the ones its deals were drawn with."""
    if not isinstance(rules, CommitsDeals):
        return
    dealt = rules.deal_salts(final)
    for seat, (listed, used) in enumerate(zip(deal.salts, dealt, strict=False)):
        if listed != used:
            raise InvalidRequestError(_("Seat %(seat)s's salt is %(listed)r in the record, but "
                                        "the deals were drawn with %(used)r.",
                                        seat=seat, listed=listed, used=used))
    if len(deal.salts) != len(dealt):
        raise InvalidRequestError(_("The record lists %(listed)s salts for %(seats)s seats.",
                                    listed=len(deal.salts), seats=len(dealt)))


def _is_seed(text: str) -> bool:
    try:
        seed_bytes(text)
    except ValueError:
        return False
    return True
