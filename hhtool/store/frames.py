"""A worker's rows (:class:`~hhtool.store.rows.RowBuilder`) as polars frames, one per table.

The frames travel to the writer, which inserts them through Arrow.  Their
columns are the table's (:mod:`hhtool.store.schema`) with ``local`` (the
hand's position in its chunk) for ``hand_key`` and without
``imported_at``, which the writer adds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hhtool.store.flags import FLAG_BITS
from hhtool.store.rows import POT_LISTS, RowBuilder, Rows, worker_columns
from hhtool.store.schema import ACTIONS, CARDS, FAILED, FINDINGS, HANDS, POTS, SEAT_FLAG_COLUMNS, SEATS, TableSpec

if TYPE_CHECKING:
    import polars as pl

    from hhtool._native._columns import ArrowTable

_arrow_table: Callable[[list[tuple[str, str, list[Any], int]], int], ArrowTable] | None
try:  # the C helper of hhtool/_native/_columns.c (not built with HHTOOL_PURE=1)
    from hhtool._native import _columns

    _arrow_table = _columns.arrow_table
except ImportError:  # pragma: no cover - the pure build: polars reads the lists
    _arrow_table = None

_SQL_KIND = {"BIGINT": "l", "INTEGER": "i", "SMALLINT": "s", "TINYINT": "b", "BOOLEAN": "?", "VARCHAR": "u", "TIMESTAMPTZ": "t"}
"""``_columns.arrow_table``'s kind of each column type a worker fills (the pots' lists are gathered in polars)."""
_KINDS: dict[str, dict[str, str]] = {}
"""Each table's kinds by column, made once a process (a TableSpec hashes all its columns: too slow to key a cache a chunk)."""


class ArrowStream:
    """A polars frame as an Arrow C stream for DuckDB's ``register`` (no pyarrow needed)."""

    def __init__(self, df: pl.DataFrame) -> None:
        self.df = df

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.df.__arrow_c_stream__(requested_schema)


def polars_dtype(sql: str) -> Any:
    import polars as pl

    simple: dict[str, Any] = {
        "BIGINT": pl.Int64,
        "INTEGER": pl.Int32,
        "SMALLINT": pl.Int16,
        "TINYINT": pl.Int8,
        "BOOLEAN": pl.Boolean,
        "VARCHAR": pl.Utf8,
        "TIMESTAMPTZ": pl.Datetime("us", "UTC"),
    }
    if sql.endswith("[]"):
        return pl.List(simple[sql[:-2]])
    return simple[sql]


def frame_schema(spec: TableSpec) -> dict[str, Any]:
    """The polars schema of the columns a worker fills for ``spec`` (:func:`~hhtool.store.rows.worker_columns`)."""
    import polars as pl

    types = {c.name: polars_dtype(c.sql) for c in spec.columns}
    types["local"] = pl.Int32
    types[FLAG_BITS] = pl.Int64
    return {name: types[name] for name in worker_columns(spec)}


def _frame(rows: Rows, schema: dict[str, Any]) -> pl.DataFrame:
    """The columns as a frame of ``schema``; ``started_at`` is built as epoch microseconds and cast;
    ``flag_bits`` becomes the boolean statistics columns it packs (bit ``i``: the ``i``-th of ``SEAT_FLAG_COLUMNS``)."""
    import polars as pl

    build = dict(schema)
    if "started_at" in build:
        build["started_at"] = pl.Int64
    df = pl.DataFrame(dict(zip(rows.names, rows.cols)), schema=build)
    if "started_at" in schema:
        df = df.with_columns(pl.col("started_at").cast(schema["started_at"]))
    if FLAG_BITS in schema:
        bits = pl.col(FLAG_BITS)
        df = df.with_columns([((bits & (1 << i)) != 0).alias(c.name) for i, c in enumerate(SEAT_FLAG_COLUMNS)]).drop(FLAG_BITS)
    return df


def _kinds(spec: TableSpec) -> dict[str, str]:
    """The kind (``_columns.arrow_table``'s) of each column a worker fills for ``spec``."""
    kinds = _KINDS.get(spec.name)
    if kinds is None:
        kinds = {c.name: _SQL_KIND.get(c.sql, "") for c in spec.columns}
        kinds["local"] = "i"
        _KINDS[spec.name] = kinds
    return kinds


def _native_frame(rows: Rows, kinds: dict[str, str], newline: str = "") -> pl.DataFrame:
    """The columns as a frame through Arrow's C interface (``_columns.arrow_table``), no Python value read by polars.

    The same frame as :func:`_frame`'s (``tests/test_frames_native.py``): ``flag_bits`` unpacked into the boolean
    statistics columns at the end, ``started_at`` a UTC timestamp; ``newline`` names the column whose
    values get a final line end (the hands' ``raw_text``, see :func:`hands_frame`).  polars reading the
    lists cost 100-200 instructions a value; the C helper's pass 20-40 (docs/performance.md, "Import").
    """
    import polars as pl

    assert _arrow_table is not None
    specs: list[tuple[str, str, list[Any], int]] = []
    bits: list[Any] | None = None
    for name, col in zip(rows.names, rows.store):  # the helper reads the first ``rows.n``: the room past them stays
        if name == FLAG_BITS:
            bits = col
        else:
            specs.append((name, "n" if name == newline else kinds[name], col, 0))
    if bits is not None:
        specs += [(c.name, "x", bits, i) for i, c in enumerate(SEAT_FLAG_COLUMNS)]
    return pl.DataFrame(_arrow_table(specs, rows.n))


def _table(rows: Rows, spec: TableSpec) -> pl.DataFrame:
    if _arrow_table is not None:
        return _native_frame(rows, _kinds(spec))
    return _frame(rows, frame_schema(spec))


def frames(b: RowBuilder) -> dict[str, pl.DataFrame]:
    """Every table's frame of a chunk."""
    return {
        "hands": hands_frame(b),
        "seats": _table(b.seats, SEATS),
        "actions": _table(b.actions, ACTIONS),
        "cards": _table(b.cards, CARDS),
        "pots": pots_frame(b),
        "findings": _table(b.findings, FINDINGS),
        "failed": _table(b.failed, FAILED),
    }


def hands_frame(b: RowBuilder) -> pl.DataFrame:
    """The hands, each ``raw_text`` given its final line end here: the rows hold the text as the reader
    cut it, whose UTF-8 the C reader made, rather than a new string to encode again (:meth:`RowBuilder.add_hand`)."""
    import polars as pl

    if _arrow_table is not None:
        return _native_frame(b.hands, _kinds(HANDS), newline="raw_text")
    return _table(b.hands, HANDS).with_columns(pl.col("raw_text") + "\n")


def pots_frame(b: RowBuilder) -> pl.DataFrame:
    """The pots, their list columns gathered from flat rows.

    polars builds a list column from Python lists at about 8 µs a list;
    from flat rows grouped by pot it is several times cheaper.
    """
    import polars as pl

    schema = frame_schema(POTS)
    key = ["local", "pot"]
    if _arrow_table is not None:
        kinds = {**_kinds(POTS), "eligible": "u", "winners": "u", "shares": "l"}  # the lists' values, flat
        base = _native_frame(b.pots, kinds)
        eligible = _native_frame(b.pot_eligible, kinds)
        winners = _native_frame(b.pot_winners, kinds)
    else:
        base = _frame(b.pots, {n: t for n, t in schema.items() if n not in POT_LISTS})
        eligible = _frame(b.pot_eligible, {"local": schema["local"], "pot": schema["pot"], "eligible": pl.Utf8})
        winners = _frame(b.pot_winners, {"local": schema["local"], "pot": schema["pot"], "winners": pl.Utf8, "shares": pl.Int64})
    eligible = eligible.group_by(key, maintain_order=True).agg(pl.col("eligible"))
    winners = winners.group_by(key, maintain_order=True).agg(pl.col("winners"), pl.col("shares"))
    return (
        base.join(eligible, on=key, how="left", maintain_order="left")
        .join(winners, on=key, how="left", maintain_order="left")
        .select([pl.col(n).fill_null([]).cast(t) if n in POT_LISTS else pl.col(n) for n, t in schema.items()])
    )
