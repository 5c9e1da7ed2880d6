"""The Spark import's tables: Arrow and Spark schemas made from :mod:`hhtool.store.schema`.

``hhtool/store/schema.py`` is the single list of columns: the DuckDB
tables, ``hhtool export --parquet`` and the Spark output all follow it, so
a column added there appears in every writer at once.  The hand tables
carry ``date`` (the hand's UTC start date) as a partition column, as the
export writes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hhtool.store.schema import CONFLICTS, FAILED, FILES, HAND_TABLES, HANDS, ROOMS, TableSpec

if TYPE_CHECKING:
    import pyarrow as pa

OUTPUT_TABLES: tuple[TableSpec, ...] = (FILES, HANDS, *HAND_TABLES, FAILED, CONFLICTS, ROOMS)
"""The tables a Spark import writes (``meta`` is the schema version, kept in the commit records; ``rooms``: a row for
each room and digest the run's new hands were replayed under, unless a run committed it before)."""

PARTITION = "date"


def arrow_type(sql: str) -> pa.DataType:
    """The Arrow type of a DuckDB column type (as Spark's Parquet writer and DuckDB's reader agree on it)."""
    import pyarrow as pa

    simple = {
        "BIGINT": pa.int64(),
        "INTEGER": pa.int32(),
        "SMALLINT": pa.int16(),
        "TINYINT": pa.int8(),
        "BOOLEAN": pa.bool_(),
        "VARCHAR": pa.string(),
        "TIMESTAMPTZ": pa.timestamp("us", tz="UTC"),
        "DATE": pa.date32(),
    }
    if sql.endswith("[]"):
        return pa.list_(simple[sql[:-2]])
    return simple[sql]


def spark_type(sql: str) -> Any:
    """The Spark SQL type of a DuckDB column type: TINYINT is ``ByteType``, TIMESTAMPTZ ``TimestampType`` (UTC instants)."""
    from pyspark.sql import types as T

    simple: dict[str, Any] = {
        "BIGINT": T.LongType(),
        "INTEGER": T.IntegerType(),
        "SMALLINT": T.ShortType(),
        "TINYINT": T.ByteType(),
        "BOOLEAN": T.BooleanType(),
        "VARCHAR": T.StringType(),
        "TIMESTAMPTZ": T.TimestampType(),
        "DATE": T.DateType(),
        "BINARY": T.BinaryType(),
    }
    if sql.endswith("[]"):
        return T.ArrayType(simple[sql[:-2]])
    return simple[sql]


def output_columns(spec: TableSpec) -> list[tuple[str, str]]:
    """``(name, DuckDB type)`` of a table as the Spark import writes it: its columns, and ``date`` for a hand table."""
    cols = [(c.name, c.sql) for c in spec.columns]
    if spec.partitioned:
        cols.append((PARTITION, "DATE"))
    return cols


def arrow_schema(columns: list[tuple[str, str]]) -> pa.Schema:
    import pyarrow as pa

    return pa.schema([(n, arrow_type(t)) for n, t in columns])


def spark_schema(columns: list[tuple[str, str]]) -> Any:
    from pyspark.sql import types as T

    return T.StructType([T.StructField(n, spark_type(t)) for n, t in columns])
