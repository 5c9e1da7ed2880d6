"""The ``hhtool`` command line: a thin layer over the library.

Each command builds library objects, calls them, and maps domain errors
to exit codes: 0 ok, 1 findings or failures, 2 usage errors.  Heavy
libraries and even our own evaluator are imported inside the commands so
that ``hhtool --help`` stays instant.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

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


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
