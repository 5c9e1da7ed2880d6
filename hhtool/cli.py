"""The ``hhtool`` command line: the app, its commands in the order help lists them, and the entry point.

Each command builds library objects, calls them, and maps domain errors
to exit codes: 0 ok, 1 findings or failures, 2 usage errors.  Heavy
libraries and even our own evaluator are imported inside the commands so
that ``hhtool --help`` stays instant.  The commands live by what they
work on: the game (:mod:`hhtool.cli_game`), a room's rules
(:mod:`hhtool.cli_rules`), hand histories (:mod:`hhtool.cli_histories`),
the database (:mod:`hhtool.cli_database`), a hand to share (:mod:`hhtool.cli_share`);
their shared options are :mod:`hhtool.cli_options`, their exits and
messages :mod:`hhtool.cli_output`, what they change of typer
:mod:`hhtool.cli_typer`.  They are registered here, with their examples,
so that this file reads as the list ``hhtool --help`` prints.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from hhtool import cli_alias as alias
from hhtool import cli_database as database
from hhtool import cli_game as game
from hhtool import cli_histories as histories
from hhtool import cli_integrity as integrity_cli
from hhtool import cli_rules as rules
from hhtool import cli_share as sharing
from hhtool.cli_output import EXIT_FINDINGS, EXIT_OK
from hhtool.cli_typer import TextArgumentsCommand, examples, plain_argument_types

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

plain_argument_types()


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


# The commands, in the order help lists them, each with its examples (the help's epilog).
app.command(epilog=examples(
    'rank --rules classic --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
    'rank --json --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
    "rank --batch hands.jsonl",
))(game.rank)

app.command(epilog=examples(
    'equity --rules classic "Qc Qs 9c" "Ah Kd Jh"',
    'equity --rules classic --dead "7h 8d" "?? Qs 9c Jc" "?? Kd Jh 9h"',
    'equity --rules italian --players 5 --json "Qc Qs 9c" "Ah Ad 7c"',
))(game.equity)

rules_app = typer.Typer(
    help="A room's rules as a file: a built-in profile to start from, and room files checked (docs/rooms.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
rules_app.command(epilog=examples("rules show classic", "rules show stellapoker > ~/.config/hhtool/rooms/stella.toml"))(rules.show)
rules_app.command(epilog=examples(
    "rules check rooms/vela.toml",
    "rules check --rooms ~/.config/hhtool/rooms",
    "rules check",
))(rules.check)
app.add_typer(rules_app, name="rules", epilog=examples("rules show classic > rooms/vela.toml", "rules check rooms/vela.toml"))

app.command(epilog=examples("parse sample_histories/", "parse --json table.txt > hands.jsonl", "parse --strict histories/*.txt"))(histories.parse)

app.command(epilog=examples(
    "audit sample_histories/000_format_example.txt",
    "audit histories/ --hand C-1001 --rules stellapoker",
    "audit table.txt --showdown-rules stellapoker",
    "audit table.txt.gz --json > audit.jsonl",
    "audit big.txt --no-equity",
))(histories.audit)

app.command("import", epilog=examples(
    "import sample_histories/ --db hands.duckdb",
    "import 'histories/**/*.txt' archive.zip old.txt.gz",
    "import histories/ --json",
))(histories.import_)

app.command(cls=TextArgumentsCommand, epilog=examples(
    'query "SELECT verdict, count(*) AS hands FROM hands GROUP BY verdict"',
    'query --format csv --out seats.csv "SELECT * FROM seats"',
    "query --file totals.sql --db hands.duckdb",
    "query --file - < totals.sql",
))(database.query)

app.command(epilog=examples("export --parquet exported/ --db hands.duckdb"))(database.export)

app.command("spark-import", epilog=examples(
    "spark-import sample_histories/ --out lake/",
    "spark-import 'hdfs:///vela/2026/*/*.gz' --out hdfs:///vela/lake",
    "spark-import s3a://room/hands/ --out s3a://room/lake/ --master yarn",
))(histories.spark_import_)

app.command(epilog=examples(
    "simulate --hands 1000 --rules classic --out classic.txt",
    "simulate --rules italian --italian-options wild=7 --out italian.txt",
    "simulate --hands 200 --faults 0.1 --seed 7 --out faulty.txt",
))(game.simulate)

app.command(epilog=examples(
    "stats --db hands.duckdb",
    "stats --player alice --from 2026-11-01 --to 2026-11-30",
    "stats --structure fixed --min-hands 100 --format csv > stats.csv",
    "stats --player alice --currency EUR --rate USD=0.92 --rate GBP=1.17",
))(database.stats)

app.command(epilog=examples(
    "report --db hands.duckdb --out report.html",
    "report --player alice --session-gap 45 --out alice.html",
    "report --currency EUR --rate USD=0.92 --out report.html",
))(database.report)

app.command(epilog=examples(
    "integrity --db hands.duckdb",
    "integrity --site Vela --from 2026-11-01 --format csv > leads.csv",
    "integrity --pair alice bob",
))(integrity_cli.integrity)

alias_app = typer.Typer(help="The accounts a person owns: their figures are the sums of the accounts'.", no_args_is_help=True,
                        rich_markup_mode=None)
alias_app.command(epilog=examples("alias add me alice@Vela alice@Tavolo"))(alias.add)
alias_app.command(epilog=examples("alias remove alice@Tavolo"))(alias.remove)
alias_app.command("list", epilog=examples("alias list", "alias list --format json"))(alias.list_)
app.add_typer(alias_app, name="alias", epilog=examples("alias add me alice@Vela alice@Tavolo", "alias remove alice@Tavolo", "alias list"))

app.command(epilog=examples(
    "serve --db hands.duckdb",
    "serve --db hands.duckdb --watch ~/histories --port 8800",
    "serve --db hands.duckdb --host 0.0.0.0",
))(database.serve)

app.command(epilog=examples(
    "share sample_histories/000_format_example.txt --out hand.html",
    "share table.txt --hand C-2002 --anonymise --out hand.html",
    "share --hand C-1001 --format text --anonymise",
    "share --db hands.duckdb --site Vela --hand C-1001 --out hand.html",
))(sharing.share)


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
