"""The options and arguments several commands share, declared once so that each reads and helps the same everywhere.

A command's own options stay beside it; what is here is what two or more
take: the rule profiles and room files (:func:`rules_arg`), the inputs,
``--raw``, the database, and the statistics' filters of ``stats`` and
``report``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from hhtool.cli_output import fail

if TYPE_CHECKING:
    from hhtool.game.room import Room

ProfileName = Literal["classic", "stellapoker", "italian"]
StructureName = Literal["fixed", "pot", "no"]
Format = Literal["table", "csv", "json"]
StatsFormat = Literal["table", "detail", "csv", "json"]

RULES_METAVAR = "<classic|stellapoker|italian|FILE>"
"""How the help shows an option that takes a rule profile or a room file (:func:`rules_arg`)."""


def rules_arg(value: str, option: str = "--rules") -> Room:
    """The rules an option names: a built-in profile (``classic``, ``stellapoker``, ``italian``) or a room file (docs/rooms.md).

    A profile's name, in any case, is the profile even where a file of that
    name exists (``./classic`` names the file).  Anything else is read and
    checked as a room file.  A value that is neither, or a room file with
    problems, is a usage error (exit 2) naming ``option`` and, for a file,
    every problem with its line.
    """
    from hhtool.game.room import RoomError, builtin_room, load_room
    from hhtool.game.rules import PROFILE_NAMES

    name = value.strip().lower()
    if name in PROFILE_NAMES:
        return builtin_room(name)
    path = Path(value)
    if not path.is_file():
        found = "a folder" if path.is_dir() else "no such file"
        raise fail(f"{option} {value}: expected a rule profile ({', '.join(PROFILE_NAMES)}) or a room file, and it is {found}")
    try:
        return load_room(path)
    except RoomError as e:
        problems = "\n".join(f"  {p}" for p in e.problems)
        raise fail(f"{option} {value}: the room file cannot be used ({_problems(len(e.problems))}):\n{problems}") from None


def _problems(n: int) -> str:
    return "1 problem" if n == 1 else f"{n} problems"


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
VerdictsOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--verdicts", metavar="LIST",
        help="The replay's verdicts to count: ok, disputed, invalid, error (comma-separated, repeatable) or all; default ok,disputed.",
    ),
]
TagOpt = Annotated[
    Optional[list[str]],
    typer.Option("--tag", metavar="NAME", help="Only the hands with this tag (hhtool tag; repeatable: hands with any of them)."),
]
PlayerTagOpt = Annotated[
    Optional[list[str]],
    typer.Option("--player-tag", metavar="NAME", help="Only the accounts with this tag (hhtool tag --player; repeatable: any of them)."),
]
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
    "verdicts": "--verdicts", "tag": "--tag", "player_tag": "--player-tag",
}
"""The options above by the keys of :mod:`hhtool.stats.filters_parse`, whose messages name a filter as the person wrote it."""
