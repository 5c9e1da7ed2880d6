"""A Parquet dataset read in place of the database: the same tables, as DuckDB views, for ``--parquet DIR``.

``hhtool stats``, ``report`` and ``query`` run their SQL on a DuckDB
connection; given a folder of Parquet tables (what ``hhtool spark-import``
commits, or what ``hhtool export --parquet`` writes) that connection is an
in-memory DuckDB whose views carry the tables' names and columns, each
column cast to its type in :mod:`hhtool.store.schema` (a column the files
lack, written by an earlier hhtool, reads as NULL) -- so one SQL serves
both, and the figures are the same on the same hands.

Of a Spark import's folder only committed files are read (the commit
records, :mod:`hhtool.store.dataset`), never a run still being written.
The connection is locked down as the database's read-only one is
(:func:`hhtool.store.db.lock_down`): it reads the dataset's folder and
nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hhtool.store.dataset import DatasetError, committed_files, is_dataset
from hhtool.store.db import StandIn, StoreError, lock_down, open_duckdb
from hhtool.store.schema import TABLES, TableSpec

if TYPE_CHECKING:
    import duckdb


class ParquetDataset(StandIn):
    """A folder of Parquet tables, passed wherever a database path goes (:func:`hhtool.store.db.connect` opens it as views)."""

    def connect(self) -> duckdb.DuckDBPyConnection:
        return connect_dataset(self)


def dataset_files(root: Path) -> dict[str, list[str]]:
    """Per table, its Parquet files under ``root``: a Spark import's committed ones, or an export's.

    Raises :class:`StoreError` for a folder that is neither.
    """
    if not root.is_dir():
        raise StoreError(f"no Parquet dataset at {root} (run `hhtool spark-import ... --out {root}` or `hhtool export --parquet {root}` first)")
    if is_dataset(root):
        try:
            return committed_files(root)
        except DatasetError as e:
            raise StoreError(str(e)) from None
    if not (root / "hands").is_dir() and not (root / "hands.parquet").exists():
        raise StoreError(f"{root} is not an hhtool Parquet dataset (no commit records, no hands table)")
    out: dict[str, list[str]] = {}
    for t in TABLES:
        if t.partitioned:
            out[t.name] = sorted(str(p) for p in (root / t.name).glob("**/*.parquet") if not p.name.startswith((".", "_")))
        elif (root / f"{t.name}.parquet").is_file():
            out[t.name] = [str(root / f"{t.name}.parquet")]
    return out


def _sql_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _view(con: duckdb.DuckDBPyConnection, spec: TableSpec, files: list[str]) -> str:
    """``CREATE VIEW`` of a table over its files: its columns in its order and types, whatever else the files hold."""
    if spec.name == "meta":
        from hhtool.store.schema import SCHEMA_VERSION

        return f"CREATE VIEW meta AS SELECT * FROM (VALUES ('schema_version', '{SCHEMA_VERSION}')) v(key, value)"
    if not files:
        cols = ", ".join(f"CAST(NULL AS {c.sql}) AS {c.name}" for c in spec.columns)
        return f"CREATE VIEW {spec.name} AS SELECT {cols} WHERE false"
    source = f"read_parquet([{', '.join(_sql_text(f) for f in files)}], union_by_name = true, hive_partitioning = false)"
    present = {str(r[0]) for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    cols = ", ".join(
        f"CAST({c.name if c.name in present else 'NULL'} AS {c.sql}) AS {c.name}" for c in spec.columns
    )
    return f"CREATE VIEW {spec.name} AS SELECT {cols} FROM {source}"


def connect_dataset(root: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a view per table over the dataset ``root``, locked down to reading that folder."""
    import duckdb

    root = Path(root).resolve()
    files = dataset_files(root)
    con = open_duckdb(":memory:")
    try:
        for spec in TABLES:
            con.execute(_view(con, spec, files.get(spec.name, [])))
        lock_down(con, root)
    except duckdb.Error as e:
        con.close()
        raise StoreError(f"cannot read the Parquet dataset {root} (DuckDB says: {str(e).splitlines()[0]})") from None
    except BaseException:
        con.close()
        raise
    return con
