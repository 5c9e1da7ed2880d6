"""The options and arguments several commands share, declared once so that each reads and helps the same everywhere.

A command's own options stay beside it; what is here is what two or more
take: the rule profiles, the inputs, ``--raw``, the database, and the
statistics' filters of ``stats`` and ``report``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

ProfileName = Literal["classic", "stellapoker", "italian"]
StructureName = Literal["fixed", "pot", "no"]
Format = Literal["table", "csv", "json"]

RawOpt = Annotated[
    bool,
    typer.Option("--raw", help="Write strings from hand histories as they are: no escaping of control characters, no CSV formula prefix (docs/format-notes.md)."),
]

InputsArg = Annotated[
    list[str],
    typer.Argument(metavar="PATH", help="Files, folders (recursively), globs, .zip and .gz archives: what import reads.", show_default=False),
]

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="FILE", help="The database file (default: $HHTOOL_DB, else ~/.local/share/hhtool/hhtool.duckdb or under $XDG_DATA_HOME)."),
]

ParquetOption = Annotated[
    Optional[Path],
    typer.Option("--parquet", metavar="DIR", help="Read this Parquet dataset (spark-import --out, or export --parquet) in place of --db."),
]

# the statistics' filters (stats, report)
PlayerOpt = Annotated[Optional[list[str]], typer.Option("--player", metavar="NAME", help="Only this player (repeatable).")]
FromOpt = Annotated[Optional[str], typer.Option("--from", metavar="DATE", help="First day (YYYY-MM-DD, UTC date the hand started).")]
ToOpt = Annotated[Optional[str], typer.Option("--to", metavar="DATE", help="Last day, inclusive (YYYY-MM-DD).")]
SiteOpt = Annotated[Optional[list[str]], typer.Option("--site", metavar="NAME", help="Only this site (repeatable).")]
ProfileOpt = Annotated[Optional[list[str]], typer.Option("--profile", metavar="<classic|stellapoker|italian>", help="Only this rule profile (repeatable).")]
StructureOpt = Annotated[Optional[list[str]], typer.Option("--structure", metavar="<fixed|pot|no>", help="Only this betting structure (repeatable).")]
SeatsOpt = Annotated[Optional[list[int]], typer.Option("--max-seats", metavar="N", help="Table size, e.g. 6 for 6-max (repeatable).")]
MinHandsOpt = Annotated[int, typer.Option("--min-hands", min=0, metavar="N", help="Only players with at least this many hands.")]
StakesOpt = Annotated[Optional[list[str]], typer.Option("--stakes", metavar="SMALL/BIG", help="Small/big bet as in the header, e.g. 0.50/1.00 (repeatable).")]
DayStartOpt = Annotated[int, typer.Option("--day-start", min=0, max=23, metavar="HOUR", help="Hour (UTC) at which a day starts, for --from/--to.")]
CurrencyOpt = Annotated[
    Optional[str],
    typer.Option("--currency", metavar="CODE", help="Add every currency with a --rate into this one (e.g. EUR); chips never convert."),
]
RateOpt = Annotated[
    Optional[list[str]],
    typer.Option("--rate", metavar="CODE=RATE", help="With --currency: one unit of CODE is worth RATE of it, e.g. USD=0.92 (repeatable)."),
]

FILTER_OPTIONS = {
    "player": "--player", "from": "--from", "to": "--to", "site": "--site", "profile": "--profile", "structure": "--structure",
    "seats": "--max-seats", "stakes": "--stakes", "day_start": "--day-start", "min_hands": "--min-hands", "currency": "--currency", "rate": "--rate",
}
"""The options above by the keys of :mod:`hhtool.stats.filters_parse`, whose messages name a filter as the person wrote it."""
