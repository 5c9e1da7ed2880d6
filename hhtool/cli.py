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
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

import typer
from typer.core import TyperCommand

if TYPE_CHECKING:
    from hhtool.history.currency import Rates
    from hhtool.history.inputs import InputReport
    from hhtool.stats import Filters

app = typer.Typer(
    name="hhtool",
    help="Parse, audit and analyse Telesina hand histories.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help: options as `--player NAME`, choices as <a|b>, flags bare, at any width
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

ProfileName = Literal["classic", "stellapoker", "italian"]
StructureName = Literal["fixed", "pot", "no"]
Format = Literal["table", "csv", "json"]


def _examples(*lines: str) -> str:
    """A command's help epilog: its examples, one command line each, kept as written (click's \\b)."""
    return "Examples:\n\n\b\n" + "\n".join(f"  hhtool {line}" for line in lines)


def _plain_argument_types() -> None:
    """Print an argument by its metavar alone (``PATH...``), not beside its Python type (``<list[str]>``).

    typer shows the annotation of a positional argument next to its name in
    help; an option's metavar already replaces it.  The name we give says
    what to write; the type only confuses a person.
    """
    from typer.core import TyperArgument

    shown = getattr(TyperArgument, "display_type_rich", None)
    if shown is None or getattr(shown, "_hhtool", False):
        return

    def display_type_rich(self: TyperArgument, ctx: object) -> str | None:
        return None if self.metavar else shown(self, ctx)

    setattr(display_type_rich, "_hhtool", True)
    setattr(TyperArgument, "display_type_rich", display_type_rich)


_plain_argument_types()


def _version(value: bool) -> None:
    if value:
        from hhtool import __version__

        typer.echo(f"hhtool {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print hhtool's version and exit.", is_eager=True, callback=_version)] = False,
) -> None:
    """Parse, audit and analyse Telesina hand histories.

    Exit codes: 0 ok, 1 findings or failures, 2 usage errors.
    """


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    from hhtool.textsafe import term_lines

    typer.echo(f"hhtool: {term_lines(message)}", err=True)  # it may name a file or quote a hand
    return typer.Exit(code)


@app.command(epilog=_examples(
    'rank --rules classic --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
    'rank --json --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
    "rank --batch hands.jsonl",
))
def rank(
    hands: Annotated[Optional[list[str]], typer.Argument(metavar="HAND", help='One player\'s own cards each, in quotes: "Qc Qs 9c Jc Jd".', show_default=False)] = None,
    rules: Annotated[ProfileName, typer.Option("--rules", help="The rule profile (RULES.md).")] = "classic",
    vela: Annotated[Optional[str], typer.Option("--vela", metavar="CARD", help="The vela (community card), e.g. Ks.")] = None,
    players: Annotated[Optional[int], typer.Option("--players", metavar="N", help="Players dealt in (sizes the italian deck); default: the number of hands.")] = None,
    wild: Annotated[Optional[str], typer.Option("--wild", metavar="RANK", help="Italian only: the wild rank, e.g. 7.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array, in input order.")] = False,
    batch: Annotated[Optional[Path], typer.Option("--batch", metavar="FILE", help="Read JSON lines {hands, vela, players}; '-' is standard input.")] = None,
) -> None:
    """Rank Telesina hands under a rule profile and say why the winner wins."""
    from hhtool.game import rank as rank_mod
    from hhtool.game.cards import CardError
    from hhtool.game.rules import RulesError

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


@app.command(epilog=_examples(
    'equity --rules classic "Qc Qs 9c" "Ah Kd Jh"',
    'equity --rules classic --dead "7h 8d" "?? Qs 9c Jc" "?? Kd Jh 9h"',
    'equity --rules italian --players 5 --json "Qc Qs 9c" "Ah Ad 7c"',
))
def equity(
    hands: Annotated[Optional[list[str]], typer.Argument(metavar="HAND", show_default=False, help='One player\'s cards so far each, in quotes, hole card first: "Qc Qs 9c"; ?? for a card nobody has seen.')] = None,
    rules: Annotated[ProfileName, typer.Option("--rules", help="The rule profile (RULES.md).")] = "classic",
    vela: Annotated[Optional[str], typer.Option("--vela", metavar="CARD", help="The vela when it is up, e.g. Ks (italian: ?? for one still down).")] = None,
    dead: Annotated[Optional[list[str]], typer.Option("--dead", metavar="CARDS", help='Cards seen and out of play (folded players\' up cards): "7h 8d".')] = None,
    players: Annotated[Optional[int], typer.Option("--players", metavar="N", help="Players dealt in (sizes the italian deck); default: the number of hands.")] = None,
    wild: Annotated[Optional[str], typer.Option("--wild", metavar="RANK", help="Italian only: the wild rank, e.g. 7.")] = None,
    samples: Annotated[Optional[int], typer.Option("--samples", metavar="N", help="Runouts drawn when there are too many to count (default 100,000).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", metavar="N", help="Seed of the drawing (default 0): the same seed gives the same figures.")] = None,
    exact_limit: Annotated[
        Optional[int],
        typer.Option("--exact-limit", metavar="N", min=0, help="Count every runout only up to N of them, else sample (default 30,000,000 heads up, 10,000,000 with more)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object, players in input order.")] = False,
) -> None:
    """Each player's equity (expected share of the pot), win and tie chance: exact, or sampled when runouts are too many."""
    from hhtool.game import equity as equity_mod
    from hhtool.game import rank as rank_mod
    from hhtool.game.cards import CardError
    from hhtool.game.rules import RulesError

    try:
        ruleset = rank_mod.ruleset_for(rules, wild)
    except (RulesError, CardError) as e:
        raise _fail(str(e)) from None
    if not hands or len(hands) < 2:  # one player alone wins every runout: no question to count
        raise _fail("give the hands of at least two players, e.g. hhtool equity --rules classic \"Qc Qs 9c\" \"Ah Kd Jh\"")
    try:
        result = equity_mod.equity_from_text(
            ruleset,
            hands,
            vela=vela,
            dead=dead or [],
            players=players,
            samples=equity_mod.DEFAULT_SAMPLES if samples is None else samples,
            seed=equity_mod.DEFAULT_SEED if seed is None else seed,
            exact_limit=exact_limit,
        )
    except (rank_mod.RankInputError, RulesError, CardError) as e:
        raise _fail(str(e)) from None
    typer.echo(equity_mod.to_json(result) if as_json else equity_mod.to_text(result))


def _echo(text: str, *, raw: bool, err: bool = False) -> None:
    """``typer.echo``, but with ``raw`` exactly the text: click would cut ``ESC [ ... m`` out when not on a terminal."""
    typer.echo(text, err=err, color=True if raw else None)


RawOpt = Annotated[
    bool,
    typer.Option("--raw", help="Write strings from hand histories as they are: no escaping of control characters, no CSV formula prefix (docs/format-notes.md)."),
]


InputsArg = Annotated[
    list[str],
    typer.Argument(metavar="PATH", help="Files, folders (recursively), globs, .zip and .gz archives: what import reads.", show_default=False),
]


def _input_problems(report: "InputReport", raw: bool = False) -> bool:
    """Say what the inputs held besides hands (on standard error); True when that is a failure (exit 1)."""
    from hhtool.textsafe import term

    for note in report.notes():
        _echo(note if raw else term(note), raw=raw, err=True)
    problems = report.problems()
    for problem in problems:
        _echo(f"hhtool: {problem if raw else term(problem)}", raw=raw, err=True)
    return bool(problems)


@app.command(epilog=_examples("parse sample_histories/", "parse --json table.txt > hands.jsonl", "parse --strict histories/*.txt"))
def parse(
    files: InputsArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per hand (or failed hand), one per line.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first hand that does not parse.")] = False,
    raw: RawOpt = False,
) -> None:
    """Parse hand histories: a summary, or --json with every hand's events."""
    import warnings

    from hhtool.history.errors import ErrorRecord, HandHistoryError
    from hhtool.history.inputs import InputReport, read_inputs
    from hhtool.history.jsonify import error_dict, hand_dict
    from hhtool.history.reader import Cp1252Warning, Skipped
    from hhtool.store.importer import ImportPathError
    from hhtool.textsafe import dumps, term

    def shown(text: str) -> str:
        return text if raw else term(text)

    counts = {"hands": 0, "errors": 0, "skipped": 0}
    problems: list[str] = []
    notes: list[str] = []
    report = InputReport()
    warnings.simplefilter("ignore", Cp1252Warning)  # reported below as a warning line
    try:
        for _name, record in read_inputs(files, strict=strict, notes=notes, report=report):
            if isinstance(record, Skipped):
                counts["skipped"] += record.count
                problems.append(shown(f"{record.source}:{record.line}: skipped {record.count} line(s) outside any hand: {record.first_text[:60]!r}"))
            elif isinstance(record, ErrorRecord):
                counts["errors"] += 1
                problems.append(record.describe(raw=raw))
                if as_json:
                    typer.echo(dumps(error_dict(record)))
            else:
                counts["hands"] += 1
                if as_json:
                    typer.echo(dumps(hand_dict(record)))
    except ImportPathError as e:
        raise _fail(str(e)) from None
    except HandHistoryError as e:
        _echo(f"hhtool: {e.describe(raw=raw)}", raw=raw, err=True)
        if e.line_text is not None:
            _echo(f"    {shown(e.line_text)}", raw=raw, err=True)
            if e.column is not None:  # under the same character, escapes before it counted
                typer.echo("    " + " " * len(shown(e.line_text[: e.column - 1])) + "^", err=True)
        raise typer.Exit(EXIT_FINDINGS) from None
    for note in notes:
        _echo(f"warning: {shown(note)}", raw=raw, err=True)
    out = sys.stderr if as_json else sys.stdout
    for problem in problems:
        print(problem, file=out)
    print(
        f"{report.files} file(s), {counts['hands']} hand(s) parsed, {counts['errors']} failed"
        + (f", {counts['skipped']} junk line(s) skipped" if counts["skipped"] else ""),
        file=out,
    )
    failed = _input_problems(report, raw)
    raise typer.Exit(EXIT_FINDINGS if counts["errors"] or failed else EXIT_OK)


@app.command(epilog=_examples(
    "audit sample_histories/000_format_example.txt",
    "audit histories/ --hand C-1001 --rules stellapoker",
    "audit table.txt --showdown-rules stellapoker",
    "audit table.txt.gz --json > audit.jsonl",
    "audit big.txt --no-equity",
))
def audit(
    files: InputsArg,
    hand: Annotated[Optional[str], typer.Option("--hand", metavar="ID", help="Only the hand with this id.")] = None,
    rules: Annotated[
        Optional[ProfileName],
        typer.Option("--rules", help="What if the whole hand were played under this profile: replay everything under it, with the payouts that change."),
    ] = None,
    showdown_rules: Annotated[
        Optional[ProfileName],
        typer.Option(
            "--showdown-rules",
            help="What if the showdown were settled under this profile's comparison (its tie-break and straight-flush rules), "
            "the betting as it was: the pots and the payouts that change.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per hand, one per line.")] = False,
    equity: Annotated[
        bool,
        typer.Option(
            "--equity/--no-equity",
            help="Each contender's equity after every street's deal where the cards are known "
            "(a few hundredths of a second a hand; --no-equity for a big file).",
        ),
    ] = True,
    raw: RawOpt = False,
) -> None:
    """Replay hands under their rules: who should have won what, and every finding."""
    from hhtool.replay import audit as audit_mod
    from hhtool.history.inputs import InputReport
    from hhtool.game.rules import RulesError, profile
    from hhtool.store.importer import ImportPathError
    from hhtool.textsafe import dumps

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
    report = InputReport()
    try:
        for result in audit_mod.audit_paths(files, hand_id=hand, rules=override, showdown=showdown, report=report, equity=equity):
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
            if as_json:
                typer.echo(dumps(audit_mod.to_json(result)))
            else:
                _echo(audit_mod.to_text(result, raw=raw), raw=raw)
    except ImportPathError as e:
        raise _fail(str(e)) from None
    failed = _input_problems(report, raw)
    if hand is not None and not counts and not failed:
        raise _fail(f"no hand {hand!r} in {', '.join(str(f) for f in files)}")
    total = sum(counts.values())
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    typer.echo(f"{total} hand(s) audited: {summary or 'none'}", err=as_json)
    raise typer.Exit(EXIT_OK if counts.get("ok", 0) == total and not failed else EXIT_FINDINGS)


DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="FILE", help="The database file (default: $HHTOOL_DB, else ~/.local/share/hhtool/hhtool.duckdb or under $XDG_DATA_HOME)."),
]


ParquetOption = Annotated[
    Optional[Path],
    typer.Option("--parquet", metavar="DIR", help="Read this Parquet dataset (spark-import --out, or export --parquet) in place of --db."),
]


def _source(db: Optional[Path], parquet: Optional[Path]) -> Path:
    """The database to read: ``--parquet DIR`` as the same tables (views over its committed files), else ``--db``'s."""
    from hhtool.store.db import resolve_db_path

    if parquet is None:
        return resolve_db_path(db)
    if db is not None:
        raise _fail("give --db or --parquet, not both")
    from hhtool.store.parquet import ParquetDataset

    return ParquetDataset(parquet)


@app.command("import", epilog=_examples(
    "import sample_histories/ --db hands.duckdb",
    "import 'histories/**/*.txt' archive.zip old.txt.gz",
    "import histories/ --json",
))
def import_(
    paths: InputsArg,
    db: DbOption = None,
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="N", help="Worker processes that parse and replay (default: one per core; 0: none).")] = None,
    batch: Annotated[int, typer.Option("--batch", min=1, metavar="HANDS", help="Hands per transaction: what an interrupted import may have to redo.")] = 10_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    raw: RawOpt = False,
) -> None:
    """Import hand histories into the database: every hand once, replayed, with its verdict and findings.

    Exit codes: 0 when every hand was stored (or already was), whatever its
    verdict; 1 when a hand failed to parse or replay, conflicted with a
    stored hand of the same id, or a file, folder or archive could not be
    read (a truncated .gz or .zip: the other files are imported; FIFOs,
    devices, sockets and link loops met in a folder are skipped with a
    note, docs/format-notes.md), or, as for parse, a file named holds no
    hand or the inputs none (an empty folder); 2 for usage errors (no such
    path, the database in use by another process, not hhtool's, damaged,
    or not writable: a full disk, a read-only folder); 130 when
    interrupted (run the same command again to finish).
    """
    from hhtool.cli_progress import Progress, ctrl_c_cancels
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.store.importer import Cancel, ImportPathError, import_paths, summary_dict
    from hhtool.textsafe import dumps, term

    path = resolve_db_path(db)
    cancel = Cancel()
    progress = Progress(enabled=False if as_json else None)
    try:
        with ctrl_c_cancels(cancel):
            try:
                summary = import_paths(paths, path, workers=workers, batch_hands=batch, progress=progress, cancel=cancel)
            finally:
                progress.close()
    except ImportPathError as e:
        raise _fail(str(e)) from None
    except StoreError as e:
        raise _fail(str(e)) from None
    if summary.interrupted:
        import signal

        # stopped and committed already: more Ctrl-Cs would only cut the summary and the workers' exit short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if as_json:
        typer.echo(dumps({"db": str(path), **summary_dict(summary)}))
    else:
        typer.echo(f"database: {path}")
        _echo(summary.text(raw=raw), raw=raw)
    if summary.interrupted:
        raise typer.Exit(130)
    problems = [f"{name}: no hand in it" for name in summary.no_hand]
    if not problems and not summary.unreadable and summary.hands == 0 and summary.unchanged == 0:
        problems.append("no hand in the inputs" + (f" ({summary.files:,} file(s) read)" if summary.files else " (no file found)"))
    for problem in problems:
        _echo(f"hhtool: {problem if raw else term(problem)}", raw=raw, err=True)
    raise typer.Exit(EXIT_OK if summary.ok and not problems else EXIT_FINDINGS)


class _TextArgumentsCommand(TyperCommand):
    """A command whose argument is free text that may start with ``-``: SQL's ``-- a comment``.

    click takes every word starting with ``-`` for an option, so
    ``hhtool query "-- totals\nSELECT 1"`` would be an unknown option.  No
    option's name holds a space or a line break, so a word starting with
    ``-`` whose name part (before any ``=``) holds one is the argument: it
    is moved after a ``--``, where click reads arguments only.  A word
    that could be an option stays one (a mistyped ``--fromat`` is still
    refused by name), and the value of an option is never moved.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: click's Context, which typer does not export
        return super().parse_args(ctx, _text_after_dashes(args, self.get_params(ctx)))


def _text_after_dashes(args: list[str], params: list[Any]) -> list[str]:
    """``args`` with the words that cannot be options (and those after a ``--``) after one ``--``, in their order."""
    valued = {name for p in params if p.param_type_name == "option" and not p.is_flag and not p.count for name in p.opts}
    options: list[str] = []
    texts: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--":
            texts.extend(words)
            break
        name = word.split("=", 1)[0]
        if word.startswith("-") and len(word) > 1 and not any(c.isspace() for c in name):
            options.append(word)
            value = next(words, None) if word in valued else None  # an option's value is never an argument
            if value is not None:
                options.append(value)
        else:
            texts.append(word)
    return options + ["--", *texts] if texts else options


@app.command(cls=_TextArgumentsCommand, epilog=_examples(
    'query "SELECT verdict, count(*) AS hands FROM hands GROUP BY verdict"',
    'query --format csv --out seats.csv "SELECT * FROM seats"',
    "query --file totals.sql --db hands.duckdb",
    "query --file - < totals.sql",
))
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
        raise _fail(f"unknown format {fmt!r}: use table, csv or json")
    if (sql is None) == (file is None):
        raise _fail("give the SQL as an argument or with --file FILE, one of them" if sql is None else "give the SQL as an argument or with --file, not both")
    if file is not None:
        sql = _read_text_input(file)
    assert sql is not None
    try:
        df = run_query(_source(db, parquet), sql, timeout=timeout)
    except StoreError as e:
        raise _fail(str(e)) from None
    text = render(df, fmt, raw=raw)
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as e:
            raise _fail(f"cannot write {out}: {e.strerror}") from None
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
        raise _fail(f"cannot read {path}: {why}") from None


@app.command(epilog=_examples("export --parquet exported/ --db hands.duckdb"))
def export(
    parquet: Annotated[Path, typer.Option("--parquet", metavar="DIR", help="Folder to write the tables to, as Parquet partitioned by date.")],
    db: DbOption = None,
) -> None:
    """Export every table as Parquet (hand tables partitioned by date=YYYY-MM-DD) for DuckDB, Spark or Trino."""
    from hhtool.store.db import StoreError, database_errors, resolve_db_path
    from hhtool.store.query import export_parquet

    try:
        with database_errors(resolve_db_path(db), everything=True):
            counts = export_parquet(resolve_db_path(db), parquet)
    except StoreError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"cannot write {parquet}: {e.strerror}") from None
    typer.echo(", ".join(f"{name} {n:,}" for name, n in counts.items()) + f" rows written under {parquet}")


@app.command("spark-import", epilog=_examples(
    "spark-import sample_histories/ --out lake/",
    "spark-import 'hdfs:///vela/2026/*/*.gz' --out hdfs:///vela/lake",
    "spark-import s3a://room/hands/ --out s3a://room/lake/ --master yarn",
))
def spark_import_(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", show_default=False, help="Files, folders (recursively), globs, .zip and .gz, on any file system Spark reads.")],
    out: Annotated[str, typer.Option("--out", metavar="DIR", help="The Parquet dataset to add the hands to (created; one committed run per import).")],
    master: Annotated[Optional[str], typer.Option("--master", metavar="URL", help="Spark's master (default local[*]: every core of this machine).")] = None,
    partitions: Annotated[Optional[int], typer.Option("--partitions", min=1, metavar="N", help="Tasks the parse is split into (default: one a file, at most 16 a core); the write runs at most 4 a core.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Import hand histories with Apache Spark into a Parquet dataset: the tables of import, exactly once across runs.

    Each run is committed whole or not at all (a killed run leaves the
    dataset as it was; run it again). Read it with stats, report and query
    --parquet DIR. Needs the spark extra and Java 17 (docs/scale.md).
    Exit codes as import's: 0 ok, 1 failed, conflicting or unreadable, 2 usage.
    """
    from hhtool.spark.job import SparkImportError, spark_import
    from hhtool.textsafe import dumps

    try:
        summary = spark_import(paths, out, master=master, partitions=partitions)
    except SparkImportError as e:
        raise _fail(str(e)) from None
    if as_json:
        typer.echo(dumps(summary.as_dict()))
    else:
        typer.echo(summary.text())
    raise typer.Exit(EXIT_OK if summary.ok else EXIT_FINDINGS)


@app.command(epilog=_examples(
    "simulate --hands 1000 --rules classic --out classic.txt",
    "simulate --rules italian --italian-options wild=7 --out italian.txt",
    "simulate --hands 200 --faults 0.1 --seed 7 --out faulty.txt",
))
def simulate(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The hand-history file to write.")],
    hands: Annotated[int, typer.Option("--hands", metavar="N", help="How many hands.")] = 1000,
    rules: Annotated[ProfileName, typer.Option("--rules", help="The rule profile (RULES.md).")] = "classic",
    structure: Annotated[StructureName, typer.Option("--structure", help="Fixed, pot or no limit.")] = "fixed",
    players: Annotated[int, typer.Option("--players", metavar="N", help="Players at the table: 2-6 (italian 2-8).")] = 6,
    italian_options: Annotated[Optional[str], typer.Option("--italian-options", metavar="LIST", help="Comma list: vela-at-start, wild=RANK, carte-coperte | una-coperta.")] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="The same seed writes the same bytes.")] = 0,
    view: Annotated[str, typer.Option("--view", metavar="NAME", help="'audit' (every hole card) or a player's name (their own history).")] = "audit",
    site: Annotated[Optional[str], typer.Option("--site", metavar="NAME", help="Room name: Vela (€), StellaPoker ($), Tavolo (chips) or any word (€).")] = None,
    faults: Annotated[float, typer.Option("--faults", metavar="SHARE", help="Share of hands to alter with a fault class; manifest in FILE.faults.jsonl.")] = 0.0,
    jobs: Annotated[
        int, typer.Option("--jobs", metavar="N", help="Worker processes; 0: one per core (the output does not depend on it).")
    ] = 0,
) -> None:
    """Simulate Telesina hands that audit ok, optionally with faults and a manifest."""
    from hhtool.simulate import SimulationError, make_config, write_simulation

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

    from hhtool.stats import Filters

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
        # 16 characters: any amount up to money.MAX_AMOUNT, and no int() of thousands of digits
        if not sep or not all(part.replace(".", "", 1).isdigit() and len(part) <= 16 for part in (small, big)):
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


def _rates(currency: Optional[str], rate: Optional[list[str]]) -> "Rates | None":
    from hhtool.history.currency import Rates, RatesError

    if currency is None:
        if rate:
            raise _fail("--rate needs --currency: the currency the rates convert to, e.g. --currency EUR")
        return None
    try:
        return Rates.parse(currency, rate or [])
    except RatesError as e:
        raise _fail(str(e)) from None


@app.command(epilog=_examples(
    "stats --db hands.duckdb",
    "stats --player alice --from 2026-11-01 --to 2026-11-30",
    "stats --structure fixed --min-hands 100 --format csv > stats.csv",
    "stats --player alice --currency EUR --rate USD=0.92 --rate GBP=1.17",
))
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
    fmt: Annotated[Format, typer.Option("--format", help="How to print the statistics.")] = "table",
    raw: RawOpt = False,
) -> None:
    """Player statistics: each one actions / opportunities, '-' without opportunity (docs/stats.md)."""
    from hhtool.stats import compute
    from hhtool.stats.render import to_csv, to_json, to_text
    from hhtool.store.db import StoreError, database_errors, resolve_db_path

    if fmt not in ("table", "csv", "json"):
        raise _fail(f"unknown format {fmt!r}: use table, csv or json")
    filters = _stats_filters(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start)
    rates = _rates(currency, rate)
    try:
        source = _source(db, parquet)
        with database_errors(source, everything=True):  # a damaged block is found by the statement that reads it
            result = compute(source, filters)
    except StoreError as e:
        raise _fail(str(e)) from None
    render = {"table": to_text, "csv": to_csv, "json": to_json}[fmt]
    sys.stdout.write(render(result, rates, raw=raw))


@app.command(epilog=_examples(
    "report --db hands.duckdb --out report.html",
    "report --player alice --session-gap 45 --out alice.html",
    "report --currency EUR --rate USD=0.92 --out report.html",
))
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
    gap: Annotated[int, typer.Option("--session-gap", min=1, metavar="MINUTES", help="Minutes without a hand that start a new session.")] = 30,
) -> None:
    """Write one self-contained HTML report: winnings graph, statistics, aggression, showdowns, sessions, audit."""
    from hhtool.stats.report import EmptyReportError, write_report
    from hhtool.store.db import StoreError, database_errors, resolve_db_path

    filters = _stats_filters(player, date_from, date_to, site, profile, structure, max_seats, min_hands, stakes, day_start)
    rates = _rates(currency, rate)
    try:
        source = _source(db, parquet)
        with database_errors(source, everything=True):
            path = write_report(source, out, filters, gap_minutes=gap, rates=rates)
    except EmptyReportError as e:
        raise _fail(str(e), EXIT_FINDINGS) from None
    except StoreError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"cannot write {out}: {e.strerror}") from None
    typer.echo(f"report written to {path}", err=True)


@app.command(epilog=_examples(
    "serve --db hands.duckdb",
    "serve --db hands.duckdb --watch ~/histories --port 8800",
    "serve --db hands.duckdb --host 0.0.0.0",
))
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
) -> None:
    """Serve the database in the browser: hands, replays, players' statistics, the audit, a JSON API (docs/serve.md)."""
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.web.server import ServeError
    from hhtool.web.server import serve as run

    try:
        run(resolve_db_path(db), host=host, port=port, watch=watch or (), workers=workers)
    except (StoreError, ServeError) as e:
        raise _fail(str(e)) from None


def main() -> None:
    """Console-script entry point: whatever happens, a person gets a line of words, never a traceback.

    A bug of ours (an exception no command maps to an exit code) ends in
    one line naming the exception and where it was raised, exit 1;
    ``HHTOOL_DEBUG=1`` lets the traceback through for whoever fixes it.  A
    reader that went away (``hhtool audit ... | head``) ends the command
    quietly; Ctrl-C ends it with 130, as shells expect.
    """
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("hhtool: interrupted", err=True)
        raise SystemExit(130) from None
    except BrokenPipeError:
        # the reader of our output is gone: say nothing more, and let no flush at exit fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(EXIT_FINDINGS) from None
    except Exception as e:
        if os.environ.get("HHTOOL_DEBUG") == "1":
            raise
        import traceback

        from hhtool.textsafe import term

        frames = traceback.extract_tb(e.__traceback__)
        where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
        printable = term(f"{type(e).__name__}: {e}"[:500])
        typer.echo(
            f"hhtool: internal error: {printable}{where}. This is a bug in hhtool: please report it with the "
            "command and the input that caused it (HHTOOL_DEBUG=1 shows the traceback).",
            err=True,
        )
        raise SystemExit(EXIT_FINDINGS) from None


if __name__ == "__main__":
    main()
