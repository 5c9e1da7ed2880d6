"""One score per pair from its signals, the lead's level, and how sure the figure is for the sample.

The score is the one-sided normal z of the combined evidence: with k
signals scored, the sum of their squared positive z's is, with nothing
going on, a mixture of chi-squares (:func:`hhtool.integrity.stats.combined_p`),
whose tail p is turned back into a z.  The lead's level corrects for the
number of pairs screened (M, 435 for 30 players): with nothing going on,
some pair of many always looks odd.

- ``strong``: p * M < :data:`STRONG_FAMILY` (0.1 %): one such pair in a
  thousand screens of honest play, whatever their size;
- ``moderate``: p * M < :data:`MODERATE_FAMILY` (5 %);
- ``weak``: p < :data:`WEAK_P` (1 %, not corrected: one honest pair in
  a hundred is a weak lead, so a screen of 435 pairs shows a few);
- ``none`` otherwise, and for a pair with no signal scored.
"""

from __future__ import annotations

from typing import Final

from hhtool.integrity.stats import combined_p, z_of_p

STRONG_FAMILY: Final = 0.001
MODERATE_FAMILY: Final = 0.05
WEAK_P: Final = 0.01

LEADS: Final = ("strong", "moderate", "weak", "none")


def combine(zs: list[float]) -> tuple[float, float]:
    """(score, p): the combined evidence of the scored signals' z's."""
    p = combined_p(zs)
    return (z_of_p(p) if zs else 0.0), p


def lead(p: float, pairs: int, scored: int) -> str:
    """The lead's level for a pair whose combined p is ``p`` among ``pairs`` screened."""
    if scored == 0:
        return "none"
    m = max(1, pairs)
    if p * m < STRONG_FAMILY:
        return "strong"
    if p * m < MODERATE_FAMILY:
        return "moderate"
    if p < WEAK_P:
        return "weak"
    return "none"
