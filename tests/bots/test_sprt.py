"""The GSPRT that decides the strength ladder gives fishtest's figures."""

from __future__ import annotations

import pytest

from pbem.bots import sprt


def _expand(counts: list[int]) -> list[float]:
    """(L, D, W) or (LL, LD+DL, LW+DD+WL, DW+WD, WW) counts as the groups' scores."""
    step = 1 / (len(counts) - 1)
    return [index * step for index, count in enumerate(counts) for _ in range(count)]


# Computed with fishtest's LLRcalc.LLR_logistic(elo0, elo1, results) (logistic Elo, the
# expectation statistic, zero counts regularised to 1e-3).
FISHTEST = [
    ([10, 20, 30], 0, 50, 3.443007508188095),
    ([3, 5, 12], 0, 50, 1.471983211549806),
    ([0, 0, 10], 0, 50, 1.3358977898254127),
    ([40, 30, 50], 0, 5, 0.17535827150408914),
    ([2, 10, 30, 20, 8], 0, 50, 3.5828763268546555),
    ([0, 1, 3, 5, 6], 0, 100, 3.7024227982363986),
    ([5, 20, 50, 22, 3], -10, 10, -0.31363958053650126),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), FISHTEST)
def test_the_llr_is_fishtests(counts: list[int], elo0: float, elo1: float,
                              expected: float) -> None:
    categories = sprt.TRINOMIAL if len(counts) == 3 else sprt.PENTANOMIAL
    found = sprt.llr(_expand(counts), sprt.expected_score(elo0), sprt.expected_score(elo1),
                     categories)
    assert found == pytest.approx(expected, abs=1e-9)


def test_the_bounds_are_wald_s() -> None:
    assert sprt.bounds(0.05, 0.05) == pytest.approx((-2.9444389791664403, 2.9444389791664403))


def test_the_verdict_stops_at_the_bounds() -> None:
    wins = [1.0] * 60
    assert sprt.test(wins, 0, 50, 0.05, 0.05).decision == "H1"
    assert sprt.test([0.0] * 60, 0, 50, 0.05, 0.05).decision == "H0"
    assert sprt.test([1.0, 0.0] * 5, 0, 50, 0.05, 0.05).decision == "open"
    assert sprt.test([], 0, 50, 0.05, 0.05).llr == 0.0


def test_three_players_share_a_third_at_equal_strength() -> None:
    assert sprt.expected_score(0, players=3) == pytest.approx(1 / 3)
    assert sprt.expected_score(50, players=3) > 1 / 3
    assert sprt.elo_of(sprt.expected_score(80, 3), 3) == pytest.approx(80)
    # A level that takes exactly its third leans towards H0 against elo1 = 50.
    even = [1.0, 0.0, 0.0] * 30
    assert sprt.test([sum(even[i:i + 3]) / 3 for i in range(0, 90, 3)], 0, 50, 0.05, 0.05,
                     players=3, categories=()).llr < 0
