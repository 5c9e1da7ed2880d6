"""The ``hhtool`` command line: a thin layer over the library.

Each command builds library objects, calls them, and maps domain errors
to exit codes: 0 ok, 1 findings or failures, 2 usage errors.  Heavy
libraries and even our own evaluator are imported inside the commands so
that ``hhtool --help`` stays instant.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from .stats import Filters

app = typer.Typer(
    name="hhtool",
    help="Parse, audit and analyse Telesina hand histories.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


@app.callback()
def _root() -> None:
    """Parse, audit and analyse Telesina hand histories."""


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    typer.echo(f"hhtool: {message}", err=True)
    return typer.Exit(code)


@app.command()
def rank(
    hands: Annotated[Optional[list[str]], typer.Argument(help='One player\'s own cards each, in quotes: "Qc Qs 9c Jc Jd".')] = None,
    rules: Annotated[str, typer.Option("--rules", help="Rule profile: classic, stellapoker or italian.")] = "classic",
    vela: Annotated[Optional[str], typer.Option("--vela", help="The vela (community card), e.g. Ks.")] = None,
    players: Annotated[Optional[int], typer.Option("--players", help="Players dealt in (sizes the italian deck); default: the number of hands.")] = None,
    wild: Annotated[Optional[str], typer.Option("--wild", help="Italian only: the wild rank, e.g. 7.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array, in input order.")] = False,
    batch: Annotated[Optional[Path], typer.Option("--batch", help="Read JSON lines {hands, vela, players}; '-' is standard input.")] = None,
) -> None:
    """Rank Telesina hands under a rule profile and say why the winner wins."""
    from . import rank as rank_mod
    from .cards import CardError
    from .rules import RulesError

    try:
        ruleset = rank_mod.ruleset_for(rules, wild)
    except (RulesError, CardError) as e:
        raise _fail(str(e)) from None

    if batch is not None:
        if hands:
            raise _fail("give hands as arguments or --batch, not both")
        stream = sys.stdin if str(batch) == "-" else None
        try:
            source = stream if stream is not None else open(batch, encoding="utf-8-sig")
        except OSError as e:
            raise _fail(f"cannot read {batch}: {e.strerror}") from None
        with source:
            bad = rank_mod.run_batch(ruleset, source, sys.stdout, sys.stderr, name=str(batch))
        raise typer.Exit(EXIT_USAGE if bad else EXIT_OK)

    if not hands:
        raise _fail("give at least one hand, e.g. hhtool rank --rules classic \"Qc Qs 9c Jc Jd\"")
    try:
        table = rank_mod.rank_hands(ruleset, hands, vela=vela, players=players)
    except (rank_mod.RankInputError, RulesError, CardError) as e:
        raise _fail(str(e)) from None
    if as_json:
        typer.echo(rank_mod.to_json(table))
    else:
        typer.echo(rank_mod.to_text(table))


@app.command()
def parse(
    files: Annotated[list[Path], typer.Argument(help="Hand-history files to read.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per hand (or failed hand), one per line.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first hand that does not parse.")] = False,
) -> None:
    """Parse hand histories: a summary, or --json with every hand's events."""
    import json
    import warnings

    from .errors import ErrorRecord, HandHistoryError
    from .jsonify import error_dict, hand_dict
    from .reader import Cp1252Warning, Skipped, read_file

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise _fail(f"no such file: {', '.join(missing)}")
    counts = {"files": 0, "hands": 0, "errors": 0, "skipped": 0}
    problems: list[str] = []
    notes: list[str] = []
    warnings.simplefilter("ignore", Cp1252Warning)  # reported below as a warning line
    for path in files:
        counts["files"] += 1
        try:
            for record in read_file(path, strict=strict, notes=notes):
                if isinstance(record, Skipped):
                    counts["skipped"] += record.count
                    problems.append(f"{record.source}:{record.line}: skipped {record.count} line(s) outside any hand: {record.first_text[:60]!r}")
                elif isinstance(record, ErrorRecord):
                    counts["errors"] += 1
                    problems.append(str(record))
                    if as_json:
                        typer.echo(json.dumps(error_dict(record), ensure_ascii=False))
                else:
                    counts["hands"] += 1
                    if as_json:
                        typer.echo(json.dumps(hand_dict(record), ensure_ascii=False))
        except HandHistoryError as e:
            typer.echo(f"hhtool: {e}", err=True)
            if e.line_text is not None:
                typer.echo(f"    {e.line_text}", err=True)
                if e.column is not None:
                    typer.echo("    " + " " * (e.column - 1) + "^", err=True)
            raise typer.Exit(EXIT_FINDINGS) from None
        except OSError as e:
            raise _fail(f"cannot read {path}: {e.strerror}") from None
    for note in notes:
        typer.echo(f"warning: {note}", err=True)
    out = sys.stderr if as_json else sys.stdout
    for problem in problems:
        print(problem, file=out)
    print(
        f"{counts['files']} file(s), {counts['hands']} hand(s) parsed, {counts['errors']} failed"
        + (f", {counts['skipped']} junk line(s) skipped" if counts["skipped"] else ""),
        file=out,
    )
    raise typer.Exit(EXIT_FINDINGS if counts["errors"] else EXIT_OK)


@app.command()
def audit(
    files: Annotated[list[Path], typer.Argument(help="Hand-history files to replay.")],
    hand: Annotated[Optional[str], typer.Option("--hand", help="Only the hand with this id.")] = None,
    rules: Annotated[
        Optional[str],
        typer.Option(
            "--rules",
            help="What if the whole hand were played under this profile (classic, stellapoker or italian): "
            "replay everything under it, with the payouts that change.",
        ),
    ] = None,
    showdown_rules: Annotated[
        Optional[str],
        typer.Option(
            "--showdown-rules",
            help="What if the showdown were settled under this profile's comparison (classic, stellapoker or italian: "
            "its tie-break and straight-flush rules), the betting as it was: the pots and the payouts that change.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per hand, one per line.")] = False,
) -> None:
    """Replay hands under their rules: who should have won what, and every finding."""
    import json

    from . import audit as audit_mod
    from .rules import RulesError, profile

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise _fail(f"no such file: {', '.join(missing)}")
    if rules is not None and showdown_rules is not None:
        raise _fail("--rules replays the whole hand and --showdown-rules only its showdown: ask one of them")
    override = showdown = None
    try:
        if rules is not None:
            override = profile(rules)
        if showdown_rules is not None:
            showdown = profile(showdown_rules)
    except RulesError as e:
        raise _fail(str(e)) from None
    counts: dict[str, int] = {}
    try:
        for result in audit_mod.audit_paths(files, hand_id=hand, rules=override, showdown=showdown):
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
            if as_json:
                typer.echo(json.dumps(audit_mod.to_json(result), ensure_ascii=False))
            else:
                typer.echo(audit_mod.to_text(result))
    except OSError as e:
        raise _fail(f"cannot read: {e}") from None
    if hand is not None and not counts:
        raise _fail(f"no hand {hand!r} in {', '.join(str(f) for f in files)}")
    total = sum(counts.values())
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    typer.echo(f"{total} hand(s) audited: {summary or 'none'}", err=as_json)
    raise typer.Exit(EXIT_OK if counts.get("ok", 0) == total else EXIT_FINDINGS)


DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="The database file (default: $HHTOOL_DB, else ~/.local/share/hhtool/hhtool.duckdb or under $XDG_DATA_HOME)."),
]


@app.command("import")
def import_(
    paths: Annotated[list[str], typer.Argument(help="Files, folders (recursively), globs, .zip and .gz archives.")],
    db: DbOption = None,
    workers: Annotated[Optional[int], typer.Option("--workers", help="Worker processes that parse and replay (default: one per core; 0: none).")] = None,
    batch: Annotated[int, typer.Option("--batch", min=1, help="Hands per transaction: what an interrupted import may have to redo.")] = 10_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Import hand histories into the database: every hand once, replayed, with its verdict and findings.

    Exit codes: 0 when every hand was stored (or already was), whatever its
    verdict; 1 when a hand failed to parse or replay, conflicted with a
    stored hand of the same id, or a file could not be read (a truncated
    .gz: the other files are imported); 2 for usage errors (no such path, the
    database in use by another process); 130 when interrupted (run the
    same command again to finish).
    """
    import json

    from .store.db import StoreError, resolve_db_path
    from .store.importer import ImportPathError, Progress, import_paths, summary_dict

    path = resolve_db_path(db)
    try:
        summary = import_paths(paths, path, workers=workers, batch_hands=batch, progress=Progress(0, enabled=False if as_json else None))
    except ImportPathError as e:
        raise _fail(str(e)) from None
    except StoreError as e:
        raise _fail(str(e)) from None
    if summary.interrupted:
        import signal

        # stopped and committed already: more Ctrl-Cs would only cut the summary and the workers' exit short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if as_json:
        typer.echo(json.dumps({"db": str(path), **summary_dict(summary)}, ensure_ascii=False))
    else:
        typer.echo(f"database: {path}")
        typer.echo(summary.text())
    if summary.interrupted:
        raise typer.Exit(130)
    raise typer.Exit(EXIT_OK if summary.ok else EXIT_FINDINGS)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help='SQL to run read-only, e.g. "SELECT verdict, count(*) FROM hands GROUP BY verdict".')],
    db: DbOption = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    out: Annotated[Optional[Path], typer.Option("--out", help="Write to this file instead of standard output.")] = None,
) -> None:
    """Run read-only SQL on the database and print the result (tables in docs/schema.md)."""
    from .store.db import StoreError, resolve_db_path
    from .store.query import render, run_query

    if fmt not in ("table", "csv", "json"):
        raise _fail(f"unknown format {fmt!r}: use table, csv or json")
    try:
        df = run_query(resolve_db_path(db), sql)
    except StoreError as e:
        raise _fail(str(e)) from None
    text = render(df, fmt)  # type: ignore[arg-type]
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as e:
            raise _fail(f"cannot write {out}: {e.strerror}") from None
    else:
        sys.stdout.write(text)


@app.command()
def export(
    parquet: Annotated[Path, typer.Option("--parquet", help="Folder to write the tables to, as Parquet partitioned by date.")],
    db: DbOption = None,
) -> None:
    """Export every table as Parquet (hand tables partitioned by date=YYYY-MM-DD) for DuckDB, Spark or Trino."""
    from .store.db import StoreError, resolve_db_path
    from .store.query import export_parquet

    try:
        counts = export_parquet(resolve_db_path(db), parquet)
    except StoreError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"cannot write {parquet}: {e.strerror}") from None
    typer.echo(", ".join(f"{name} {n:,}" for name, n in counts.items()) + f" rows written under {parquet}")


@app.command()
def simulate(
    out: Annotated[Path, typer.Option("--out", help="The hand-history file to write.")],
    hands: Annotated[int, typer.Option("--hands", help="How many hands.")] = 1000,
    rules: Annotated[str, typer.Option("--rules", help="Rule profile: classic, stellapoker or italian.")] = "classic",
    structure: Annotated[str, typer.Option("--structure", help="fixed, pot or no (limit).")] = "fixed",
    players: Annotated[int, typer.Option("--players", help="Players at the table: 2-6 (italian 2-8).")] = 6,
    italian_options: Annotated[Optional[str], typer.Option("--italian-options", help="Comma list: vela-at-start, wild=RANK, carte-coperte | una-coperta.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="The same seed writes the same bytes.")] = 0,
    view: Annotated[str, typer.Option("--view", help="'audit' (every hole card) or a player's name (their own history).")] = "audit",
    site: Annotated[Optional[str], typer.Option("--site", help="Room name: Vela (€), StellaPoker ($), Tavolo (chips) or any word (€).")] = None,
    faults: Annotated[float, typer.Option("--faults", help="Share of hands to alter with a fault class; manifest in FILE.faults.jsonl.")] = 0.0,
    jobs: Annotated[
        int, typer.Option("--jobs", help="Worker processes; 0: one per core (the output does not depend on it).")
    ] = 0,
) -> None:
    """Simulate Telesina hands that audit ok, optionally with faults and a manifest."""
    from .simulate import SimulationError, make_config, write_simulation

    if hands < 0:
        raise _fail(f"--hands {hands}: not a number of hands")
    if jobs < 0:
        raise _fail(f"--jobs {jobs}: at least 0 (0 is one per core)")
    if jobs == 0:
        jobs = os.cpu_count() or 1
    try:
        config = make_config(
            rules=rules,
            structure=structure,
            players=players,
            italian_options=italian_options,
            seed=seed,
            view=view,
            site=site,
            faults=faults,
        )
        result = write_simulation(config, hands, out, jobs=jobs)
    except SimulationError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"cannot write {out}: {e.strerror}") from None
    note = f", {result.faults} altered (manifest {result.manifest})" if result.manifest is not None else ""
    typer.echo(f"{result.hands} hand(s) written to {result.out}{note}", err=True)


def _stats_filters(
    player: Optional[list[str]],
    date_from: Optional[str],
    date_to: Optional[str],
    site: Optional[list[str]],
    profile: Optional[list[str]],
    structure: Optional[list[str]],
    max_seats: Optional[list[int]],
    min_hands: int,
    stakes: Optional[list[str]] = None,
    day_start: int = 0,
) -> "Filters":
    import datetime as dt

    from .stats import Filters

    def day(value: Optional[str], name: str) -> Optional[dt.date]:
        if value is None:
            return None
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise _fail(f"{name} {value!r}: not a date (YYYY-MM-DD)") from None

    for s in structure or []:
        if s not in ("fixed", "pot", "no"):
            raise _fail(f"--structure {s!r}: use fixed, pot or no")
    for p in profile or []:
        if p not in ("classic", "stellapoker", "italian"):
            raise _fail(f"--profile {p!r}: use classic, stellapoker or italian")
    parsed_stakes: list[tuple[str, str]] = []
    for st in stakes or []:
        small, sep, big = st.replace("€", "").replace("$", "").replace("£", "").replace(",", "").partition("/")
        if not sep or not all(part.replace(".", "", 1).isdigit() for part in (small, big)):
            raise _fail(f"--stakes {st!r}: write the small and big bet as in the header, e.g. 0.50/1.00 or 200/400")
        parsed_stakes.append((small, big))
    return Filters(
        players=tuple(player or ()),
        date_from=day(date_from, "--from"),
        date_to=day(date_to, "--to"),
        sites=tuple(site or ()),
        profiles=tuple(profile or ()),
        structures=tuple(structure or ()),
        max_seats=tuple(max_seats or ()),
        min_hands=min_hands,
        stakes=tuple(parsed_stakes),
        day_start_hour=day_start,
    )


PlayerOpt = Annotated[Optional[list[str]], typer.Option("--player", help="Only this player (repeatable).")]
FromOpt = Annotated[Optional[str], typer.Option("--from", help="First day (YYYY-MM-DD, UTC date the hand started).")]
ToOpt = Annotated[Optional[str], typer.Option("--to", help="Last day, inclusive (YYYY-MM-DD).")]
SiteOpt = Annotated[Optional[list[str]], typer.Option("--site", help="Only this site (repeatable).")]
ProfileOpt = Annotated[Optional[list[str]], typer.Option("--profile", help="classic, stellapoker or italian (repeatable).")]
StructureOpt = Annotated[Optional[list[str]], typer.Option("--structure", help="fixed, pot or no (repeatable).")]
SeatsOpt = Annotated[Optional[list[int]], typer.Option("--max-seats", help="Table size, e.g. 6 for 6-max (repeatable).")]
MinHandsOpt = Annotated[int, typer.Option("--min-hands", min=0, help="Only players with at least this many hands.")]
StakesOpt = Annotated[Optional[list[str]], typer.Option("--stakes", help="Small/big bet as in the header, e.g. 0.50/1.00 (repeatable).")]
DayStartOpt = Annotated[int, typer.Option("--day-start", min=0, max=23, help="Hour (UTC) at which a day starts, for --from/--to.")]


@app.command()
def stats(
    db: DbOption = None,
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
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
) -> None:
    """Player statistics: each one actions / opportunities, '-' without opportunity (docs/stats.md)."""
    from .stats import compute
    from .stats.render import to_csv, to_json, to_text
    from .store.db import StoreError, resolve_db_path

    if fmt not in ("table", "csv", "json"):
        raise _fail(f"unknown format {fmt!r}: use table, csv or json")
    filters = _stats_filters(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start)
    try:
        result = compute(resolve_db_path(db), filters)
    except StoreError as e:
        raise _fail(str(e)) from None
    render = {"table": to_text, "csv": to_csv, "json": to_json}[fmt]
    sys.stdout.write(render(result))


@app.command()
def report(
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write (one self-contained file).")],
    db: DbOption = None,
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
    gap: Annotated[int, typer.Option("--session-gap", min=1, help="Minutes without a hand that start a new session.")] = 30,
) -> None:
    """Write one self-contained HTML report: winnings graph, statistics, aggression, showdowns, sessions, audit."""
    from .stats.report import write_report
    from .store.db import StoreError, resolve_db_path

    filters = _stats_filters(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start)
    try:
        path = write_report(resolve_db_path(db), out, filters, gap_minutes=gap)
    except StoreError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"cannot write {out}: {e.strerror}") from None
    typer.echo(f"report written to {path}", err=True)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
