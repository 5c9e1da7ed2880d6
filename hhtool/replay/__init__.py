"""The replay engine: a parsed hand, replayed under its rules, with findings and a verdict.

Modules: :mod:`.findings` (what can be noticed), :mod:`.engine`
(:func:`replay`, the entry point), :mod:`.walk` (the walk through a hand's
events, through the game's betting machine, :mod:`hhtool.game.betting`),
:mod:`.deal` (the deal and the card checks), :mod:`.settle` (the
settlement against what the history paid, the pots divided by
:mod:`hhtool.game.pots`), :mod:`.explain` (the words),
:mod:`.facts` (the cards as the lines show them, for the store),
:mod:`.result` (the :class:`Replay` it returns), :mod:`.audit` (the report),
:mod:`.holdings` (each player's cards as the replay read them, which
``Replay`` carries), :mod:`.equities` (each contender's equity and the
all-in EV, priced from them), :mod:`.steps` (the table after each event, for the
hand replayer).
"""

from hhtool.replay.engine import PotResult, Replay, replay
from hhtool.replay.findings import CODES, Finding

__all__ = ["CODES", "Finding", "PotResult", "Replay", "replay"]
