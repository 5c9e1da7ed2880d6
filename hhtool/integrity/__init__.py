"""The integrity screen: pairs of accounts whose play together is worth a review (docs/integrity.md).

:func:`screen` ranks every pair of accounts dealt in together by the
evidence of its signals against their baselines; :func:`dossier` lays
out one pair's hands and decisions beside each player's figures against
everyone else.  Leads to review, never a verdict: one hand proves nothing.
"""

from __future__ import annotations

from hhtool.integrity.dossier import Dossier, UnknownPairError, dossier
from hhtool.integrity.screen import Screen, screen

__all__ = ["Dossier", "Screen", "UnknownPairError", "dossier", "screen"]
