"""``hhtool alias``: the accounts a person owns (``add``, ``remove``, ``list``).

Thin: each command runs its body of :mod:`hhtool.stats.notes_commands`
(over :mod:`hhtool.stats.aliases`) and prints its text; what the library
refuses (a typo'd account, a person named as an account, an account
already another's) is a usage error (exit 2) in the library's words.
While ``hhtool serve`` holds the database, the server runs the same body
for the CLI (docs/serve.md, "Reading and writing while serving").
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hhtool.cli_options import DbOption, RawOpt
from hhtool.cli_output import fail

AccountsArg = Annotated[list[str], typer.Argument(metavar="ACCOUNT", help="NAME@SITE, as `hhtool stats` writes an account.", show_default=False)]


def add(
    person: Annotated[str, typer.Argument(metavar="PERSON", help="The person's name: not empty, no '@', no account's name.", show_default=False)],
    accounts: AccountsArg,
    db: DbOption = None,
    raw: RawOpt = False,
) -> None:
    """Make these accounts the person's: every figure of `--player PERSON` is then the sum of theirs."""
    from hhtool.cli_notes import run_command

    sys.stdout.write(run_command(db, True, "alias-add", {"person": person, "accounts": list(accounts), "raw": raw}, raw))


def remove(accounts: AccountsArg, db: DbOption = None, raw: RawOpt = False) -> None:
    """Take these accounts out of their person's."""
    from hhtool.cli_notes import run_command

    sys.stdout.write(run_command(db, True, "alias-remove", {"accounts": list(accounts), "raw": raw}, raw))


def list_(
    db: DbOption = None,
    fmt: Annotated[str, typer.Option("--format", metavar="<table|csv|json>", help="How to print the aliases.")] = "table",
    raw: RawOpt = False,
) -> None:
    """Every person's accounts, a row each: person, site, player, account (NAME@SITE)."""
    from hhtool.cli_notes import run_command

    if fmt not in ("table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, csv or json")
    sys.stdout.write(run_command(db, False, "alias-list", {"fmt": fmt, "raw": raw}, raw))
