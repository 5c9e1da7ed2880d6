"""A worker's rows (:class:`~hhtool.store.rows.RowBuilder`) as polars frames, one per table.

The frames travel to the writer, which inserts them through Arrow.  Their
columns are the table's (:mod:`hhtool.store.schema`) with ``local`` (the
hand's position in its chunk) for ``hand_key`` and without
``imported_at``, which the writer adds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hhtool.store.flags import FLAG_BITS
from hhtool.store.rows import POT_LISTS, RowBuilder, Rows, worker_columns
from hhtool.store.schema import ACTIONS, CARDS, FAILED, FINDINGS, HANDS, POTS, SEAT_FLAG_COLUMNS, SEATS, TableSpec

if TYPE_CHECKING:
    import polars as pl


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


def _table(rows: Rows, spec: TableSpec) -> pl.DataFrame:
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

    return _table(b.hands, HANDS).with_columns(pl.col("raw_text") + "\n")


def pots_frame(b: RowBuilder) -> pl.DataFrame:
    """The pots, their list columns gathered from flat rows.

    polars builds a list column from Python lists at about 8 µs a list;
    from flat rows grouped by pot it is several times cheaper.
    """
    import polars as pl

    schema = frame_schema(POTS)
    key = ["local", "pot"]
    base = _frame(b.pots, {n: t for n, t in schema.items() if n not in POT_LISTS})
    eligible = _frame(b.pot_eligible, {"local": schema["local"], "pot": schema["pot"], "eligible": pl.Utf8})
    eligible = eligible.group_by(key, maintain_order=True).agg(pl.col("eligible"))
    winners = _frame(b.pot_winners, {"local": schema["local"], "pot": schema["pot"], "winners": pl.Utf8, "shares": pl.Int64})
    winners = winners.group_by(key, maintain_order=True).agg(pl.col("winners"), pl.col("shares"))
    return (
        base.join(eligible, on=key, how="left", maintain_order="left")
        .join(winners, on=key, how="left", maintain_order="left")
        .select([pl.col(n).fill_null([]).cast(t) if n in POT_LISTS else pl.col(n) for n, t in schema.items()])
    )
