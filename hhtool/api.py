"""The library's entry points, one function per job the command line does.

``import hhtool`` gives these names; each imports what it needs when it is
called, so that ``import hhtool`` (and ``hhtool --help``) stays instant:

- :func:`read_file`, :func:`read_text`: hand-history files or text to
  records: a parsed :class:`~hhtool.history.events.Hand`, an
  :class:`~hhtool.history.errors.ErrorRecord` for a hand that failed (with its text),
  or a :class:`~hhtool.history.reader.Skipped` run of lines outside any hand;
- :func:`parse_hand`: exactly one hand's text to a ``Hand`` (raises
  :class:`~hhtool.history.errors.HandHistoryError` with file, line and column);
- :func:`replay_hand`: a hand replayed under its rules (or another
  profile's): verdict, findings, who is paid what and why;
- :func:`replay_steps`: the same hand step by step, for the hand replayer;
- :func:`audit_paths`, :func:`audit_report`: what ``hhtool audit`` prints;
  :func:`what_if`: the same hand settled under another profile;
- :func:`import_paths`: files, folders, globs and archives into a DuckDB file;
- :func:`statistics`, :func:`write_report`: what ``hhtool stats`` and
  ``hhtool report`` compute from that file (``statistics(db).figures()``:
  the ready figures as a polars frame, a row per player);
- :func:`integrity`: the pairs of accounts worth a review, as ``hhtool
  integrity`` ranks them (docs/integrity.md);
- :func:`query`: read-only SQL on that file, as ``hhtool query``, to a
  polars frame (``docs/python.md`` shows both at work);
- :func:`web_app`: the web application ``hhtool serve`` runs over it;
- :func:`profile`: a rule profile (``classic``, ``stellapoker``, ``italian``);
  :func:`load_room`, :func:`load_rooms`: a room's own rules, from its file
  (docs/rooms.md), for :func:`replay_hand`, :func:`audit_paths` and
  :func:`import_paths`;
- :func:`equities`: what ``hhtool equity`` computes: each player's share of
  the pot with cards still to come; :func:`street_equities`: each
  contender's equity after every street's deal of a hand.

Why a module of its own: the modules behind these names are compiled with
mypyc for speed, and compiled functions lose their docstrings; these plain
Python functions keep them (``help(hhtool.replay_hand)`` works in every
build) and give the library one stable surface, whatever moves behind it.
Each is a thin call: the work, and its documentation in depth, stays in the
module it names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import threading

    import polars as pl

    from starlette.applications import Starlette

    from hhtool.replay.audit import AuditResult, WhatIf
    from hhtool.history.currency import Rates
    from hhtool.game.equity import EquityResult
    from hhtool.game.room import Room, Rooms
    from hhtool.history.events import Hand
    from hhtool.history.reader import Record
    from hhtool.replay import Replay
    from hhtool.replay.equities import StreetEquity
    from hhtool.replay.steps import HandSteps
    from hhtool.game.rules import RuleSet
    from hhtool.stats import Filters, StatsResult
    from hhtool.store.summary import ImportSummary


def read_file(path: str | Path, *, strict: bool = False) -> Iterator[Record]:
    """Every hand of a hand-history file, in file order, as records.

    A record is a parsed ``Hand``, an ``ErrorRecord`` (a hand that failed:
    file, line, column, hand id, what was expected, and the hand's raw
    text) or a ``Skipped`` run of lines outside any hand.  One broken hand
    never stops the others; ``strict=True`` raises the first failure
    instead.  The file is streamed (a megabyte at a time), in UTF-8 or,
    from its first line that is not, Windows-1252.
    """
    from hhtool.history.reader import read_file as _read_file

    return _read_file(path, strict=strict)


def read_text(text: str, source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Like :func:`read_file`, for text already in memory (``source`` names it in errors)."""
    from hhtool.history.reader import read_text as _read_text

    return _read_text(text, source, strict=strict)


def parse_hand(text: str, *, source: str = "") -> Hand:
    """Parse exactly one hand's text (blank lines around it are ignored).

    Raises :class:`~hhtool.history.errors.HandHistoryError` (its ``line``,
    ``column`` and ``line_text`` say where and what was expected) when the
    text is not one whole, consistent hand.
    """
    from hhtool.history.parse import parse_text

    return parse_text(text, source=source)


def replay_hand(hand: Hand, rules: str | RuleSet | None = None, *, room: str | Path | Room | None = None) -> Replay:
    """Replay ``hand`` under its header's rules, or under ``rules`` (a profile name or rule set).

    ``room``: a room file (its path, or a :class:`~hhtool.game.room.Room`
    from :func:`load_room`) whose rules and rake govern the hand
    (docs/rooms.md): the rake is computed and held against the Rake line.
    The result's ``verdict`` is ``ok``, ``disputed`` (the rules pay
    someone else), ``invalid`` (it could not have happened under its
    rules); ``findings`` say what and where, each with its line;
    ``payouts`` is what the rules pay each player, ``claimed`` what the
    history says was collected, ``pots`` each pot with its winners and why.
    """
    from hhtool.replay import replay
    from hhtool.game.room import load_room as _load_room
    from hhtool.game.rules import profile as _profile

    ruleset = _profile(rules) if isinstance(rules, str) else rules
    governing = _load_room(room) if isinstance(room, (str, Path)) else room
    return replay(hand, ruleset, room=governing)


def load_room(path: str | Path) -> Room:
    """A room file (docs/rooms.md) read and checked: raises :class:`~hhtool.game.room.RoomError` listing every problem with its line."""
    from hhtool.game.room import load_room as _load_room

    return _load_room(path)


def load_rooms(folder: str | Path | None = None) -> Rooms:
    """Every room file of ``folder`` (default: ``$HHTOOL_ROOMS``, else ``~/.config/hhtool/rooms``), each governing its sites' hands."""
    from hhtool.game.room import load_rooms as _load_rooms

    return _load_rooms(folder, required=folder is not None)


def replay_steps(text: str, *, first_line: int = 1, source: str = "", equity: bool = False) -> HandSteps:
    """One hand's text as the replayer steps through it: the table after every event, the findings at their steps.

    ``text`` is the hand (``hands.raw_text`` of the database, its header on
    line ``first_line``); raises :class:`~hhtool.history.errors.HandHistoryError`
    if it does not parse.  Each step holds every seat's stack, the money in
    front, the cards as the history's viewer saw them, the pots, the line
    and a sentence; ``to_json()`` gives plain dicts, and
    :func:`hhtool.replayer.html.replayer_html` the HTML replayer
    (``docs/replayer.md``).  ``equity``: each contender's equity per street
    where the cards are known (milliseconds to seconds a hand).
    """
    from hhtool.replay.steps import steps_from_text

    return steps_from_text(text, first_line=first_line, source=source, equity=equity)


def audit_paths(
    paths: Sequence[str | Path],
    *,
    hand_id: str | None = None,
    rules: str | RuleSet | None = None,
    equity: bool = True,
    rooms: str | Path | Rooms | None = None,
) -> Iterator[AuditResult]:
    """Replay every hand of the files ``paths`` (only ``hand_id`` if given): one result per hand.

    A hand that did not parse gives a result with its ``error`` and the
    verdict ``unparsed``; render a result with :func:`audit_report`.
    ``equity=False`` leaves out each contender's equity street by street
    (``result.equities``), the audit's costliest part.  ``rooms``: a
    folder of room files (or :func:`load_rooms`' result); each hand whose
    site one governs is replayed under it (default: none).
    """
    from hhtool.replay.audit import audit_paths as _audit_paths
    from hhtool.game.room import NO_ROOMS
    from hhtool.game.room import load_rooms as _load_rooms
    from hhtool.game.rules import profile as _profile

    ruleset = _profile(rules) if isinstance(rules, str) else rules
    governing = _load_rooms(rooms, required=True) if isinstance(rooms, (str, Path)) else rooms if rooms is not None else NO_ROOMS
    return _audit_paths(paths, hand_id=hand_id, rules=ruleset, equity=equity, rooms=governing)


def what_if(hand: Hand, rules: str | RuleSet, *, showdown_only: bool = True) -> WhatIf:
    """The floor manager's question: how would this hand be settled under another profile?

    ``showdown_only`` (the default): the hand's own rules and betting as
    they were, with ``rules``' comparison of hands at the showdown (its
    tie-break and straight-flush rules); else the whole hand replayed
    under ``rules``.  ``result.changes`` are the payouts that change,
    player by player (``result.changes_text()`` in the hand's money).
    """
    from hhtool.replay.audit import what_if as _what_if
    from hhtool.game.rules import profile as _profile

    ruleset = _profile(rules) if isinstance(rules, str) else rules
    return _what_if(hand, ruleset, "showdown" if showdown_only else "rules")


def audit_report(result: AuditResult, fmt: Literal["text", "json"] = "text") -> str:
    """One hand's audit as ``hhtool audit`` prints it: text for a person, or one JSON object."""
    from hhtool.replay.audit import to_json, to_text

    if fmt == "json":
        from hhtool.textsafe import dumps

        return dumps(to_json(result))
    return to_text(result)


def import_paths(
    paths: Iterable[str | Path],
    db: str | Path,
    *,
    workers: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    cancel: threading.Event | None = None,
    rooms: Rooms | str | Path | None = None,
    reaudit: bool = False,
) -> ImportSummary:
    """Import every hand under ``paths`` (files, folders, globs, ``.zip``, ``.gz``) into the DuckDB file ``db``.

    Every hand is stored once, with its verdict and findings; a hand that
    failed keeps its text; a file already imported is skipped.  ``workers``:
    processes that parse and replay (default: one per core for big inputs,
    0: all in this process).  ``progress(bytes done, bytes total, hands)``
    is called as the import goes; once ``cancel`` (a :class:`threading.Event`)
    is set, the import stops after the transaction in progress, keeps what
    it committed (a rerun adds the rest) and its summary says ``interrupted``.
    The summary counts what was read, stored,
    duplicated, in conflict and failed (``summary.text()`` prints it as the
    command does).  Tables: ``docs/schema.md``.

    ``rooms``: a folder of room files (docs/rooms.md; checked whole first,
    :class:`~hhtool.game.room.RoomError` with every problem otherwise) or
    :func:`hhtool.game.room.load_rooms`' result: each hand is replayed under
    the room that names its site and stored with it (default: none, every
    hand under the profile its header names).  ``summary.stale`` then names
    the stored hands audited under other rules than these give now, and
    ``reaudit`` audits them again (``paths`` may be empty).
    """
    from hhtool.game.room import NO_ROOMS, Rooms, load_rooms
    from hhtool.store.importer import import_paths as _import_paths

    governing = NO_ROOMS if rooms is None else rooms if isinstance(rooms, Rooms) else load_rooms(rooms, required=True)
    return _import_paths(paths, db, workers=workers, progress=progress, cancel=cancel, rooms=governing, reaudit=reaudit)


def statistics(db: str | Path, filters: Filters | None = None, *, play_time: bool = True, gap_minutes: int = 30) -> StatsResult:
    """Each player's statistics in the database ``db``, as ``hhtool stats`` computes them.

    ``filters`` (:class:`hhtool.stats.Filters`) narrows the hands and
    players; each statistic is actions over opportunities
    (``docs/stats.md``).  ``result.figures()`` is a polars frame of the
    ready figures, a row per player (``vpip`` a percentage with
    ``vpip_actions`` and ``vpip_opportunities`` beside it, None without
    opportunity; money in integer minor units per ISO currency code,
    ``net_EUR_cents``), as ``hhtool stats --format csv`` writes them;
    ``result.row(player)`` one player's; ``result.players()`` lists the
    players, ``result.money_of(player)`` their money per currency and
    ``result.ratio(player, key)`` one statistic's counts (docs/python.md).
    ``play_time``: with each player's sessions, hours played and winnings
    per hour (``sessions``, ``hours_played``, ``net_per_hour_EUR_cents``;
    a new session after ``gap_minutes`` without a hand), as the CSV has
    them; False leaves out that walk of every hand (about a second at a
    million hands).
    """
    from hhtool.stats import compute

    return compute(db, filters, play_time=play_time, gap_minutes=gap_minutes)


def integrity(
    db: str | Path, filters: Filters | None = None, *, min_hands: int | None = None, cache: bool = True
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The pairs of accounts worth a review and their signals, as ``hhtool integrity`` ranks them: ``(pairs, signals)``.

    ``pairs``: a row per pair of accounts dealt in together, best lead
    first (``rank``, ``a``, ``b``, ``site``, ``hands_together``, ``score``,
    ``lead`` strong/moderate/weak/none, ``sure``, ``signals`` in words,
    ``hands`` and ``hand_ids`` they rest on); ``signals``: a row per pair and
    signal (``value``, ``baseline``, ``sample``, ``z``, ``scored``,
    ``why_not``).  ``filters`` as :func:`statistics` takes them;
    ``cache``: read and add to the priced equities beside the database.
    The whole result, with what could not be computed and why, is
    :func:`hhtool.integrity.screen`'s; one pair's dossier
    :func:`hhtool.integrity.dossier`'s (docs/integrity.md).
    """
    from hhtool.integrity import screen

    s = screen(db, filters, min_hands=min_hands, cache=cache)
    return s.pairs, s.signals


def query(sql: str, db: str | Path | None = None, *, parquet: str | Path | None = None, timeout: float | None = 300.0) -> pl.DataFrame:
    """The result of read-only ``sql`` on the database ``db`` as a polars frame, exactly as ``hhtool query`` runs it.

    ``db``: the database file (default: ``$HHTOOL_DB``, else the default
    path ``hhtool`` uses); or ``parquet``, a Parquet dataset
    (``hhtool export --parquet``) read as the same tables.  Only statements
    that read run (docs/query.md): anything else raises
    :class:`~hhtool.store.query.ReadOnlyQueryError` before any statement
    runs, SQL DuckDB refuses a :class:`~hhtool.store.query.QueryError`, and
    the connection itself can reach no file, extension or setting.  Each
    statement stops after ``timeout`` seconds (None or 0: no limit) with
    :class:`~hhtool.store.limits.TimeLimitError`.  Several statements: the
    last one's rows.  Tables: ``docs/schema.md``.
    """
    from hhtool.store.db import resolve_db_path
    from hhtool.store.query import run_query

    if parquet is not None:
        if db is not None:
            raise ValueError("give db or parquet, not both")
        from hhtool.store.parquet import ParquetDataset

        return run_query(ParquetDataset(parquet), sql, timeout=timeout)
    return run_query(resolve_db_path(db), sql, timeout=timeout)


def write_report(
    db: str | Path, out: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30, rates: Rates | None = None
) -> Path:
    """Write ``hhtool report``'s self-contained HTML file to ``out``; returns its path.

    ``gap_minutes``: minutes without a hand that start a new session;
    ``rates`` (:class:`hhtool.history.currency.Rates`): convert money to one currency
    at these rates, as ``--currency``/``--rate`` do.  Raises
    :class:`~hhtool.stats.report.EmptyReportError` (and writes nothing)
    when no hand matches ``filters``.
    """
    from hhtool.stats.report import write_report as _write_report

    return _write_report(db, out, filters, gap_minutes=gap_minutes, rates=rates)


def web_app(db: str | Path) -> Starlette:
    """The ASGI application of ``hhtool serve`` over the database ``db``: its pages and JSON API (``docs/serve.md``, ``docs/api.md``).

    It opens ``db`` for writing and holds it until the application stops
    (its lifespan's end); any ASGI server runs it, e.g.
    ``uvicorn.run(hhtool.web_app("hands.duckdb"))``.  Raises
    :class:`~hhtool.store.db.DatabaseInUseError` when another process holds
    the file.
    """
    from hhtool.web.app import create_app

    return create_app(db)


def profile(name: str) -> RuleSet:
    """The rule profile ``name``: ``classic``, ``stellapoker`` or ``italian`` (RULES.md)."""
    from hhtool.game.rules import profile as _profile

    return _profile(name)


def equities(
    hands: Sequence[str | Sequence[str]],
    rules: str | RuleSet = "classic",
    *,
    vela: str | None = None,
    dead: Sequence[str] = (),
    players: int | None = None,
    wild: str | None = None,
    samples: int | None = None,
    seed: int | None = None,
) -> EquityResult:
    """Each player's equity (expected share of the pot), win and tie chance, as ``hhtool equity`` computes them.

    ``hands``: each player's cards seen so far (``"Qc Qs 9c"``, ``??`` for
    one nobody has seen); ``vela`` if up; ``dead`` cards seen and out of
    play; ``players`` dealt in (the italian deck).  Exact over every runout
    when they are few enough, else sampled (``samples``, default 100,000)
    with ``seed`` (default 0).  ``result.hands`` are in input order, each
    with ``equity``, ``win``, ``tie`` and, sampled, ``stderr``.  Raises
    :class:`~hhtool.game.equity.EquityInputError` naming the bad card.  With card
    integers: :func:`hhtool.game.equity.equity`.  Definitions: ``docs/equity.md``.
    """
    from hhtool.game import equity as _equity
    from hhtool.game.cards import CardError, parse_rank
    from hhtool.game.rules import RulesError
    from hhtool.game.rules import profile as _profile

    ruleset = _profile(rules) if isinstance(rules, str) else rules
    if wild is not None:
        try:
            ruleset = ruleset.with_options(wild=parse_rank(wild))
        except (CardError, RulesError) as e:
            raise _equity.EquityInputError(f"wild {wild}: {e}") from None
    return _equity.equity_from_text(
        ruleset,
        hands,
        vela=vela,
        dead=dead,
        players=players,
        samples=_equity.DEFAULT_SAMPLES if samples is None else samples,
        seed=_equity.DEFAULT_SEED if seed is None else seed,
    )


def street_equities(hand: Hand, rules: str | RuleSet | None = None) -> list[StreetEquity]:
    """Each contender's equity after every street's deal (2nd to 5th) where the history shows their cards.

    The hand is replayed under its rules (or ``rules``'); each street gives
    the contenders in deal order with ``equity``, ``win``, ``tie``, the dead
    cards (folded players' up cards) and whether it was counted exactly.
    Details: :func:`hhtool.replay.equities.street_equities`, docs/equity.md.
    """
    from hhtool.game.rules import profile as _profile
    from hhtool.replay import replay
    from hhtool.replay.equities import street_equities as _street_equities

    ruleset = _profile(rules) if isinstance(rules, str) else rules
    return _street_equities(replay(hand, ruleset))


__all__ = [
    "audit_paths",
    "audit_report",
    "equities",
    "import_paths",
    "integrity",
    "load_room",
    "load_rooms",
    "parse_hand",
    "profile",
    "query",
    "read_file",
    "read_text",
    "replay_hand",
    "replay_steps",
    "statistics",
    "street_equities",
    "web_app",
    "what_if",
    "write_report",
    "share_hand",
]


def share_hand(
    path: str | Path | Sequence[str | Path] | None = None,
    *,
    db: str | Path | None = None,
    hand_id: str | None = None,
    site: str | None = None,
    fmt: Literal["html", "text"] = "html",
    anonymise: bool = False,
    hero: str | None = None,
    no_hero: bool = False,
    rooms: str | Path | Rooms | None = None,
) -> str:
    """One hand to show someone else, as ``hhtool share`` writes it: a self-contained HTML page, or forum text (``docs/share.md``).

    The hand is read from ``path`` (a hand-history file, or what ``hhtool
    audit`` reads: folders, globs, archives; ``hand_id`` picks one, needed
    when there are several), else from the database ``db`` (``hand_id``,
    and ``site`` when two sites hold that id), replayed under the rules it
    was imported under.  ``fmt``: ``"html"``, the replayer in one file that
    fetches nothing; ``"text"``, the hand in lines of 80 columns.
    ``anonymise``: every player but the hero named by their seat, no site,
    table, hand number or time anywhere; the hero is ``hero``, else the
    history's own viewer, nobody with ``no_hero``.  ``rooms`` (with
    ``path``): the room files whose rules govern the hand's site.  Raises
    :class:`~hhtool.replayer.share.WhichHand` when no hand or several match,
    :class:`~hhtool.replayer.share.ShareError` when the hand cannot be
    shared as asked, :class:`~hhtool.history.errors.HandHistoryError` when
    it does not parse, :class:`~hhtool.store.db.StoreError` for a database
    that cannot be read.
    """
    from hhtool.game.room import NO_ROOMS, Rooms
    from hhtool.game.room import load_rooms as _load_rooms
    from hhtool.replayer.forum import forum_text
    from hhtool.replayer.page import share_html
    from hhtool.replayer.share import HandSource, WhichHand, hand_in_files, share

    if path is not None:
        paths = [path] if isinstance(path, (str, Path)) else list(path)
        found = hand_in_files(paths, hand_id, site)
        governing: Rooms = rooms if isinstance(rooms, Rooms) else _load_rooms(rooms, required=True) if rooms is not None else NO_ROOMS
        shared = share(found.text, first_line=found.first_line, source=found.source, room=governing, anonymise=anonymise, hero=hero, no_hero=no_hero)
    else:
        if db is None or hand_id is None:
            raise WhichHand("which hand? give a hand-history file, or a database and a hand id")
        from hhtool.store.db import connect
        from hhtool.store.rooms import stored_room

        con = connect(db, read_only=True)
        try:
            where = "hand_id = ?" + (" AND site = ?" if site is not None else "")
            rows = con.execute(
                f"SELECT site, hand_id, file, first_line, raw_text, room, rules_digest FROM hands WHERE {where} ORDER BY site",
                [hand_id] + ([site] if site is not None else []),
            ).fetchall()
            if not rows:
                raise WhichHand(f"no hand {hand_id!r}{f' of site {site!r}' if site is not None else ''} in the database {db}")
            if len(rows) > 1:
                sites = ", ".join(str(r[0]) for r in rows)
                raise WhichHand(f"{len(rows)} sites hold a hand {hand_id!r} ({sites}): choose one with --site NAME")
            s, hid, file, first_line, raw, room, digest = rows[0]
            found = HandSource(str(raw), int(first_line), str(file), str(s), str(hid), stored_room(con, {"room": room, "rules_digest": digest}))
        finally:
            con.close()
        shared = share(found.text, first_line=found.first_line, source=found.source, room=found.room, anonymise=anonymise, hero=hero, no_hero=no_hero)
    return share_html(shared) if fmt == "html" else forum_text(shared)


