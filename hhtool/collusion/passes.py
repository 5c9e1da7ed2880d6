"""The screen's SQL passes and what they return, kept beside the database so that a second screen of the same hands skips them.

The passes (:mod:`hhtool.collusion.spots`) turn the hands in scope into
small frames: the pairs' hands together and flows, each player's
traffic, the per-(player, opponent, stratum) counts, the tallies, the
candidates to price, the hidden-cards counts, and the decisions and hands
a lead names.  Everything the screen does after them (the signals, the
pricing, the score) reads only those frames; the signals reckoned from
them at length in Python (soft play, dumping, the priced ones) are kept
too, as their rows.  :class:`Passes` hands them
to :func:`hhtool.collusion.screen._screen`: read from the file
``DB.integrity-passes.parquet`` when it holds them for the same hands,
else run now (each temporary table built once, when a frame first needs
it) and added to the file after the run.

An entry of the file is found by its key (:func:`fingerprint`): what the
frames depend on and nothing else -- the hands in scope (their number,
and two order-free sums of a hash of each hand's stored row: key, site,
id, text hash, profile, room and rules digest, verdict, findings, players
dealt in, so that a hand added, dropped, imported again with another text
or audited again under other rules changes it), the filters of the hands
(without those that choose pairs, not hands: players, player tags,
``min_hands``), :data:`VERSION`, a hash of the screen's modules' source
(a pass or a signal changed is another result), the pricing's :data:`~hhtool.collusion.pricing.PRICING`,
DuckDB's version.  The file keeps the last :data:`ENTRIES`
keys written (one a scope: a room screened whole and by date, say).

As the equities' file (:mod:`hhtool.collusion.pricing`): written with
polars, not DuckDB, after the run, atomically (a new file renamed over
the old), so a database opened read-only gets it too; a file that cannot
be read, or of another version, is no cache (it is written again); a
folder that cannot be written leaves the run uncached.  A run whose
hands changed while it ran (a live import) keeps nothing.
"""

from __future__ import annotations

import hashlib
import io
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hhtool.collusion import spots
from hhtool.collusion.pricing import PRICING, write_whole
from hhtool.collusion.signals import Pair, Row
from hhtool.stats.filters import Filters, hands_where

if TYPE_CHECKING:
    import duckdb
    import polars as pl

VERSION: Final = 1
"""Part of every key: a change of what the frames hold or how they are made (beyond ``spots.py``, whose source is in the
key) makes the old entries unread."""
ENTRIES: Final = 4
"""Scopes (keys) the file keeps, the last written."""
HAND_COLUMNS: Final = ("hand_key", "site", "hand_id", "text_hash", "profile", "room", "rules_digest", "verdict", "findings", "dealt_in")
"""The columns of a stored hand the key reads (those the database has): what an import again or an audit again changes."""


def passes_path(prices: Path | None) -> Path | None:
    """``DB.integrity-passes.parquet`` beside the equities' ``DB.integrity-cache.parquet`` (None: no cache, no file)."""
    if prices is None:
        return None
    suffix = ".integrity-cache.parquet"
    stem = prices.name[: -len(suffix)] if prices.name.endswith(suffix) else prices.name
    return prices.with_name(stem + ".integrity-passes.parquet")


def _source() -> str:
    """A hash of the screen's modules as they are (``hhtool/collusion/*.py``; empty where they cannot be read): a pass or
    a signal changed makes the entries of the old code unread, whether or not :data:`VERSION` was raised."""
    h = hashlib.blake2b(digest_size=8)
    try:
        for path in sorted(Path(spots.__file__).parent.glob("*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    except (OSError, TypeError):
        return ""
    return h.hexdigest()


def fingerprint(con: duckdb.DuckDBPyConnection, f: Filters) -> str:
    """The key of the frames of a screen of the hands ``f`` selects (``f`` without the filters that choose pairs)."""
    import duckdb

    have = {str(d[0]) for d in con.execute("SELECT * FROM hands LIMIT 0").description or ()}
    cols = ", ".join(f"h.{c}" for c in HAND_COLUMNS if c in have)
    where, params = hands_where(f)
    row = con.execute(
        f"SELECT count(*), CAST(coalesce(sum(x), 0) AS VARCHAR), CAST(coalesce(bit_xor(x), 0) AS VARCHAR) "
        f"FROM (SELECT hash({cols}) AS x FROM hands h WHERE {where})",
        params,
    ).fetchone() or (0, "0", "0")
    what = repr((VERSION, _source(), PRICING, duckdb.__version__, cols, repr(f), tuple(row)))
    return hashlib.blake2b(what.encode(), digest_size=16).hexdigest()


class Passes:
    """The frames of the screen's SQL passes over the hands ``f`` selects: from the file where it keeps them, else run now.

    ``path``: the file (None: nothing read or kept, every pass run).
    ``ran``: the passes run in this screen (0: every frame read from the
    file).  ``priced_kept``: the decisions whose priced figures the
    priced signals' rows read from the file carry (they were not priced
    nor read from the equities' file in this screen).  A pass runs after
    the temporary tables it reads (``ih``, ``idec``, the quick reads, the
    strata), each built once, when a frame first needs it.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, f: Filters, path: Path | None) -> None:
        self.con = con
        self.f = f
        self.path = path
        self.key = fingerprint(con, f) if path is not None else ""
        self.stored: dict[str, bytes] = self._read() if path is not None else {}  # the file's frames, decoded when asked
        self.frames: dict[str, pl.DataFrame] = {}  # those asked or made in this screen
        self.added = 0
        self.ran = 0
        self.priced_kept = 0
        self._built = 0

    # the temporary tables, in the order they read each other

    def _need(self, level: int) -> None:
        """Build the temporary tables up to ``level``: 1 ``ih``, 2 ``idec``, 3 the quick reads, 4 the strata."""
        steps: tuple[Callable[[], None], ...] = (
            lambda: spots.scoped_hands(self.con, self.f), lambda: spots.decisions(self.con),
            lambda: spots.quick_reads(self.con), lambda: spots.read_strata(self.con),
        )
        while self._built < level:
            steps[self._built]()
            self._built += 1
            self.ran += 1

    def _frame(self, name: str, level: int, run: Callable[[], pl.DataFrame]) -> pl.DataFrame:
        got = self._got(name)
        if got is None:
            self._need(level)
            got = run()
            self.ran += 1
            self.frames[name] = got
            self.added += 1
        return got

    # the frames (each as :mod:`hhtool.collusion.spots` returns it)

    def hands_read(self) -> int:
        """The hands in scope."""
        import polars as pl

        def run() -> pl.DataFrame:
            (n,) = self.con.execute("SELECT count(*) FROM ih").fetchone() or (0,)
            return pl.DataFrame({"n": [int(n)]}, schema={"n": pl.Int64})

        return int(self._frame("hands_read", 1, run)["n"][0])

    def pair_hands(self) -> pl.DataFrame:
        return self._frame("pair_hands", 1, lambda: spots.pair_hands(self.con))

    def traffic(self) -> pl.DataFrame:
        return self._frame("traffic", 1, lambda: spots.traffic(self.con))

    def heads_up(self) -> pl.DataFrame:
        return self._frame("heads_up", 2, lambda: spots.heads_up(self.con))

    def strata(self) -> pl.DataFrame:
        return self._frame("strata", 4, lambda: spots.strata(self.con))

    def calls_into(self) -> pl.DataFrame:
        return self._frame("calls_into", 2, lambda: spots.calls_into(self.con))

    def candidates(self) -> pl.DataFrame:
        return self._frame("candidates", 3, lambda: spots.candidates(self.con))

    def tallies(self) -> pl.DataFrame:
        return self._frame("tallies", 2, lambda: spots.tallies(self.con))

    def hidden_beaten(self) -> pl.DataFrame:
        return self._frame("hidden_beaten", 4, lambda: spots.hidden_beaten(self.con))

    def seen(self) -> tuple[int, int]:
        """(seats dealt in whose hole card is known, seats dealt in) of the hands in scope: an own view or the full view."""
        import polars as pl

        def run() -> pl.DataFrame:
            (known, dealt) = self.con.execute(
                "SELECT count(*) FILTER (WHERE s.hole_card IS NOT NULL), count(*) FROM seats s JOIN ih USING (hand_key) WHERE s.dealt_in"
            ).fetchone() or (0, 0)
            return pl.DataFrame({"known": [int(known)], "dealt": [int(dealt)]}, schema={"known": pl.Int64, "dealt": pl.Int64})

        df = self._frame("seen", 1, run)
        return int(df["known"][0]), int(df["dealt"][0])

    def between_pairs(self, pairs: list[tuple[str, str, str]]) -> pl.DataFrame:
        """:func:`hhtool.collusion.spots.between_pairs` of these pairs, kept per list asked (a screen of the same hands asks
        the same lists)."""
        return self._frame("between_pairs:" + _digest(pairs), 4, lambda: spots.between_pairs(self.con, pairs))

    def named_hands(self, leads: list[tuple[str, str, str]], most: int) -> dict[tuple[str, str, str], list[int]]:
        """Per pair (site, a, b) of ``leads``: its hands together with the most money between the two, largest first
        (``most`` at most), for a lead no signal named hands for."""
        if not leads:
            return {}

        def run() -> pl.DataFrame:
            self.con.execute("CREATE OR REPLACE TEMP TABLE ilead (site VARCHAR, a VARCHAR, b VARCHAR)")
            self.con.executemany("INSERT INTO ilead VALUES (?, ?, ?)", leads)
            return spots.frame(self.con, f"""
                SELECT f.site, f.a, f.b, f.hand_key FROM ({spots.flows_sql()}) f JOIN ilead USING (site, a, b)
                QUALIFY row_number() OVER (PARTITION BY f.site, f.a, f.b ORDER BY abs(f.flow) DESC, f.hand_key) <= {int(most)}
                ORDER BY f.site, f.a, f.b, abs(f.flow) DESC, f.hand_key
            """)

        got: dict[tuple[str, str, str], list[int]] = {}
        for site, a, b, key in self._frame(f"named_hands:{most}:" + _digest(leads), 1, run).iter_rows():
            got.setdefault((str(site), str(a), str(b)), []).append(int(key))
        return got

    # the signals the screen reckons from the frames at length (in Python): kept as their rows

    def signal_rows(self, name: str, run: Callable[[], dict[Pair, Row]]) -> dict[Pair, Row]:
        """The rows of the signal ``name`` (:class:`hhtool.collusion.signals.Row` per pair): from the file, else ``run()``."""
        got = self._got("rows:" + name)
        if got is not None:
            return _rows_of(got).get(name, {})
        out = run()
        self.frames["rows:" + name] = _rows_frame({name: out})
        self.added += 1
        return out

    def holds_priced(self) -> bool:
        """Whether the file holds the priced signals' rows (:meth:`priced` reads them rather than run)."""
        return self._got("rows:priced") is not None and self._got("priced") is not None

    def priced(self, run: Callable[[], tuple[dict[str, dict[Pair, Row]], int]]) -> tuple[dict[str, dict[Pair, Row]], int]:
        """The priced signals' rows and the decisions priced for them (:func:`hhtool.collusion.screen._priced`): from the file
        (:attr:`priced_kept` says how many decisions' figures it held), else ``run()``."""
        import polars as pl

        got, n = self._got("rows:priced"), self._got("priced")
        if got is not None and n is not None:
            self.priced_kept = int(n["n"][0])
            return {of: {} for of in n["of"][0]} | _rows_of(got), self.priced_kept
        out, priced = run()
        self.frames["rows:priced"] = _rows_frame(out)
        self.frames["priced"] = pl.DataFrame({"n": [int(priced)], "of": [list(out)]}, schema={"n": pl.Int64, "of": pl.List(pl.String)})
        self.added += 2
        return out, priced

    # the file

    def _got(self, name: str) -> pl.DataFrame | None:
        """The frame ``name`` made in this screen or read from the file (None: neither)."""
        import polars as pl

        if name not in self.frames and name in self.stored:
            try:
                self.frames[name] = pl.read_ipc(io.BytesIO(self.stored[name]))
            except Exception:  # a frame that cannot be read is made again
                del self.stored[name]
        return self.frames.get(name)

    def _read(self) -> dict[str, bytes]:
        """This key's frames in the file; none where there is no file, it cannot be read, or it is of another version."""
        import polars as pl

        assert self.path is not None
        if not self.path.is_file():
            return {}
        try:
            rows = pl.scan_parquet(self.path).filter((pl.col("version") == VERSION) & (pl.col("key") == self.key)) \
                .select("name", "data").collect()
            return {str(n): bytes(d) for n, d in zip(rows["name"], rows["data"])}
        except Exception:  # a file that cannot be read is no cache: it is written again
            return {}

    def save(self) -> None:
        """Add this key's frames to the file (with the other keys' last :data:`ENTRIES` - 1), when a pass ran and the hands
        in scope are still those of the start; atomically; silently not where the folder cannot be written."""
        import polars as pl

        if self.path is None or not self.added or fingerprint(self.con, self.f) != self.key:
            return
        schema: Any = {"version": pl.Int64, "key": pl.String, "written": pl.Int64, "name": pl.String, "data": pl.Binary}
        others = pl.DataFrame(schema=schema)
        if self.path.is_file():
            try:
                old = pl.read_parquet(self.path)
                old = old.select(list(schema)).cast(schema).filter((pl.col("version") == VERSION) & (pl.col("key") != self.key))
                recent = old.group_by("key").agg(pl.col("written").max()).sort("written", descending=True).head(ENTRIES - 1)["key"]
                others = old.filter(pl.col("key").is_in(recent.to_list()))
            except Exception:  # unreadable or foreign: dropped
                others = pl.DataFrame(schema=schema)
        data = dict(self.stored)  # what was read stays as read; what was made now is added
        data.update({name: _ipc(df) for name, df in self.frames.items() if name not in self.stored})
        mine = pl.DataFrame(
            {"version": [VERSION] * len(data), "key": [self.key] * len(data), "written": [time.time_ns()] * len(data),
             "name": list(data), "data": list(data.values())},
            schema=schema,
        )
        write_whole(pl.concat([others, mine]), self.path, compression="uncompressed", row_group_size=1)


def _ipc(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_ipc(buf, compression="zstd")
    return buf.getvalue()


def _digest(pairs: list[tuple[str, str, str]]) -> str:
    """The list asked, as a short name: a pair's names are untrusted text, kept out of the frame's name."""
    return hashlib.blake2b(repr(pairs).encode(), digest_size=16).hexdigest()


def _rows_frame(rows: dict[str, dict[Pair, Row]]) -> pl.DataFrame:
    """Signals' rows as one frame, a row each (``of``: the signal it is kept under), in the dicts' order."""
    import polars as pl

    recs = [
        {"of": of, "site": site, "a": a, "b": b, "signal": r.signal, "value": r.value, "baseline": r.baseline, "sample": r.sample,
         "z": r.z, "why_not": r.why_not, "words": r.words, "hands": list(r.hands), "tau2": r.tau2}
        for of, by_pair in rows.items() for (site, a, b), r in by_pair.items()
    ]
    schema = _rows_schema()
    return pl.DataFrame(recs, schema=schema) if recs else pl.DataFrame(schema=schema)


def _rows_of(df: pl.DataFrame) -> dict[str, dict[Pair, Row]]:
    out: dict[str, dict[Pair, Row]] = {}
    for of, site, a, b, signal, value, baseline, sample, z, why_not, words, hands, tau2 in df.iter_rows():
        out.setdefault(of, {})[(site, a, b)] = Row(signal, value, baseline, int(sample), z, why_not, words, list(hands), tau2)
    return out


def _rows_schema() -> dict[str, Any]:
    import polars as pl

    return {"of": pl.String, "site": pl.String, "a": pl.String, "b": pl.String, "signal": pl.String, "value": pl.Float64,
            "baseline": pl.Float64, "sample": pl.Int64, "z": pl.Float64, "why_not": pl.String, "words": pl.String,
            "hands": pl.List(pl.Int64), "tau2": pl.Float64}
