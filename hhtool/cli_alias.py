"""``hhtool alias``: the accounts a person owns (``add``, ``remove``, ``list``).

Thin: each command opens the database, asks :mod:`hhtool.stats.aliases`
and prints; what the library refuses (a typo'd account, a person named as
an account, an account already another's) is a usage error (exit 2) in
the library's words.  Writing needs the database to itself: while
``hhtool serve`` holds it, ``add`` and ``remove`` are refused with the
server's address (docs/stats.md, "Players and accounts").
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
    from hhtool.stats.aliases import add_aliases
    from hhtool.store.db import StoreError, connect, resolve_db_path

    try:
        con = connect(resolve_db_path(db))
        try:
            added = add_aliases(con, person, accounts)
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None
    typer.echo(_safe(f"{person}: {len(added)} account{'s' if len(added) != 1 else ''} added"
                     + (f" ({', '.join(a.account for a in added)})" if added else ""), raw))


def remove(accounts: AccountsArg, db: DbOption = None, raw: RawOpt = False) -> None:
    """Take these accounts out of their person's."""
    from hhtool.stats.aliases import remove_aliases
    from hhtool.store.db import StoreError, connect, resolve_db_path

    try:
        con = connect(resolve_db_path(db))
        try:
            gone = remove_aliases(con, accounts)
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None
    for a in gone:
        typer.echo(_safe(f"{a.account}: no longer {a.person}'s", raw))


def list_(
    db: DbOption = None,
    fmt: Annotated[str, typer.Option("--format", metavar="<table|csv|json>", help="How to print the aliases.")] = "table",
    raw: RawOpt = False,
) -> None:
    """Every person's accounts, a row each: person, site, player, account (NAME@SITE)."""
    import polars as pl

    from hhtool.stats.aliases import list_aliases
    from hhtool.store.db import StoreError, connect, resolve_db_path
    from hhtool.store.query import render

    if fmt not in ("table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, csv or json")
    try:
        con = connect(resolve_db_path(db), read_only=True)
        try:
            rows = list_aliases(con)
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None
    df = pl.DataFrame({"person": [a.person for a in rows], "site": [a.site for a in rows], "player": [a.player for a in rows],
                       "account": [a.account for a in rows]}, schema={k: pl.String for k in ("person", "site", "player", "account")})
    sys.stdout.write(render(df, fmt, raw=raw))  # type: ignore[arg-type]


def _safe(text: str, raw: bool) -> str:
    """``text`` with names from hand histories made terminal-safe, unless ``--raw``."""
    from hhtool.textsafe import term

    return text if raw else term(text)
