"""The rooms in the database: the rules each hand was audited under, a room file changed since, and re-audit.

An import given room files (``--rooms DIR``, :func:`hhtool.game.room.load_rooms`)
replays each hand under the room whose file names its site (for its
profile) and records it with the hand: ``hands.room`` and
``hands.rules_digest`` (the room's :attr:`~hhtool.game.room.Room.digest`),
and the room's rules as they were in ``rooms``, one row per name and
digest, in the transaction of the first hand stored under them
(:func:`record_rooms`).

A room file changed since is noticed by the next import
(:func:`stale_groups`, :func:`notices`): the hands whose ``(room,
rules_digest)`` is not what the rooms give their site and profile now --
a room whose rules changed, a room that now governs hands audited without
one, a room whose file is gone -- are counted and described; nothing is
changed.  ``hhtool import --reaudit`` replays them from their text
(:func:`hhtool.store.worker.reaudit_chunk`) and replaces, a batch per
transaction, everything the replay made of them (:func:`write_reaudit`):
the hand's row but its key, site, id, file, line, text and hash; its
seats, actions, cards, pots and findings.  A batch is committed whole or
not at all, and a hand re-audited is no longer stale: a re-audit stopped
at any moment (Ctrl-C, ``kill -9``) is finished by running it again, and
a second one finds nothing to do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hhtool.game.room import Room, Rooms, describe_changes
from hhtool.store.db import batch_transaction
from hhtool.store.frames import ArrowStream
from hhtool.store.schema import HAND_TABLES, HANDS, ROOMS
from hhtool.store.summary import ImportSummary, RoomNotice
from hhtool.store.totals import STATE
from hhtool.store.worker import ChunkResult

if TYPE_CHECKING:
    import duckdb
    import polars as pl

KEPT = ("hand_key", "site", "hand_id", "file", "first_line", "text_hash", "raw_text")
"""The columns of ``hands`` a re-audit keeps: who the hand is, where it was read, its text. The others are the replay's."""
REPLAYED: tuple[str, ...] = tuple(c.name for c in HANDS.columns if c.name not in KEPT)
"""The columns of ``hands`` a re-audit writes again."""


def room_rows(rooms: Rooms) -> pl.DataFrame:
    """The rows of ``rooms`` (but ``imported_at``) of every room: one per name and digest, the first file's."""
    import polars as pl

    from hhtool.store.frames import polars_dtype

    seen: set[tuple[str, str]] = set()
    rows: list[dict[str, Any]] = []
    for room in rooms.rooms:
        digest = room.digest
        if (room.name, digest) in seen:
            continue
        seen.add((room.name, digest))
        rows.append({
            "name": room.name, "digest": digest, "base": room.base, "sites": list(room.sites),
            "rules": json.dumps(room.canonical(), sort_keys=True, separators=(",", ":")),  # the text the digest hashes
            "source": _absolute(room.source),
        })
    schema = {c.name: polars_dtype(c.sql) for c in ROOMS.columns if c.name != "imported_at"}
    return pl.DataFrame(rows, schema=schema)


def _absolute(source: str) -> str:
    """A room file's path made absolute (as ``files.path`` is); any other source (a built-in profile) as it is."""
    from pathlib import Path

    path = Path(source)
    return str(path.resolve()) if path.is_file() else source


def record_rooms(con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, hands: str) -> None:
    """Within the caller's transaction: the rows of the rooms the hands of the registered frame ``hands`` name, if new.

    ``rows``: :func:`room_rows`; ``hands``: the name of a registered frame
    with ``room`` and ``rules_digest`` (the batch's hands, as stored).
    """
    con.register("b_rooms", ArrowStream(rows))
    try:
        con.execute(
            f"INSERT INTO rooms BY NAME SELECT r.*, now() AS imported_at FROM b_rooms r "
            f"WHERE EXISTS (SELECT 1 FROM {hands} h WHERE h.room = r.name AND h.rules_digest = r.digest) "
            "AND NOT EXISTS (SELECT 1 FROM rooms x WHERE x.name = r.name AND x.digest = r.digest)"
        ).fetchall()
    finally:
        con.unregister("b_rooms")


@dataclass(frozen=True, slots=True)
class StaleGroup:
    """Stored hands of one site and profile audited under ``(room, digest)``, which the rooms of now give ``now``."""

    site: str
    profile: str
    room: str | None
    digest: str | None
    hands: int
    now: Room | None


def stale_groups(con: duckdb.DuckDBPyConnection, rooms: Rooms) -> list[StaleGroup]:
    """The stored hands whose room and rules are not what ``rooms`` give their site and profile now, by group.

    Without rooms and with no hand ever audited under one (an empty
    ``rooms`` table), nothing is read: an import without room files pays
    nothing for this.
    """
    if not rooms and not con.execute("SELECT 1 FROM rooms LIMIT 1").fetchall():
        return []
    digests = {room.source: room.digest for room in rooms.rooms}
    out = []
    for site, profile, room, digest, n in con.execute(
        "SELECT site, profile, room, rules_digest, count(*) FROM hands GROUP BY ALL ORDER BY ALL"
    ).fetchall():
        now = rooms.for_hand(str(site), str(profile))
        expected = (None, None) if now is None else (now.name, digests[now.source])
        if (room, digest) != expected:
            out.append(StaleGroup(str(site), str(profile), room, digest, int(n), now))
    return out


_Key = tuple[str, str, str | None, str | None, tuple[str, ...]]
"""A notice's case: its kind, room, the room's file, the room the hands were audited under, what changed."""


def notices(con: duckdb.DuckDBPyConnection, groups: list[StaleGroup]) -> list[RoomNotice]:
    """The stale groups in words: per room and case, how many hands, of which sites, and what changed."""
    canonical: dict[tuple[str, str], dict[str, Any]] = {}
    for name, digest, rules in con.execute("SELECT name, digest, rules FROM rooms").fetchall():
        canonical[(str(name), str(digest))] = json.loads(str(rules))
    merged: dict[_Key, tuple[int, list[str]]] = {}
    for g in groups:
        if g.now is None:
            key: _Key = ("gone", g.room or "", None, None, ())
        elif g.room is None:
            key = ("governed", g.now.name, g.now.source, None, ())
        elif g.room == g.now.name:
            old = canonical.get((g.room, g.digest or ""))
            changes = tuple(describe_changes(old, g.now.canonical())) if old is not None else ()
            key = ("changed", g.now.name, g.now.source, None, changes)
        else:
            key = ("moved", g.now.name, g.now.source, g.room, ())
        hands, sites = merged.get(key, (0, []))
        site = f"{g.site} ({g.profile})"
        merged[key] = (hands + g.hands, sites if site in sites else [*sites, site])
    return [
        RoomNotice(kind, room, source, hands, tuple(sites), changes, was)
        for (kind, room, source, was, changes), (hands, sites) in merged.items()
    ]


def notice_stale(con: duckdb.DuckDBPyConnection, rooms: Rooms, summary: ImportSummary) -> None:
    """The stored hands audited under other rules than ``rooms`` give now, described in ``summary.stale``."""
    summary.stale = notices(con, stale_groups(con, rooms))


STALE_SELECT = (
    "SELECT h.hand_key, h.file, h.first_line, h.raw_text, h.verdict FROM hands h JOIN b_stale s "
    "ON h.site = s.site AND h.profile = s.profile AND h.room IS NOT DISTINCT FROM s.room "
    "AND h.rules_digest IS NOT DISTINCT FROM s.digest WHERE h.hand_key > ? ORDER BY h.hand_key LIMIT ?"
)
"""The next stale hands after a key (``b_stale``: the groups, :func:`stale_frame`), in key order, a batch at a time."""


def stale_frame(groups: list[StaleGroup]) -> pl.DataFrame:
    """The stale groups as a frame to join the hands with (``b_stale``)."""
    import polars as pl

    return pl.DataFrame(
        {"site": [g.site for g in groups], "profile": [g.profile for g in groups], "room": [g.room for g in groups], "digest": [g.digest for g in groups]},
        schema={"site": pl.Utf8, "profile": pl.Utf8, "room": pl.Utf8, "digest": pl.Utf8},
    )


def write_reaudit(
    con: duckdb.DuckDBPyConnection, results: list[ChunkResult], before: dict[int, str], rooms: pl.DataFrame | None, summary: ImportSummary
) -> None:
    """One batch of re-audited hands in one transaction: their replay's columns and rows replaced, their rooms recorded.

    ``results``: :func:`~hhtool.store.worker.reaudit_chunk`'s, each with
    the ``hand_key`` of its hands; ``before``: each hand's verdict as
    stored (the changes are counted in ``summary.verdict_changes``);
    ``rooms``: :func:`room_rows` (None: no rooms).  The players' totals and
    hands derived from the seats (:mod:`hhtool.store.totals`) are marked
    out of step in the same transaction: their readers use the seats, and
    ``hhtool serve`` builds them again when it opens the database.
    """
    import polars as pl

    tables: dict[str, list[pl.DataFrame]] = {}
    for r in results:
        if not r.keys:
            continue
        keys = pl.DataFrame({"local": range(len(r.keys)), "hand_key": r.keys}, schema={"local": pl.Int32, "hand_key": pl.Int64})
        for name, df in r.frames.items():
            if name != "failed" and df.height:
                tables.setdefault(name, []).append(df.join(keys, on="local", how="inner", maintain_order="left").drop("local"))
    merged = {name: pl.concat(dfs, rechunk=False) for name, dfs in tables.items()}
    hands = merged.get("hands")
    if hands is None or not hands.height:
        return
    names = ["b_hands", *(f"b_{t.name}" for t in HAND_TABLES)]
    with batch_transaction(con, names):
        con.register("b_hands", ArrowStream(hands))
        sets = ", ".join(f"{c} = b.{c}" for c in REPLAYED)
        con.execute(f"UPDATE hands SET {sets} FROM b_hands b WHERE hands.hand_key = b.hand_key").fetchall()
        for spec in HAND_TABLES:
            con.execute(f"DELETE FROM {spec.name} WHERE hand_key IN (SELECT hand_key FROM b_hands)").fetchall()
            rows = merged.get(spec.name)
            if rows is not None and rows.height:
                con.register(f"b_{spec.name}", ArrowStream(rows))
                con.execute(f"INSERT INTO {spec.name} BY NAME SELECT * FROM b_{spec.name}")
        if rooms is not None:
            record_rooms(con, rooms, "b_hands")
        if con.execute(
            "SELECT 1 FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?", [STATE]
        ).fetchall():
            con.execute(f"DELETE FROM {STATE}").fetchall()  # the derived tables: out of step, built again from the seats
    summary.reaudited += hands.height
    for key, verdict in hands.select("hand_key", "verdict").iter_rows():
        was = before.get(key)
        if was is not None and was != verdict:
            change = f"{was} → {verdict}"
            summary.verdict_changes[change] = summary.verdict_changes.get(change, 0) + 1


def stored_room(con: duckdb.DuckDBPyConnection, row: dict[str, Any]) -> Room | None:
    """The room a stored hand was replayed under, rebuilt from the ``rooms`` row of its name and digest (None: the textbook profile).

    Rebuilt from the database, not read from today's room file: the page
    replays the hand as the import did, even if the file has changed since.
    """
    from hhtool.game.room import room_from_record

    if row.get("room") is None:
        return None
    found = con.execute(
        "SELECT name, base, sites, source, rules FROM rooms WHERE name = ? AND digest = ?", [row["room"], row.get("rules_digest")]
    ).fetchone()
    if found is None:
        return None
    name, base, sites, source, rules = found
    return room_from_record(str(name), str(base), [str(s) for s in sites or ()], str(source), json.loads(rules))
