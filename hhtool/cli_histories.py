"""The commands that read hand histories: ``parse``, ``audit``, ``import`` and ``spark-import``.

Each reads what :mod:`hhtool.history.inputs` reads (files, folders, globs,
archives), hands it to the library, prints what it made of it and says
what the inputs held besides hands (:func:`~hhtool.cli_output.input_problems`);
a hand that fails or a file that cannot be read is exit 1, a usage error 2.
The app registers them (:mod:`hhtool.cli`).
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from hhtool.cli_options import RULES_METAVAR, DbOption, InputsArg, RawOpt, rules_arg
from hhtool.cli_output import EXIT_FINDINGS, EXIT_OK, echo, fail, input_problems
from hhtool.cli_rooms import RoomsOption, rooms_or_fail


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
        raise fail(str(e)) from None
    except HandHistoryError as e:
        echo(f"hhtool: {e.describe(raw=raw)}", raw=raw, err=True)
        if e.line_text is not None:
            echo(f"    {shown(e.line_text)}", raw=raw, err=True)
            if e.column is not None:  # under the same character, escapes before it counted
                typer.echo("    " + " " * len(shown(e.line_text[: e.column - 1])) + "^", err=True)
        raise typer.Exit(EXIT_FINDINGS) from None
    for note in notes:
        echo(f"warning: {shown(note)}", raw=raw, err=True)
    out = sys.stderr if as_json else sys.stdout
    for problem in problems:
        print(problem, file=out)
    print(
        f"{report.files} file(s), {counts['hands']} hand(s) parsed, {counts['errors']} failed"
        + (f", {counts['skipped']} junk line(s) skipped" if counts["skipped"] else ""),
        file=out,
    )
    failed = input_problems(report, raw)
    raise typer.Exit(EXIT_FINDINGS if counts["errors"] or failed else EXIT_OK)


def _audit_width(width: int | None) -> int | None:
    """The columns the audit's text is broken to: ``--width`` (0: never), else the terminal's when the output is one;
    None when it goes to a file or a pipe, which keep one line per fact for ``grep``.

    ``$COLUMNS`` alone does not turn wrapping on: test runners and CI set it for outputs that are no terminal."""
    import shutil

    if width is not None:
        return width or None
    if sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return None


def audit(
    files: InputsArg,
    hand: Annotated[Optional[str], typer.Option("--hand", metavar="ID", help="Only the hand with this id.")] = None,
    rules: Annotated[
        Optional[str],
        typer.Option(
            "--rules",
            metavar=RULES_METAVAR,
            help="What if the whole hand were played under this profile or room file: replay everything under it (a room's rake too), "
            "with the payouts that change.",
        ),
    ] = None,
    showdown_rules: Annotated[
        Optional[str],
        typer.Option(
            "--showdown-rules",
            metavar=RULES_METAVAR,
            help="What if the showdown were settled under this profile's or room file's comparison (its tie-break and straight-flush rules), "
            "the betting as it was: the pots and the payouts that change.",
        ),
    ] = None,
    rooms: RoomsOption = None,
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
    width: Annotated[
        Optional[int],
        typer.Option("--width", min=0, metavar="N", help="Break the text at N columns (0: never); default: the terminal's width, none into a file or pipe."),
    ] = None,
) -> None:
    """Replay hands under their rules: who should have won what, and every finding.

    A hand whose site a room file governs (--rooms, docs/rooms.md) is
    replayed under the room's rules, and its Rake line held against the
    room's rake.
    """
    from hhtool.replay import audit as audit_mod
    from hhtool.history.inputs import InputReport
    from hhtool.store.importer import ImportPathError
    from hhtool.textsafe import dumps

    if rules is not None and showdown_rules is not None:
        raise fail("--rules replays the whole hand and --showdown-rules only its showdown: ask one of them")
    override = rules_arg(rules) if rules is not None else None
    showdown = rules_arg(showdown_rules, "--showdown-rules") if showdown_rules is not None else None
    governing = rooms_or_fail(rooms)
    counts: dict[str, int] = {}
    report = InputReport()
    width = _audit_width(width)
    try:
        for result in audit_mod.audit_paths(files, hand_id=hand, rules=override, showdown=showdown, report=report, equity=equity, rooms=governing):
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
            if as_json:
                typer.echo(dumps(audit_mod.to_json(result)))
            else:
                echo(audit_mod.to_text(result, raw=raw, width=width), raw=raw)
    except ImportPathError as e:
        raise fail(str(e)) from None
    failed = input_problems(report, raw)
    if hand is not None and not counts and not failed:
        raise fail(f"no hand {hand!r} in {', '.join(str(f) for f in files)}")
    total = sum(counts.values())
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    typer.echo(f"{total} hand(s) audited: {summary or 'none'}", err=as_json)
    raise typer.Exit(EXIT_OK if counts.get("ok", 0) == total and not failed else EXIT_FINDINGS)


def import_(
    paths: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="PATH", help="Files, folders (recursively), globs, .zip and .gz archives (none: with --reaudit only).", show_default=False),
    ] = None,
    db: DbOption = None,
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="N", help="Worker processes that parse and replay (default: one per core; 0: none).")] = None,
    batch: Annotated[int, typer.Option("--batch", min=1, metavar="HANDS", help="Hands per transaction (at most; also one each 5 seconds): what an interrupted import may have to redo.")] = 20_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    raw: RawOpt = False,
    rooms: RoomsOption = None,
    reaudit: Annotated[
        bool,
        typer.Option(
            "--reaudit",
            help="Also replay again the stored hands audited under other rules than the room files give now "
            "(a room file changed, added or removed since): their verdicts, findings and payouts replaced.",
        ),
    ] = False,
) -> None:
    """Import hand histories into the database: every hand once, replayed, with its verdict and findings.

    Each hand is replayed under the room file (--rooms) that names its site,
    if any, and stored with the room and its rules' hash; the summary says
    which stored hands were audited under other rules than the room files
    give now, and --reaudit audits them again (with or without paths).

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
    from hhtool.cli_rooms import rooms_or_fail
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.store.importer import Cancel, ImportPathError, import_paths, summary_dict
    from hhtool.textsafe import dumps, term

    if not paths and not reaudit:
        raise fail("give the hand histories to import (PATH...), or --reaudit to audit the stored hands again")
    governing = rooms_or_fail(rooms)  # every room file checked before the database is opened
    path = resolve_db_path(db)
    cancel = Cancel()
    progress = Progress(enabled=False if as_json else None)
    try:
        with ctrl_c_cancels(cancel):
            try:
                summary = import_paths(
                    paths or [], path, workers=workers, batch_hands=batch, progress=progress, cancel=cancel, rooms=governing, reaudit=reaudit
                )
            finally:
                progress.close()
    except ImportPathError as e:
        raise fail(str(e)) from None
    except StoreError as e:
        raise fail(str(e)) from None
    if summary.interrupted:
        import signal

        # stopped and committed already: more Ctrl-Cs would only cut the summary and the workers' exit short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if as_json:
        typer.echo(dumps({"db": str(path), **summary_dict(summary, db=path)}))
    else:
        typer.echo(f"database: {path}")
        echo(summary.text(raw=raw, db=path), raw=raw)
    if summary.interrupted:
        raise typer.Exit(130)
    problems = [f"{name}: no hand in it" for name in summary.no_hand]
    if paths and not problems and not summary.unreadable and summary.hands == 0 and summary.unchanged == 0:
        problems.append("no hand in the inputs" + (f" ({summary.files:,} file(s) read)" if summary.files else " (no file found)"))
    for problem in problems:
        echo(f"hhtool: {problem if raw else term(problem)}", raw=raw, err=True)
    raise typer.Exit(EXIT_OK if summary.ok and not problems else EXIT_FINDINGS)


def spark_import_(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", show_default=False, help="Files, folders (recursively), globs, .zip and .gz, on any file system Spark reads.")],
    out: Annotated[str, typer.Option("--out", metavar="DIR", help="The Parquet dataset to add the hands to (created; one committed run per import).")],
    master: Annotated[Optional[str], typer.Option("--master", metavar="URL", help="Spark's master (default local[*]: every core of this machine).")] = None,
    partitions: Annotated[Optional[int], typer.Option("--partitions", min=1, metavar="N", help="Tasks the parse is split into (default: one a file, at most 16 a core); the write runs at most 4 a core.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    rooms: RoomsOption = None,
) -> None:
    """Import hand histories with Apache Spark into a Parquet dataset: the tables of import, exactly once across runs.

    Each run is committed whole or not at all (a killed run leaves the
    dataset as it was; run it again). Read it with stats, report and query
    --parquet DIR. Needs the spark extra and Java 17 (docs/scale.md).
    Exit codes as import's: 0 ok, 1 failed, conflicting or unreadable, 2 usage.
    """
    from hhtool.cli_rooms import rooms_or_fail
    from hhtool.spark.job import SparkImportError, spark_import
    from hhtool.textsafe import dumps

    governing = rooms_or_fail(rooms)
    try:
        summary = spark_import(paths, out, master=master, partitions=partitions, rooms=governing)
    except SparkImportError as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(dumps(summary.as_dict()))
    else:
        typer.echo(summary.text())
    raise typer.Exit(EXIT_OK if summary.ok else EXIT_FINDINGS)
