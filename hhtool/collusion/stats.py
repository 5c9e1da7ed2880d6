"""The few distributions the screen's figures need, in plain Python: normal, Poisson and chi-square tails.

No SciPy: hhtool depends on numpy, polars and DuckDB only, and these are
a few lines each (the chi-square tail for whole degrees of freedom by the
incomplete gamma function's recurrence).
"""

from __future__ import annotations

import math
from statistics import NormalDist

_N = NormalDist()
Z_CAP = 12.0
"""Evidence beyond this many standard deviations is shown as this: a p-value of 1e-33 says nothing more."""


Z_FLOOR: float = -3.0
"""A two-sided signal's z is no lower than this, nor is any z in its kind's sum (:mod:`hhtool.collusion.score`): a
two-sided test exactly at its centre has p = 1, whose one-sided z would be -12 -- no evidence either way, and
read as "strongly against" on a page."""


def z_of_p(p: float) -> float:
    """The one-sided normal z with upper tail ``p`` (capped at :data:`Z_CAP`)."""
    if p <= 0.0:
        return Z_CAP
    if p >= 1.0:
        return -Z_CAP
    return max(-Z_CAP, min(Z_CAP, -_N.inv_cdf(p)))


def p_of_z(z: float) -> float:
    """The upper tail of the standard normal at ``z``."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def poisson_upper(k: int, lam: float) -> float:
    """P(X >= k) for X Poisson with mean ``lam``: the tail of a count of rare events (conservative for a binomial)."""
    if k <= 0:
        return 1.0
    if lam <= 0.0:
        return 0.0
    term = math.exp(-lam)
    below = 0.0
    for i in range(k):
        if i:
            term *= lam / i
        below += term
    return max(0.0, 1.0 - below) if below < 0.999999 else _poisson_far(k, lam)


def _poisson_far(k: int, lam: float) -> float:
    """The tail summed upward from ``k`` in logs (1 - below loses every digit there)."""
    log_t = -lam + k * math.log(lam) - math.lgamma(k + 1)
    total = 0.0
    i = k
    t = math.exp(log_t)
    while t > 1e-300 and i < k + 10_000:
        total += t
        i += 1
        t *= lam / i
        if t < total * 1e-17:
            break
    return min(1.0, total)


def chi2_upper(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom (df >= 1)."""
    if x <= 0.0:
        return 1.0
    h = x / 2.0
    if df % 2 == 0:
        a, q = 1.0, math.exp(-h)
    else:
        a, q = 0.5, math.erfc(math.sqrt(h))
    while a < df / 2.0 - 1e-9:
        q += math.exp(a * math.log(h) - h - math.lgamma(a + 1.0))
        a += 1.0
    return min(1.0, q)


def combined_p(zs: list[float]) -> float:
    """The chance under no effect that k independent one-sided z's give a sum of squared positive parts this large.

    Each positive part squared is 0 with probability 1/2 and chi-square(1)
    otherwise, so the sum is a binomial mixture of chi-squares.
    """
    k = len(zs)
    if k == 0:
        return 1.0
    s = sum(max(z, 0.0) ** 2 for z in zs)
    if s <= 0.0:
        return 1.0
    return min(1.0, sum(math.comb(k, j) * 0.5**k * chi2_upper(s, j) for j in range(1, k + 1)))
