"""``hhtool note``, ``hhtool tag``, ``hhtool tags``: notes and tags on the stored hands and players (docs/study.md).

Thin: each command opens the database, asks :mod:`hhtool.stats.notes` and
prints; what the library refuses (a hand or account not in the database,
a note over 10,000 characters, a tag that is not a word) is a usage error
(exit 2) in its words.  A hand is named as ``hhtool share`` names a stored
one: its id, with ``--site NAME`` when two sites hold that id.  Writing
needs the database to itself: while ``hhtool serve`` holds it, a command
is refused (exit 2) with the server's address, where the hand's page
writes the same note and tags.  Every note and tag printed is made
terminal-safe (:mod:`hhtool.textsafe`) unless ``--raw``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from hhtool.cli_options import DbOption, RawOpt
from hhtool.cli_output import fail

if TYPE_CHECKING:
    import duckdb

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
    from hhtool.stats import notes as lib
    from hhtool.store.db import StoreError

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
    try:
        con = _connect(db, write)
        try:
            if player is not None:
                account = lib.parse_account(player)
                if not write:
                    lib.check_account(con, account)
                    _print_lines(lib.player_note(con, account), f"no note on {player}", raw)
                    return
                kept = lib.set_player_note(con, account, "" if clear else text or "", append=append)
                typer.echo(_safe(f"{player}: " + (f"note written ({len(kept):,} characters)" if kept else "no note"), raw))
            elif hand is not None:
                ref = lib.find_hand(con, hand, site)
                where = f"{ref.site} hand {ref.hand_id}"
                if not write:
                    got = lib.hand_note(con, ref)
                    if got.tags:
                        typer.echo(_safe(f"tags: {' '.join(got.tags)}", raw))
                    _print_lines(got.note, f"no note on {where}", raw)
                    return
                kept = lib.set_hand_note(con, ref, "" if clear else text or "", append=append)
                typer.echo(_safe(f"{where}: " + (f"note written ({len(kept):,} characters)" if kept else "no note"), raw))
            elif fmt == "text":
                _print_all(con, raw)
            else:
                _render_all(con, fmt, raw)
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None


def tag(
    hand: HandArg = None,
    tags: Annotated[Optional[list[str]], typer.Argument(metavar="TAG...", help="The tags to give the hand (none: print its tags).", show_default=False)] = None,
    site: SiteOpt = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take these tags off the hand (every tag when none is named).")] = False,
    db: DbOption = None,
    raw: RawOpt = False,
) -> None:
    """Tag a hand (study, bluff, ...), take tags off it, or print its tags; `--tag NAME` then filters stats, report and serve."""
    from hhtool.stats import notes as lib
    from hhtool.store.db import StoreError

    if hand is None:
        raise fail("which hand? give HAND (a stored hand's id), then the tags: hhtool tag HAND study")
    write = remove or bool(tags)
    try:
        con = _connect(db, write)
        try:
            ref = lib.find_hand(con, hand, site)
            where = f"{ref.site} hand {ref.hand_id}"
            if remove:
                gone = lib.remove_tags(con, ref, list(tags or ()))
                typer.echo(_safe(f"{where}: " + (f"removed {' '.join(gone)}" if gone else "no such tag to remove"), raw))
            elif tags:
                added = lib.add_tags(con, ref, list(tags))
                typer.echo(_safe(f"{where}: " + (f"tagged {' '.join(added)}" if added else "had those tags already"), raw))
            now = lib.hand_note(con, ref).tags
            typer.echo(_safe(f"tags: {' '.join(now)}" if now else f"{where} has no tag", raw))
        finally:
            con.close()
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None


def tags_(
    db: DbOption = None,
    fmt: Annotated[str, typer.Option("--format", metavar="<table|csv|json>", help="How to print the tags.")] = "table",
    raw: RawOpt = False,
) -> None:
    """Every tag and how many stored hands have it, most first."""
    from hhtool.cli_database import _or_served
    from hhtool.stats.notes import TAG_COUNTS_SQL
    from hhtool.store.db import StoreError, resolve_db_path
    from hhtool.store.query import render, run_query

    if fmt not in ("table", "csv", "json"):
        raise fail(f"unknown format {fmt!r}: use table, csv or json")
    try:  # read-only SQL: while hhtool serve holds the file, the server runs it (docs/serve.md, "Reading while serving")
        text = _or_served(resolve_db_path(db), lambda source: render(run_query(source, TAG_COUNTS_SQL), fmt, raw=raw),  # type: ignore[arg-type]
                          lambda server: server.query(TAG_COUNTS_SQL, fmt, raw=raw))  # type: ignore[arg-type]  # checked above
    except StoreError as e:
        raise fail(_safe(str(e), raw)) from None
    sys.stdout.write(text)


def _connect(db: object, write: bool) -> duckdb.DuckDBPyConnection:
    from pathlib import Path

    from hhtool.store.db import connect, resolve_db_path

    return connect(resolve_db_path(db if isinstance(db, Path) else None), read_only=not write)


def _print_all(con: duckdb.DuckDBPyConnection, raw: bool) -> None:
    """Every note: the hands' (with their tags), then the players'; a note's lines indented under its heading."""
    from hhtool.stats.notes import all_hand_notes, all_player_notes

    hands, players = all_hand_notes(con), all_player_notes(con)
    if not hands and not players:
        typer.echo("no note and no tag in this database (hhtool note HAND \"TEXT\", hhtool tag HAND study)")
        return
    for h in hands:
        typer.echo(_safe(f"{h.site} hand {h.hand_id}" + (f"  [{' '.join(h.tags)}]" if h.tags else ""), raw))
        _print_lines(h.note, None, raw, indent="    ")
    for p in players:
        typer.echo(_safe(f"player {p.account}", raw))
        _print_lines(p.note, None, raw, indent="    ")


def _render_all(con: duckdb.DuckDBPyConnection, fmt: str, raw: bool) -> None:
    """Every note as rows (kind, site, hand_id, player, tags, note), rendered as ``hhtool query`` renders: safe unless ``--raw``."""
    import polars as pl

    from hhtool.stats.notes import all_hand_notes, all_player_notes
    from hhtool.store.query import render

    rows: list[tuple[str, str, str | None, str | None, str, str]] = [
        ("hand", h.site, h.hand_id, None, " ".join(h.tags), h.note) for h in all_hand_notes(con)
    ]
    rows += [("player", p.site, None, p.player, "", p.note) for p in all_player_notes(con)]
    names = ("kind", "site", "hand_id", "player", "tags", "note")
    df = pl.DataFrame([list(c) for c in zip(*rows)] if rows else [[] for _ in names], schema={n: pl.String for n in names}, orient="col")
    sys.stdout.write(render(df, fmt, raw=raw))  # type: ignore[arg-type]  # one of table, csv, json


def _print_lines(text: str, none: str | None, raw: bool, indent: str = "") -> None:
    """A note, a line of the terminal a line of the note, each made safe (a note may hold an escape, as a name may)."""
    if not text:
        if none is not None:
            typer.echo(_safe(none, raw))
        return
    for line in text.split("\n"):
        typer.echo(indent + _safe(line, raw))


def _safe(text: str, raw: bool) -> str:
    from hhtool.textsafe import term

    return text if raw else term(text)
