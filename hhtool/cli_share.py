"""``hhtool share``: one hand to show someone else, as a self-contained HTML file or as forum text, optionally anonymised.

The hand comes from a hand-history file (``FILE --hand ID``, as ``hhtool
audit`` picks one) or, with no FILE, from the database (``--hand ID``,
``--site NAME`` when two sites hold that id, as ``hhtool serve``'s
``/hands/SITE/HAND_ID`` names it).  The library does the work
(:func:`hhtool.api.share_hand`, :mod:`hhtool.replayer.share`); this module
maps its errors to exit codes: a hand that is not there, or several where
one was asked for, is a usage error (2), as ``audit --hand`` says of a hand
it cannot find; a hand that does not parse or cannot be anonymised
faithfully is a failure (1).  The app registers the command
(:mod:`hhtool.cli`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

from hhtool.cli_options import DbOption
from hhtool.cli_output import EXIT_FINDINGS, fail
from hhtool.cli_rooms import RoomsOption


def share(
    file: Annotated[
        Optional[str],
        typer.Argument(
            metavar="FILE",
            help="The hand-history file (or folder, glob, .zip, .gz) holding the hand; none: the hand stored in the database.",
            show_default=False,
        ),
    ] = None,
    hand: Annotated[Optional[str], typer.Option("--hand", metavar="ID", help="The hand's id (needed unless FILE holds one hand).")] = None,
    site: Annotated[Optional[str], typer.Option("--site", metavar="NAME", help="The hand's site, when two sites hold a hand of that id.")] = None,
    db: DbOption = None,
    fmt: Annotated[
        Literal["html", "text"],
        typer.Option("--format", help="html: the replayer in one self-contained file; text: the hand as forum text, 80 columns."),
    ] = "html",
    out: Annotated[
        Optional[Path], typer.Option("--out", metavar="FILE", help="The file to write (needed for html; text goes to standard output without it).")
    ] = None,
    anonymise: Annotated[
        bool,
        typer.Option(
            "--anonymise",
            "--anonymize",
            help="Name every player but the hero by their seat (Seat 3); leave out the site, table, hand number and time.",
        ),
    ] = False,
    hero: Annotated[
        Optional[str],
        typer.Option("--hero", metavar="NAME", help="The player whose name --anonymise keeps (default: the history's own viewer, if any)."),
    ] = None,
    no_hero: Annotated[bool, typer.Option("--no-hero", help="With --anonymise: replace every name, the viewer's too.")] = False,
    rooms: RoomsOption = None,
) -> None:
    """Write one hand to share: the replayer as one HTML file that opens from disk and fetches nothing, or forum text."""
    from hhtool.api import share_hand
    from hhtool.history.errors import HandHistoryError
    from hhtool.history.files import NoSuchPath
    from hhtool.replayer.share import NoSuchHero, ShareError, WhichHand
    from hhtool.store.db import StoreError, resolve_db_path

    if fmt == "html" and out is None:
        raise fail("--out FILE: where to write the HTML file (or --format text for forum text on standard output)")
    if hero is not None and no_hero:
        raise fail("--hero keeps a name and --no-hero none: give one of them")
    if (hero is not None or no_hero) and not anonymise:
        raise fail(f"{'--hero' if hero is not None else '--no-hero'} says whose name --anonymise keeps: add --anonymise")
    if file is not None and db is not None:
        raise fail("give FILE or --db, not both: the hand is read from one of them")
    if file is None and hand is None:
        raise fail("which hand? give FILE (a hand-history file), or --hand ID for a hand of the database")
    if file is None and rooms is not None:
        raise fail("--rooms is for a FILE: a stored hand is replayed under the rules it was imported under")
    try:
        if file is not None:
            from hhtool.cli_rooms import rooms_or_fail

            text = share_hand(file, hand_id=hand, site=site, fmt=fmt, anonymise=anonymise, hero=hero, no_hero=no_hero, rooms=rooms_or_fail(rooms))
        else:
            text = share_hand(db=resolve_db_path(db), hand_id=hand, site=site, fmt=fmt, anonymise=anonymise, hero=hero, no_hero=no_hero)
    except (WhichHand, NoSuchHero, NoSuchPath, StoreError) as e:
        raise fail(str(e)) from None
    except HandHistoryError as e:
        raise fail(f"the hand cannot be read: {e}", EXIT_FINDINGS) from None
    except ShareError as e:
        raise fail(str(e), EXIT_FINDINGS) from None
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise fail(f"cannot write {out}: {e.strerror}") from None
    typer.echo(f"hand written to {out}", err=True)
