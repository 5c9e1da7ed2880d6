"""``hhtool rules``: a built-in profile as a room file (``show``), and room files checked (``check``).

A room file (docs/rooms.md) is read and checked by :mod:`hhtool.game.room`;
these commands print what it found, in 80 columns, every string from a
file made safe for the terminal.  A file with problems is a usage error
(exit 2): each problem, ``file:line: what is wrong``, on standard error.
The app registers them as the ``rules`` group (:mod:`hhtool.cli`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from hhtool.cli_output import fail

if TYPE_CHECKING:
    from hhtool.game.rake import Cap, CapRow, RakeRule
    from hhtool.game.room import Room
    from hhtool.game.rules import RuleSet

WIDTH = 80
LABEL = 11  # "  warning  ": the summary's first column


def show(
    name: Annotated[str, typer.Argument(metavar="PROFILE", help="classic, stellapoker or italian.", show_default=False)],
) -> None:
    """Print a built-in profile as a room file: every parameter with its value, the starting point of a room's own file."""
    from hhtool.game.rules import PROFILE_NAMES, builtin_text

    key = name.strip().lower()
    if key not in PROFILE_NAMES:
        raise fail(f"unknown rule profile {name!r}: expected one of {', '.join(PROFILE_NAMES)}")
    typer.echo(builtin_text(key), nl=False)


def check(
    files: Annotated[
        Optional[list[Path]],
        typer.Argument(metavar="FILE", help="Room files to check (default: every file of the rooms folder).", show_default=False),
    ] = None,
    rooms: Annotated[
        Optional[Path],
        typer.Option(
            "--rooms",
            metavar="DIR",
            help="Check every room file (*.toml) of this folder (default: $HHTOOL_ROOMS, else ~/.config/hhtool/rooms).",
        ),
    ] = None,
) -> None:
    """Check room files: every problem with its line, else what each room changes and its rake; two rooms may not claim one site."""
    from hhtool.game.room import RoomError, default_rooms_dir, load_room, rooms_of

    if files and rooms is not None:
        raise fail("give room files or --rooms DIR, not both")
    folder: Path | None = None
    if files:
        paths = list(files)
    else:
        folder = rooms if rooms is not None else default_rooms_dir()
        if not folder.is_dir():
            hint = "" if rooms is not None else "\n(the default; $HHTOOL_ROOMS or --rooms DIR names another, or give FILE...)"
            raise fail(f"no folder of room files at {folder}{hint}")
        paths = sorted(folder.glob("*.toml"))
        if not paths:
            typer.echo(_wrap(f"{folder}: no room files (*.toml); every hand is replayed under its header's profile", "", "    "))
            return
    good: list[Room] = []
    bad = 0
    for path in paths:
        try:
            room = load_room(path)
        except RoomError as e:
            bad += 1
            _problems(e.problems)
            continue
        good.append(room)
        typer.echo("\n".join(summary(room)))
    clashes: list[str] = []
    try:
        rooms_of(good)
    except RoomError as e:
        clashes = e.problems
        _problems(clashes)
    if bad or clashes:
        unusable = f"{bad} of {_count(len(paths), 'room file')} cannot be used" if len(paths) > 1 else f"{paths[0]}: the room file cannot be used"
        claimed = f"{_count(len(clashes), 'site')} claimed by two rooms"
        raise fail("; ".join(([unusable] if bad else []) + ([claimed] if clashes else [])))
    where = f"{folder}: " if folder is not None else ""
    claims = sorted(((site, room) for room in good if room.base for site in room.sites), key=lambda c: (c[0].casefold(), c[1].base))
    if not claims:
        typer.echo(_wrap(f"{where}{_count(len(good), 'room file')}, no problems; no room claims a site, so none governs a hand", "", "    "))
        return
    typer.echo(_wrap(f"{where}{_count(len(good), 'room file')}, no problems; the hands each governs:", "", "    "))
    for site, room in claims:
        typer.echo(_wrap(f"{site}, {room.base}: {room.name} ({room.source})", "  ", "      "))


def summary(room: Room) -> list[str]:
    """A room as ``rules check`` shows it: its file, name, sites, base, what it changes, its rake, its warnings."""
    from hhtool.game.room import toml_value

    lines = [_term(f"{room.source}: ok")]
    lines += _field("room", room.name)
    lines += _field("sites", ", ".join(room.sites) if room.sites else "none: the room governs no hand of a history (--rules FILE only)")
    lines += _field("base", room.base or "none: every parameter is set in the file")
    if room.changed:
        for i, key in enumerate(room.changed):
            was = toml_value(key, getattr(_base_rules(room.base), key))
            lines += _field("rules" if i == 0 else "", f"{key} = {toml_value(key, getattr(room.rules, key))} ({room.base}: {was})")
    else:
        lines += _field("rules", f"as {room.base}" if room.base else "as the file sets them")
    rake = rake_words(room.rake) if room.rake is not None else ["none ruled: each hand's Rake line is taken as stated"]
    for i, text in enumerate(rake):
        lines += _field("rake" if i == 0 else "", text)
    for w in room.warnings:
        lines += _field("warning", w)
    return lines


def rake_words(rake: RakeRule) -> list[str]:
    """A rake schedule in words, a line each, its amounts as the room file writes them (in the table's money)."""
    from hhtool.game.rake import percent_text

    rounding = f"a multiple of {rake.step}" if rake.step is not None else "the cent (or the chip)"
    out = [f"{percent_text(rake.percent)} % of the total pot, rounded down to {rounding}"]
    if rake.cap is not None:
        out.append(f"capped at {_cap(rake.cap)}" + (" where no row below applies" if rake.caps else ""))
    for row in rake.caps:
        out.append(f"{_scope(row)}: capped at {_cap(row.cap)} ({row.key.replace('rake.caps.', 'cap row ')})")
    if rake.currencies is None:
        out.append("every table, play chips included")
    elif not rake.currencies:
        out.append("no table: currencies = [] takes no rake anywhere")
    else:
        chips = "chips" in rake.currencies
        money = [c for c in rake.currencies if c != "chips"]
        raked = ", ".join(money) + (" and play chips" if chips and money else "play chips" if chips else "")
        out.append(f"only tables in {raked}" + ("" if chips else "; play chips and other money take none"))
    if rake.from_street != "2nd":
        out.append(f"none when the hand ends before {rake.from_street} street")
    return out


def _cap(cap: Cap) -> str:
    from hhtool.game.rake import percent_text

    if cap.amount is not None:
        return str(cap.amount)
    n = cap.big_bets
    assert n is not None
    return f"{percent_text(n)} big bet{'' if n == 1 else 's'}"


def _scope(row: CapRow) -> str:
    """The hands a cap row is for, its amounts as written: ``stakes up to a big bet of 1.00, 2 players``."""
    return row.scope(lambda units: f"{units // 100}.{units % 100:02d}", True)


def _base_rules(base: str) -> RuleSet:
    from hhtool.game.rules import PROFILES

    return PROFILES[base]


def _field(label: str, text: str) -> list[str]:
    """``  label    text``, the text wrapped under itself."""
    head = f"  {label:<{LABEL - 2}}"
    return _wrap(text, head, " " * len(head)).splitlines()


def _wrap(text: str, first: str, hang: str) -> str:
    """``text`` made safe for the terminal and wrapped to 80 columns (a path or word longer than a line is kept whole)."""
    return textwrap.fill(_term(text), WIDTH, initial_indent=first, subsequent_indent=hang, break_long_words=False, break_on_hyphens=False)


def _problems(problems: list[str]) -> None:
    """Each problem on standard error, ``file:line: message``, wrapped under a 4-space indent."""
    for p in problems:
        typer.echo(_wrap(p, "", "    "), err=True)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _term(text: str) -> str:
    from hhtool.textsafe import term

    return term(text)
