"""The commands over the database: ``query``, ``export``, ``stats``, ``report``, ``serve``.

Each opens the database ``--db`` names (or the Parquet dataset of
``--parquet``, where a command reads one), asks the library and prints or
writes its answer; a database that cannot be opened, a filter that does
not parse, a file that cannot be written are usage errors (exit 2).  The
statistics' filters are read by :mod:`hhtool.stats.filters_parse`, the
parser ``hhtool serve`` reads its parameters with.  The app registers the
commands (:mod:`hhtool.cli`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, TypeVar

import typer

from hhtool.cli_options import (
    FILTER_OPTIONS,
    CurrencyOpt,
    DayStartOpt,
    DbOption,
    Format,
    FromOpt,
    MinHandsOpt,
    ParquetOption,
    PlayerOpt,
    PlayerTagOpt,
    ProfileOpt,
    RateOpt,
    RawOpt,
    SeatsOpt,
    SiteOpt,
    StakesOpt,
    StatsFormat,
    StructureOpt,
    ToOpt,
    TagOpt,
    VerdictsOpt,
)
from hhtool.cli_output import EXIT_FINDINGS, fail
from hhtool.cli_rooms import RoomsOption

if TYPE_CHECKING:
    from hhtool.history.currency import Rates
    from hhtool.stats import Filters
    from hhtool.web.client import Server

T = TypeVar("T")


def _source(db: Optional[Path], parquet: Optional[Path]) -> Path:
    """The database to read: ``--parquet DIR`` as the same tables (views over its committed files), else ``--db``'s."""
    from hhtool.store.db import resolve_db_path

    if parquet is None:
        return resolve_db_path(db)
    if db is not None:
        raise fail("give --db or --parquet, not both")
    from hhtool.store.parquet import ParquetDataset

    return ParquetDataset(parquet)


def _or_served(source: Path, local: Callable[[Path], T], served: Callable[["Server"], T]) -> T:
    """``local(source)``; when ``hhtool serve`` holds the database, ``served`` asks that server (docs/serve.md, "Reading and writing while serving").

    The same answer either way: the server runs the same library
    functions on its connection (:mod:`hhtool.web.cli_api`).  A database
    held by another process, or by a server that cannot be asked, is
    refused as before (:func:`hhtool.web.client.server_of`).
    """
    from hhtool.store.db import DatabaseInUseError

    try:
        return local(source)
    except DatabaseInUseError as e:
        from hhtool.web.client import server_of

        return served(server_of(source, e))


def query(
    sql: Annotated[
        Optional[str],
        typer.Argument(
            metavar="SQL",
            show_default=False,
            help='SQL to run read-only, e.g. "SELECT verdict, count(*) FROM hands GROUP BY verdict"; '
            "it may start with a -- comment (or write -- before the SQL); or give --file.",
        ),
    ] = None,
    file: Annotated[Optional[Path], typer.Option("--file", metavar="FILE", help="Read the SQL from this file; '-' is standard input.")] = None,
    db: DbOption = None,
    parquet: ParquetOption = None,
    fmt: Annotated[Format, typer.Option("--format", help="How to print the result.")] = "table",
    out: Annotated[Optional[Path], typer.Option("--out", metavar="FILE", help="Write to this file instead of standard output.")] = None,
    raw: RawOpt = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0, metavar="SECONDS", help="Stop a statement that runs longer than this many seconds (0: no limit).")
    ] = 300,
) -> None:
    """Run read-only SQL on the database and print the result (tables in docs/schema.md)."""
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.store.query import render, run_query

    if fmt not in ("table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, csv or json")
    if (sql is None) == (file is None):
        raise fail("give the SQL as an argument or with --file FILE, one of them" if sql is None else "give the SQL as an argument or with --file, not both")
    if file is not None:
        sql = _read_text_input(file)
    assert sql is not None
    try:
        text = _or_served(_source(db, parquet), lambda source: render(run_query(source, sql, timeout=timeout), fmt, raw=raw),
                          lambda server: server.query(sql, fmt, raw=raw, timeout=timeout))
    except StoreError as e:
        raise fail(str(e)) from None
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as e:
            raise fail(f"cannot write {out}: {e.strerror}") from None
    else:
        sys.stdout.write(text)


def _read_text_input(path: Path) -> str:
    """The text of ``path`` (``-``: standard input), UTF-8 with or without a BOM; a usage error when it cannot be read."""
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise fail(f"cannot read {path}: {why}") from None


def export(
    parquet: Annotated[Path, typer.Option("--parquet", metavar="DIR", help="Folder to write the tables to, as Parquet partitioned by date.")],
    db: DbOption = None,
) -> None:
    """Export every table as Parquet (hand tables partitioned by date=YYYY-MM-DD) for DuckDB, Spark or Trino."""
    from hhtool.store.db import StoreError, database_errors, resolve_db_path
    from hhtool.store.query import export_parquet

    try:
        with database_errors(resolve_db_path(db), everything=True):
            counts = _or_served(resolve_db_path(db), lambda source: export_parquet(source, parquet), lambda server: server.export(parquet))
    except StoreError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"cannot write {parquet}: {e.strerror}") from None
    typer.echo(", ".join(f"{name} {n:,}" for name, n in counts.items()) + f" rows written under {parquet}")


def _stats_args(
    player: Optional[list[str]],
    date_from: Optional[str],
    date_to: Optional[str],
    site: Optional[list[str]],
    profile: Optional[list[str]],
    structure: Optional[list[str]],
    max_seats: Optional[list[int]],
    min_hands: int,
    stakes: Optional[list[str]],
    day_start: int,
    currency: Optional[str],
    rate: Optional[list[str]],
    verdicts: Optional[list[str]] = None,
    tag: Optional[list[str]] = None,
    player_tag: Optional[list[str]] = None,
) -> "tuple[Filters, Rates | None]":
    """The filters and the rates of ``stats`` and ``report``, read as ``hhtool serve`` reads its parameters; a usage error otherwise."""
    from hhtool.stats.filters_parse import FilterError, Spelling, parse_filters, parse_rates

    options = Spelling(FILTER_OPTIONS, " ")
    try:
        filters = parse_filters(
            options,
            players=player or (),
            date_from=date_from,
            date_to=date_to,
            sites=site or (),
            profiles=profile or (),
            structures=structure or (),
            max_seats=[str(n) for n in max_seats or ()],  # typer made them numbers; the parser checks the size
            min_hands=str(min_hands),
            stakes=stakes or (),
            day_start=str(day_start),
            verdict_list=verdicts or (),
            tags=tag or (),
            player_tags=player_tag or (),
        )
        return filters, parse_rates(options, currency, rate or ())
    except FilterError as e:
        raise fail(str(e)) from None


def stats(
    db: DbOption = None,
    parquet: ParquetOption = None,
    player: PlayerOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    site: SiteOpt = None,
    profile: ProfileOpt = None,
    structure: StructureOpt = None,
    max_seats: SeatsOpt = None,
    min_hands: MinHandsOpt = 0,
    stakes: StakesOpt = None,
    day_start: DayStartOpt = 0,
    currency: CurrencyOpt = None,
    rate: RateOpt = None,
    verdicts: VerdictsOpt = None,
    tag: TagOpt = None,
    player_tag: PlayerTagOpt = None,
    fmt: Annotated[
        StatsFormat,
        typer.Option("--format", help="table: a row per player (one --player: their detail); detail: each player's statistics with counts; csv; json."),
    ] = "table",
    columns: Annotated[
        Optional[str], typer.Option("--columns", metavar="KEYS", help="The grid's columns, statistic keys comma-separated, e.g. hands,net,vpip,af (docs/stats.md).")
    ] = None,
    sort: Annotated[
        Optional[str], typer.Option("--sort", metavar="KEY", help="Highest first by this statistic (default: hands); money per currency: net_EUR, net_chips.")
    ] = None,
    gap: Annotated[int, typer.Option("--session-gap", min=1, metavar="MINUTES", help="Minutes without a hand that start a new session.")] = 30,
    raw: RawOpt = False,
) -> None:
    """Player statistics: each one actions / opportunities, '-' without opportunity (docs/stats.md)."""
    import shutil

    from hhtool.stats import compute
    from hhtool.stats.grid_text import PLAY_KEYS, GridError, parse_columns, sort_players, to_grid
    from hhtool.stats.render import to_csv, to_json, to_text
    from hhtool.store.db import StoreError, database_errors, resolve_db_path

    if fmt not in ("table", "detail", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, detail, csv or json")
    filters, rates = _stats_args(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start, currency, rate, verdicts, tag,
                                 player_tag)
    try:
        keys = None if columns is None else parse_columns(columns)
    except GridError as e:
        raise fail(str(e)) from None
    if keys is not None and fmt != "table":
        raise fail(f"--columns chooses the grid's columns (--format table); --format {fmt} has them all")
    grid = fmt == "table" and (keys is not None or len(filters.players) != 1)
    # time played walks every hand in time order: only where it is shown (docs/stats.md, "Time played")
    timed = not grid or any(k in PLAY_KEYS for k in keys or ()) or (sort or "").startswith(PLAY_KEYS)
    try:
        source = _source(db, parquet)
        with database_errors(source, everything=True):  # a damaged block is found by the statement that reads it
            result = _or_served(source, lambda s: compute(s, filters, play_time=timed, gap_minutes=gap),
                                lambda server: server.stats(filters, play_time=timed, gap_minutes=gap))
    except StoreError as e:
        raise fail(str(e)) from None
    if sort is not None or (fmt == "table" and result.table.height):  # the grid: most hands first unless told
        try:
            result = sort_players(result, sort, rates)
        except GridError as e:
            raise fail(str(e)) from None
    if grid:
        width = shutil.get_terminal_size((80, 24)).columns  # $COLUMNS, else the terminal's, else 80 (not a terminal)
        sys.stdout.write(to_grid(result, rates, columns=keys, width=width, raw=raw))
        return
    render = {"table": to_text, "detail": to_text, "csv": to_csv, "json": to_json}[fmt]
    sys.stdout.write(render(result, rates, raw=raw))


def report(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The HTML file to write (one self-contained file).")],
    db: DbOption = None,
    parquet: ParquetOption = None,
    player: PlayerOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    site: SiteOpt = None,
    profile: ProfileOpt = None,
    structure: StructureOpt = None,
    max_seats: SeatsOpt = None,
    min_hands: MinHandsOpt = 0,
    stakes: StakesOpt = None,
    day_start: DayStartOpt = 0,
    currency: CurrencyOpt = None,
    rate: RateOpt = None,
    verdicts: VerdictsOpt = None,
    tag: TagOpt = None,
    gap: Annotated[int, typer.Option("--session-gap", min=1, metavar="MINUTES", help="Minutes without a hand that start a new session.")] = 30,
) -> None:
    """Write one self-contained HTML report: winnings graph, statistics, aggression, showdowns, sessions, audit."""
    from hhtool.stats.report import EmptyReportError, write_report
    from hhtool.store.db import StoreError, database_errors, resolve_db_path

    filters, rates = _stats_args(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start, currency, rate, verdicts, tag)
    try:
        source = _source(db, parquet)
        with database_errors(source, everything=True):
            path = _or_served(source, lambda s: write_report(s, out, filters, gap_minutes=gap, rates=rates),
                              lambda server: server.report(out, filters, gap_minutes=gap, rates=rates))
    except EmptyReportError as e:
        raise fail(str(e), EXIT_FINDINGS) from None
    except StoreError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"cannot write {out}: {e.strerror}") from None
    typer.echo(f"report written to {path}", err=True)


def serve(
    db: DbOption = None,
    watch: Annotated[
        Optional[list[Path]],
        typer.Option("--watch", metavar="DIR", help="A folder whose hand histories are imported as they are written (repeatable)."),
    ] = None,
    host: Annotated[str, typer.Option("--host", metavar="ADDRESS", help="The address to listen on; any other than the loopback lets other machines in, with no password.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, metavar="N", help="The port to listen on (0: any free one).")] = 8765,
    workers: Annotated[
        int, typer.Option("--workers", min=0, max=64, metavar="N", help="Worker processes of the auto-import at most (default 1: the server's memory; 0: none, it reads in the server's process).")
    ] = 1,
    rooms: RoomsOption = None,
) -> None:
    """Serve the database in the browser: hands, replays, players' statistics, the audit, a JSON API (docs/serve.md).

    While it runs, stats, query, report and export on its database read it through the server, with the same output.
    """
    from hhtool.cli_rooms import rooms_or_fail
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.web.server import ServeError
    from hhtool.web.server import serve as run

    from hhtool.game.room import NO_ROOMS

    # the hands the watch imports are replayed under them: read and checked before anything is served
    governing = rooms_or_fail(rooms) if watch or rooms is not None else NO_ROOMS
    try:
        run(resolve_db_path(db), host=host, port=port, watch=watch or (), workers=workers, rooms=governing)
    except (StoreError, ServeError) as e:
        raise fail(str(e)) from None
