"""A hand to show someone else: one self-contained HTML file, or the same hand as forum text, optionally anonymised.

:func:`share` steps through one hand (:mod:`hhtool.replay.steps`) and, asked
to anonymise, first rewrites the hand itself: every player but the hero is
named by their seat (``Seat 3``), the site, the table, the hand number and
the time are replaced, the chat is dropped, and the hand is written back to
text (:mod:`hhtool.history.write`), read again and replayed.  Everything the
file then holds (the steps' sentences, the hand's text, the findings, the
verdict, the JSON) is derived from that rewritten hand, so a name is replaced
where it stands as a name, by its token (a player named ``Vela`` or ``Ks``
leaves the vela line and the king of spades alone), and no sentence can
keep the old one.  The rewritten hand must read back as exactly the hand
written, and replay to the same verdict with the same findings, else the
hand is not shared (:class:`ShareError`): an anonymised hand that audits
differently from its original would misinform whoever reads it.

:func:`share_json` is the replayer's data of the shared hand, anonymised
throughout; :mod:`hhtool.replayer.page` makes the page of it, and
:mod:`hhtool.replayer.forum` the forum text.  ``docs/share.md`` describes
both.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.history.events import Hand, Joins, Said
from hhtool.history.write import header_line, write_hand
from hhtool.replay.steps import HandSteps, hand_steps

if TYPE_CHECKING:
    from hhtool.game.room import Room, Rooms
    from hhtool.history.files import Unit

SITE = "Anonymised"
"""The site the rewritten hand's header names (one word, as the format wants); never shown: the header is redacted."""
HAND_ID = "0"
TABLE = "the table"
"""The rewritten hand's table: the start step reads "4 players at the table, 6-max"."""
STARTED = datetime(2000, 1, 1, tzinfo=timezone.utc)
"""The rewritten hand's time; never shown (the header is redacted), only there for the format's header to read."""


class ShareError(ValueError):
    """A hand that cannot be shared as asked: no hero of that name, or an anonymised hand that no longer audits as its original."""


class WhichHand(ShareError):
    """The hand asked for is not there, or several are and the question does not say which (a usage error)."""


class NoSuchHero(ShareError):
    """The hero named is not a player of the hand (a usage error)."""


@dataclass(frozen=True, slots=True)
class HandSource:
    """One hand's text as read from a file or the database: where it came from, and the room that governs it (if known)."""

    text: str
    first_line: int
    source: str
    site: str
    hand_id: str
    room: Room | None = None


_HEADER = re.compile(r"(\S+) Hand #([^:]*):")
_SHOWN = 8  # hand ids a "which hand?" message lists


def _hands_of(unit: Unit, hand_id: str | None, site: str | None, found: list[HandSource], typed: str | None) -> None:
    """The hands of one file (or archive member) that match, added to ``found``; ``typed``: the file's name as the user gave it."""
    from hhtool.history.reader import CHUNK_BYTES, Skipped, split_chunks

    name = typed if typed is not None and unit.member is None else unit.path
    with unit.open() as stream:
        chunks = iter(lambda: stream.read(CHUNK_BYTES), b"")
        for item in split_chunks(chunks, name):
            if isinstance(item, Skipped) or not isinstance(item[1], str):
                continue  # junk between hands, or a hand over the size bounds (hhtool audit names it)
            start, text = item
            m = _HEADER.match(text)
            hid, where = (m.group(2), m.group(1)) if m else ("", "")
            if (hand_id is None or hid == hand_id) and (site is None or where == site):
                found.append(HandSource(text + "\n", start, name, where, hid))


def hand_in_files(paths: Sequence[str | Path], hand_id: str | None = None, site: str | None = None) -> HandSource:
    """The one hand of ``paths`` (files, folders, globs, archives, as ``hhtool audit`` reads them) with ``hand_id`` (and ``site``).

    Without ``hand_id`` the inputs must hold exactly one hand.  Only the
    hand asked for is parsed (the others are split from the text and their
    header read).  Raises :class:`WhichHand` when no hand or several match,
    :class:`~hhtool.history.files.NoSuchPath` for a path that is not there.
    """
    from hhtool.history.files import find_units
    from hhtool.history.reader import Cp1252Warning

    found: list[HandSource] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Cp1252Warning)  # a file in Windows-1252 is read as such, as the audit reads it
        for unit in find_units(paths).units:
            _hands_of(unit, hand_id, site, found, str(paths[0]) if len(paths) == 1 and Path(paths[0]).is_file() else None)

    asked = f"hand {hand_id!r}" if hand_id is not None else "a hand"
    inputs = ", ".join(str(p) for p in paths)
    if not found:
        raise WhichHand(f"no {asked}{f' of site {site!r}' if site else ''} in {inputs}")
    if len(found) > 1:
        listed = ", ".join(f"{h.site} {h.hand_id} ({h.source}:{h.first_line})" for h in found[:_SHOWN]) + (", ..." if len(found) > _SHOWN else "")
        if hand_id is None:
            raise WhichHand(f"{inputs} holds {len(found)} hands: {listed}; choose one with --hand ID")
        how = "choose one with --site NAME" if len({h.site for h in found}) > 1 else "name the one file that holds the hand to share"
        raise WhichHand(f"{len(found)} hands {hand_id!r} in {inputs}: {listed}; {how}")
    return found[0]


@dataclass(frozen=True, slots=True)
class Shared:
    """One hand as shared: its steps, the hero, whether it was anonymised, and what the anonymising removed.

    ``removed``: every string that named the hand's players (but the
    hero), site, table, number and time, as the original held them: what
    must not be in the file (the tests grep for each).
    ``names``: each renamed player's name and the token standing for it.
    """

    steps: HandSteps
    hero: str | None
    anonymised: bool
    removed: tuple[str, ...] = ()
    names: tuple[tuple[str, str], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()  # (the token standing for a name in the rewritten hand, the label shown: "Seat 3")

    def relabel(self, text: str) -> str:
        """``text`` with each token of the rewritten hand shown as its label (``Seat 3``)."""
        for token, label in self.labels:
            if token in text:
                text = text.replace(token, label)
        return text

    def relabelled(self, data: Any) -> Any:
        """JSON-like ``data`` with :meth:`relabel` applied to every string (keys are the steps' own field names)."""
        if not self.labels:
            return data
        if isinstance(data, str):
            return self.relabel(data)
        if isinstance(data, list):
            return [self.relabelled(v) for v in data]
        if isinstance(data, dict):
            return {k: self.relabelled(v) for k, v in data.items()}
        return data


def own_viewer(steps: HandSteps) -> str | None:
    """The player whose own history this is: the one player whose down cards were known when dealt, the others' not.

    An audit view (every down card known) or a history with nobody's known
    has no viewer.  Read from the 2nd street's deal steps, before any card
    is turned up or shown.
    """
    known: list[str] = []
    unknown = 0
    for s in steps.steps:
        if s.street not in ("start", "2nd"):
            break
        if s.kind != "deal" or s.actor is None:
            continue
        seat = next((p for p in s.seats if p.name == s.actor), None)
        if seat is None or not seat.cards:
            continue
        if all(c.card is not None for c in seat.cards):
            known.append(s.actor)
        else:
            unknown += 1
    return known[0] if len(known) == 1 and unknown else None


def share(
    text: str,
    *,
    first_line: int = 1,
    source: str = "",
    room: Room | Rooms | None = None,
    anonymise: bool = False,
    hero: str | None = None,
    no_hero: bool = False,
) -> Shared:
    """One hand's text (``hands.raw_text``, its header on line ``first_line``) made ready to share.

    ``hero``: the player whose name stays (default: the history's own
    viewer, :func:`own_viewer`); ``no_hero``: nobody's does.  ``room``:
    the room whose rules govern the hand (as the import replayed it), or
    the rooms of which the one naming the hand's site does (``audit --rooms``).  Raises
    :class:`~hhtool.history.errors.HandHistoryError` when the text does not
    parse, :class:`ShareError` when ``hero`` is not a player of the hand or
    the anonymised hand would not audit as the original does.
    """
    from hhtool.history.parse import parse_hand_text

    from hhtool.game.room import Rooms

    hand = parse_hand_text(text.removesuffix("\n"), first_line=first_line, source=source)
    if isinstance(room, Rooms):
        room = room.for_hand(hand.header.site, hand.header.profile)
    steps = hand_steps(hand, text, source=source, room=room)
    if hero is not None and hero not in hand.players:
        raise NoSuchHero(f"no player {hero!r} in hand {hand.hand_id}: the players are {', '.join(repr(p) for p in hand.players)}")
    who = None if no_hero else hero if hero is not None else own_viewer(steps)
    if not anonymise:
        return Shared(steps, who, False)
    renamed, names, labels = anonymised_hand(hand, who, mark=_mark(text))
    written = write_hand(renamed)
    again = parse_hand_text(written.removesuffix("\n"))
    if again != renamed:
        raise ShareError(f"hand {hand.hand_id}: its anonymised text does not read back as the hand written (a name too like another's?)")
    after = hand_steps(again, written, room=room)
    before_codes = [f.code for f in steps.replay.findings]
    after_codes = [f.code for f in after.replay.findings]
    if after.replay.verdict != steps.replay.verdict or after_codes != before_codes:
        raise ShareError(
            f"hand {hand.hand_id}: anonymised, it would audit {after.replay.verdict} ({', '.join(after_codes) or 'no finding'}), "
            f"not {steps.replay.verdict} ({', '.join(before_codes) or 'no finding'}) as the original: not shared"
        )
    return Shared(after, who, True, removed_strings(hand, names), tuple(names.items()), tuple(labels.items()))


def _mark(text: str) -> str:
    """A private-use character the hand's text does not hold: the tokens' delimiter, so that a token can only be where a name was put."""
    for code in range(0xE000, 0xF900):
        if chr(code) not in text:
            return chr(code)
    raise ShareError("the hand's text holds every private-use character: no token can stand for its names")


def anonymised_hand(hand: Hand, hero: str | None, mark: str = "\ue000") -> tuple[Hand, dict[str, str], dict[str, str]]:
    """``hand`` with every name but ``hero``'s replaced by a token, the site, table, number and time replaced, the chat dropped.

    Each renamed player is shown by a label: a seated player ``Seat K``;
    one named only in the body (a ``joins`` line) ``Seat K`` of the seat
    joined if no one holds that label, anyone else ``Player N``; a label
    the hero's name already is (a hero named ``Seat 5``) is not reused
    (``Seat #5`` then).  In the rewritten hand a name is a token,
    ``mark`` + a number + ``mark`` (``mark`` a character the text does not
    hold): the history format reads a line starting ``Seat 3:`` as a seat
    line, so ``Seat 3`` cannot stand as a name in it, and a token can be
    shown as its label wherever it went (a sentence, a finding, a pot's
    reason) without touching any other text.  Returns the hand, each
    renamed player's label, and each token's label.
    """
    taken = {hero} if hero is not None else set()
    names: dict[str, str] = {}

    def label(name: str, *choices: str) -> None:
        if name == hero or name in names:
            return
        for choice in choices:
            if choice not in taken:
                names[name] = choice
                taken.add(choice)
                return
        n = 1
        while f"Player {n}" in taken:
            n += 1
        names[name] = f"Player {n}"
        taken.add(names[name])

    for s in hand.seats:
        label(s.player, f"Seat {s.seat}", f"Seat #{s.seat}")
    for e in hand.events:
        name = getattr(e, "player", None)
        if isinstance(name, str):
            label(name, *((f"Seat {e.seat}", f"Seat #{e.seat}") if isinstance(e, Joins) else ()))
    for o in hand.summary.outcomes:
        label(o.player)
    tokens = {name: f"{mark}{k}{mark}" for k, name in enumerate(names, start=1)}

    def renamed(e: Any) -> Any:
        name = getattr(e, "player", None)
        return replace(e, player=tokens[name]) if isinstance(name, str) and name in tokens else e

    header = replace(hand.header, site=SITE, hand_id=HAND_ID, started=STARTED, zone="UTC")
    summary = replace(hand.summary, outcomes=tuple(renamed(o) for o in hand.summary.outcomes))
    out = replace(
        hand,
        header=header,
        table=replace(hand.table, name=TABLE),
        seats=tuple(renamed(s) for s in hand.seats),
        events=tuple(renamed(e) for e in hand.events if not isinstance(e, Said)),  # chat is free text: it may name anyone
        summary=summary,
        source="",
    )
    return out, names, {tokens[name]: shown for name, shown in names.items()}


def removed_strings(hand: Hand, names: dict[str, str]) -> tuple[str, ...]:
    """What anonymising ``hand`` removed: the renamed players, the site, the table, the hand id, the date and time as written and in UTC."""
    h = hand.header
    out = [*names, h.site, hand.table.name, h.hand_id]
    for when in (h.started, h.started.astimezone(timezone.utc)):
        out += [when.strftime("%Y/%m/%d"), when.strftime("%Y-%m-%d"), when.strftime("%H:%M:%S")]
    return tuple(dict.fromkeys(s for s in out if s))


def shown_header(steps: HandSteps) -> str:
    """The header line without the site, the hand number and the time: ``Telesina classic Fixed Limit (€0.50/€1.00) - ante €0.10, …``."""
    line = header_line(steps.hand.header, steps.hand.money)
    return line.split(": ", 1)[1].rpartition(" - ")[0]


def shown_table(steps: HandSteps) -> str:
    """The table line without the table's name."""
    t = steps.hand.table
    return f"Table {t.max_seats}-max Seat #{t.button} is the button"


def share_json(shared: Shared) -> dict[str, Any]:
    """The steps' JSON (packed, as the replayer embeds it); anonymised, with no site, hand number, table or time in it.

    The rewritten hand's placeholders (:data:`SITE`, :data:`STARTED`, …)
    are not shown either: the header's fields are empty and its two lines
    read as :func:`shown_header` and :func:`shown_table`.
    """
    doc = shared.steps.to_json(packed=True)
    if not shared.anonymised:
        return doc
    doc = {k: shared.relabelled(v) for k, v in doc.items()}
    doc.update(site="", hand_id="", table="", started="")
    first = shared.steps.first_line
    redacted = {first: shown_header(shared.steps), first + 1: shown_table(shared.steps)}
    lines: list[str] = doc["lines"]
    for no, text in redacted.items():
        if 0 <= no - first < len(lines):
            lines[no - first] = text
    for s in doc["steps"]:
        if s["line"] in redacted:
            s["text"] = redacted[s["line"]]
    return doc


__all__ = [
    "HandSource", "NoSuchHero", "WhichHand", "hand_in_files",
    "HAND_ID", "SITE", "STARTED", "TABLE", "ShareError", "Shared", "anonymised_hand", "own_viewer", "removed_strings", "share",
    "share_json", "shown_header", "shown_table",
]
