"""``hhtool note``, ``hhtool tag``, ``hhtool tags``: notes and tags on the stored hands and players (docs/study.md).

Thin: each command opens the database, asks :mod:`hhtool.stats.notes` and
prints; what the library refuses (a hand or account not in the database,
a note over 10,000 characters, a tag that is not a word) is a usage error
(exit 2) in its words.  A hand is named as ``hhtool share`` names a stored
one: its id, with ``--site NAME`` when two sites hold that id.  What each
command does and prints is :mod:`hhtool.stats.notes_commands`' (run on
the file, or, while ``hhtool serve`` holds it, by the server for the CLI:
the same text either way).  Every note and tag printed is made
terminal-safe (:mod:`hhtool.textsafe`) unless ``--raw``.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from hhtool.cli_options import DbOption, RawOpt
from hhtool.cli_output import fail

SiteOpt = Annotated[Optional[str], typer.Option("--site", metavar="NAME", help="The hand's site, when two sites hold a hand of that id.")]
HandArg = Annotated[Optional[str], typer.Argument(metavar="HAND", help="The stored hand's id (as `hhtool share --hand ID`).", show_default=False)]


def note(
    hand: HandArg = None,
    text: Annotated[
        Optional[str], typer.Argument(metavar="TEXT", help="The note; none: print the note (and tags) there is.", show_default=False)
    ] = None,
    site: SiteOpt = None,
    player: Annotated[
        Optional[str], typer.Option("--player", metavar="NAME@SITE", help="A note on this account instead of a hand (then TEXT is the first argument).")
    ] = None,
    append: Annotated[bool, typer.Option("--append", help="Add TEXT as a new line after the note there is, instead of replacing it.")] = False,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the note.")] = False,
    fmt: Annotated[
        str, typer.Option("--format", metavar="<text|table|csv|json>", help="With no HAND nor --player: how to print every note.")
    ] = "text",
    db: DbOption = None,
    raw: RawOpt = False,
) -> None:
    """Write, print or remove the note on a hand or on a player (with no HAND nor --player: every note)."""
    if player is not None:
        if text is not None:
            raise fail("with --player NAME@SITE give the note as the only argument: hhtool note --player NAME@SITE \"TEXT\"")
        text, hand = hand, None
    if site is not None and (hand is None or player is not None):
        raise fail("--site says which site's hand HAND is: give HAND too (not --player)")
    if clear and text is not None:
        raise fail("--clear removes the note: give no TEXT with it")
    if append and text is None:
        raise fail("--append adds TEXT to the note: give the TEXT")
    if (clear or text is not None) and hand is None and player is None:
        raise fail("which note? give HAND (a stored hand's id) or --player NAME@SITE")
    if fmt not in ("text", "table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use text, table, csv or json")
    if fmt != "text" and (hand is not None or player is not None):
        raise fail("--format prints every note: give no HAND nor --player with it")
    write = clear or text is not None
    args = {"hand": hand, "text": text, "site": site, "player": player, "append": append, "clear": clear, "fmt": fmt, "raw": raw}
    sys.stdout.write(run_command(db, write, "note", args, raw))


def tag(
    hand: HandArg = None,
    tags: Annotated[Optional[list[str]], typer.Argument(metavar="TAG...", help="The tags to give (none: print the tags there are).", show_default=False)] = None,
    site: SiteOpt = None,
    player: Annotated[
        Optional[str], typer.Option("--player", metavar="NAME@SITE", help="Tag this account instead of a hand (then every argument is a tag).")
    ] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take these tags off (every tag when none is named).")] = False,
    db: DbOption = None,
    raw: RawOpt = False,
) -> None:
    """Tag a hand (study, bluff, ...) or a player (fish, reg, ...), take tags off, or print them; `--tag NAME` then filters
    stats, report and serve, `--player-tag NAME` the players of stats and serve's grid, and integrity's pairs."""
    if player is not None:
        if site is not None:
            raise fail("--site says which site's hand HAND is: with --player NAME@SITE the site is the account's")
        tags, hand = ([hand] if hand is not None else []) + list(tags or ()), None
    elif hand is None:
        raise fail("which hand? give HAND (a stored hand's id), then the tags: hhtool tag HAND study (or --player NAME@SITE fish)")
    write = remove or bool(tags)
    args = {"hand": hand, "tags": list(tags or ()), "site": site, "player": player, "remove": remove, "raw": raw}
    sys.stdout.write(run_command(db, write, "tag", args, raw))


def run_command(db: object, write: bool, command: str, args: dict[str, Any], raw: bool) -> str:
    """The text ``command`` (:data:`hhtool.stats.notes_commands.COMMANDS`) prints, run on the database file; while
    ``hhtool serve`` holds the file, run by the server (``POST /api/cli/write``: docs/serve.md, "Reading and writing
    while serving"), the same text.  A refusal of either: a usage error (exit 2) in its words."""
    from pathlib import Path

    from hhtool.stats.notes_commands import run
    from hhtool.store.db import DatabaseInUseError, StoreError, connect, resolve_db_path

    path = resolve_db_path(db if isinstance(db, Path) else None)
    try:
        try:
            con = connect(path, read_only=not write)
        except DatabaseInUseError as e:
            from hhtool.web.client import server_of

            return server_of(path, e).write(command, args)
        try:
            return run(con, command, args)
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None


def tags_(
    db: DbOption = None,
    fmt: Annotated[str, typer.Option("--format", metavar="<table|csv|json>", help="How to print the tags.")] = "table",
    raw: RawOpt = False,
) -> None:
    """Every tag, how many stored hands and how many accounts have it, most first."""
    from hhtool.cli_database import _or_served
    from hhtool.stats.notes import TAG_COUNTS_SQL
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.store.query import render, run_query

    if fmt not in ("table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, csv or json")
    try:  # read-only SQL: while hhtool serve holds the file, the server runs it (docs/serve.md, "Reading and writing while serving")
        text = _or_served(resolve_db_path(db), lambda source: render(run_query(source, TAG_COUNTS_SQL), fmt, raw=raw),  # type: ignore[arg-type]
                          lambda server: server.query(TAG_COUNTS_SQL, fmt, raw=raw))  # type: ignore[arg-type]  # checked above
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None
    sys.stdout.write(text)


def _safe(text: str, raw: bool) -> str:
    from hhtool.textsafe import term

    return text if raw else term(text)
