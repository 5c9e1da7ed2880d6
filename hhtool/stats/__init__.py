"""Player statistics and the HTML report (``docs/stats.md``)."""

from hhtool.stats.compute import STATS, Filters, Ratio, StatsResult, compute, sessions

__all__ = ["STATS", "Filters", "Ratio", "StatsResult", "compute", "sessions"]
