"""One score per pair from its signals, the lead's level, and how sure the figure is for the sample.

The score is the one-sided normal z of the combined evidence.  Named
signals (:func:`combine` with ``signals``) are read by the kind of
collusion each one shows (:data:`KINDS`): per kind, Stouffer's sum of its
scored z's over the square root of their number (each z taken no lower
than :data:`Z_FLOOR`; a two-sided one, :data:`TWO_SIDED`, no lower than 0
and weighted, its sum read by :func:`sum_tail`), the kinds' best p
corrected for the kinds scored (Sidak: 1 - (1 - p)^k).  Sitting together (co-presence) and hopeless money
are words beside the lead, not its evidence: alone they are as large in
honest pairs whose styles meet.  Unnamed z's keep the older reading: the
sum of their squared positive z's, with nothing going on a mixture of
chi-squares (:func:`hhtool.collusion.stats.combined_p`).  The lead's level corrects for the
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

import math
from collections.abc import Sequence

from hhtool.collusion.stats import Z_FLOOR, combined_p, p_of_z, z_of_p

STRONG_FAMILY: Final = 0.001
MODERATE_FAMILY: Final = 0.05
WEAK_P: Final = 0.01

LEADS: Final = ("strong", "moderate", "weak", "none")


KINDS: Final = {
    "soft play": ("soft_play", "passive_best"),
    "chip dumping": ("dumping", "chip_flow"),
    "card sharing": ("card_sharing",),
}
"""The signals each kind of collusion moves (docs/integrity.md, "The score"): soft play checks and calls where it would bet,
with the best hand too; chip dumping folds strong hands to the partner's bets, calls them where it would fold, and moves
money one way; card sharing folds or checks where the partner's face-down cards beat the hand."""


def combine(zs: Sequence[float], signals: Sequence[str] | None = None) -> tuple[float, float]:
    """(score, p): the combined evidence of the scored signals' z's (``signals``: their ids, in the same order)."""
    if not zs:
        return 0.0, 1.0
    if signals is None:
        p = combined_p(list(zs))
        return z_of_p(p), p
    p = kind_p(dict(zip(signals, zs)))[1]
    return z_of_p(p), p


TWO_SIDED: Final = {"chip_flow": 0.5}
"""The kinds' signals whose z reads a deviation either way (its chance doubled), and the weight each has in its kind's sum:
each counts no lower than 0 there, at this weight (docs/integrity.md, "The score")."""


def kind_p(zs: dict[str, float]) -> tuple[str | None, float]:
    """(the kind of collusion the signals point to most, the p of the pair's evidence, corrected for the kinds scored)."""
    best: tuple[str | None, float] = (None, 1.0)
    k = 0
    for kind, names in KINDS.items():
        one = [max(Z_FLOOR, zs[n]) for n in names if n in zs and n not in TWO_SIDED]
        two = [(max(0.0, zs[n]), TWO_SIDED[n]) for n in names if n in zs and n in TWO_SIDED]
        if not one and not two:
            continue
        k += 1
        if not two:
            p = p_of_z(sum(one) / math.sqrt(len(one)))
        else:  # (no kind holds two of them)
            z2, w = two[0]
            p = sum_tail(sum(one) + w * z2, len(one), w)
        if p < best[1]:
            best = (kind, p)
    if k == 0:
        return None, 1.0
    return best[0], min(1.0, -math.expm1(k * math.log1p(-best[1])) if best[1] < 1.0 else 1.0)


def sum_tail(s: float, ones: int, weight: float) -> float:
    """P(Z_1 + .. + Z_ones + weight * max(0, W) >= s) with nothing going on: every Z and W a standard normal.

    A kind's evidence is the sum of its signals' z's, a two-sided one's
    (:data:`TWO_SIDED`) no lower than 0 and weighted: at its centre (no
    money moved beyond the two players' results) a two-sided z is about
    -2.2 (a doubled chance of 1, read one-sided), which in a plain sum took
    more from a colluding pair's other signal than its noise allows (seed
    911 at strength 0.3: the pair passing chips in 39 hands, its `dumping`
    z 4.2, its money flat: Stouffer's (4.2 - 2.2) / sqrt 2 = 1.4, rank 70).
    The sum of the normals is N(0, ones); the truncated one is integrated
    over (Simpson's rule, steps of 0.05 up to 12 standard deviations).
    """
    if ones == 0:
        return 1.0 if s <= 0 else p_of_z(s / weight)
    sd = math.sqrt(ones)

    def tail(x: float) -> float:
        return p_of_z(x / sd)

    steps, h = 240, 0.05
    acc = 0.0
    for i in range(steps + 1):
        u = i * h
        w = 1.0 if i in (0, steps) else (4.0 if i % 2 else 2.0)
        acc += w * math.exp(-u * u / 2.0) * tail(s - weight * u)
    return min(1.0, 0.5 * tail(s) + acc * h / 3.0 / math.sqrt(2.0 * math.pi))


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
