"""hhtool: parse, audit and analyse Telesina hand histories.

Use from Python (each name's help says more; ``README.md`` shows them at work)::

    import hhtool
    for record in hhtool.read_file("table.txt"):   # Hand, ErrorRecord or Skipped
        ...
    hand = hhtool.parse_hand(text)                  # exactly one hand
    result = hhtool.replay_hand(hand)               # verdict, findings, payouts
    summary = hhtool.import_paths(["histories/"], "hands.duckdb")
    stats = hhtool.statistics("hands.duckdb")
    figures = stats.figures()                       # a polars frame, a row per player
    frame = hhtool.query("SELECT verdict, count(*) AS n FROM hands GROUP BY verdict", db="hands.duckdb")
    odds = hhtool.equities(["Qc Qs 9c", "Ah Kd Jh"], "classic")

The names are defined in :mod:`hhtool.api`, which imports what each one
needs only when it is called, so that ``import hhtool`` (and ``hhtool
--help``) stays instant.  The
pipeline's stages are the subpackages (``docs/architecture.md``):
:mod:`hhtool.history` (the text: files to hands, the grammar and the parser,
the events, the writer, money and time zones), :mod:`hhtool.game` (cards,
the rule profiles, hand values, the betting machine and the pots, who opens
and who wins, equity), :mod:`hhtool.replay` (the walk of a hand,
settlement, findings and the audit), :mod:`hhtool.simulate`, :mod:`hhtool.store` (the DuckDB import,
query and export), :mod:`hhtool.stats` (statistics and the report) and
:mod:`hhtool._native` (what exists only for compiled speed); the commands
are :mod:`hhtool.cli`.  The grammar is the package ``hhtool.grammars``,
whose home is the project's top-level ``grammars/`` folder.
"""

from __future__ import annotations

from hhtool import api
from hhtool.api import *  # noqa: F403 -- the names of api.__all__, each exported

__version__ = "0.1.0"
__all__ = ["__version__"]
__all__ += api.__all__  # a form type checkers read: each name of the API is exported as hhtool.NAME
