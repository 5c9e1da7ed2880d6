"""The replay engine: a parsed hand, replayed under its rules, with findings and a verdict.

Modules: :mod:`.findings` (what can be noticed), :mod:`.betting` (the
betting state machine), :mod:`.pots` (main and side pots),
:mod:`.engine` (the walk through a hand and the settlement).
"""

from hhtool.replay.engine import PotResult, Replay, replay
from hhtool.replay.findings import CODES, Finding

__all__ = ["CODES", "Finding", "PotResult", "Replay", "replay"]
