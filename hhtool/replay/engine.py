"""Replay a parsed hand under its rules: every check of RULES.md, and who should win what.

:func:`replay` walks the hand's events in order (:mod:`.walk`), feeding the
betting machine (:mod:`hhtool.game.betting`) and the card checks (:mod:`.deal`), then
settles the pots (:mod:`.settle`, :mod:`hhtool.game.pots`) and compares the result
with what the history says.  Everything it notices becomes a
:class:`~hhtool.replay.findings.Finding`; nothing is raised, nothing is
repaired silently, and the replay always reaches a verdict
(:class:`~hhtool.replay.result.Replay`).
"""

from __future__ import annotations

from hhtool.game.pots import Pot
from hhtool.replay.result import PotResult, Replay, Verdict
from hhtool.replay.walk import ReplayState, replay, replay_walk

__all__ = ["Pot", "PotResult", "Replay", "ReplayState", "Verdict", "replay", "replay_walk"]
