"""Reading the hand database: read-only SQL through polars, and Parquet export for other engines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .db import StoreError, connect
from .schema import TABLES

if TYPE_CHECKING:
    import polars as pl

Format = Literal["table", "csv", "json"]


class QueryError(StoreError):
    """SQL that DuckDB refused (a usage error)."""


def run_query(db: str | Path, sql: str) -> pl.DataFrame:
    """Run ``sql`` on a read-only connection; the result as a polars frame (empty when none)."""
    import duckdb
    import polars as pl

    con = connect(db, read_only=True)
    try:
        try:
            rel = con.sql(sql)
        except duckdb.Error as e:
            raise QueryError(str(e)) from None
        if rel is None:
            return pl.DataFrame()
        try:
            return pl.DataFrame(rel)
        except duckdb.Error as e:
            raise QueryError(str(e)) from None
    finally:
        con.close()


def render(df: pl.DataFrame, fmt: Format, *, raw: bool = False) -> str:
    """The frame as an aligned table, CSV (nested values as JSON) or a JSON array of objects.

    Unless ``raw``, strings (hand-history names, chat, file names, even
    column names made from them by a PIVOT) are made safe for a terminal
    and, in CSV, for a spreadsheet (:mod:`hhtool.textsafe`): control
    characters shown escaped, string cells starting with ``= + - @``, tab
    or CR prefixed with ``'``; numbers stay numbers.  The table shows
    nested values as JSON, escaped the same way.  JSON is always safe to
    show: what it escapes as ``\\uNNNN`` means the same characters.
    """
    import polars as pl

    from ..textsafe import json_text

    if fmt == "json":
        return json_text(df.write_json()) + "\n"
    nested = [n for n, t in df.schema.items() if t.is_nested() or isinstance(t, pl.Object)]  # lists, arrays, structs, maps
    if nested and (fmt == "csv" or not raw):
        df = df.with_columns(pl.col(n).map_elements(_json, return_dtype=pl.Utf8) for n in nested)
    if not raw:
        df = _safe_strings(df, spreadsheet=fmt == "csv")
    if fmt == "csv":
        return df.write_csv()
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=200, tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True, tbl_width_chars=60_000, tbl_formatting="ASCII_MARKDOWN"):
        return str(df) + "\n"


def _safe_strings(df: pl.DataFrame, *, spreadsheet: bool) -> pl.DataFrame:
    """Every string column (and column name) through :func:`hhtool.textsafe.term`, vectorised; CSV's prefix if ``spreadsheet``."""
    import polars as pl

    from ..textsafe import ESCAPES, FORMULA_PATTERN, csv_text, term

    unsafe = list(ESCAPES)
    escaped = list(ESCAPES.values())
    exprs = []
    for n, t in df.schema.items():
        if not isinstance(t, (pl.String, pl.Categorical, pl.Enum)):
            continue
        col = pl.col(n).cast(pl.String).str.replace_many(unsafe, escaped)
        if spreadsheet:
            col = pl.when(col.str.contains(FORMULA_PATTERN)).then(pl.lit("'") + col).otherwise(col)
        exprs.append(col.alias(n))
    if exprs:
        df = df.with_columns(exprs)
    name = csv_text if spreadsheet else term  # a header cell is a cell too (a PIVOT makes names of names)
    shown: set[str] = set()
    columns = []
    for n in df.columns:
        c = name(n)
        while c in shown:  # "\x1b" and a real ESC would show alike: columns stay distinct
            c += "_"
        shown.add(c)
        columns.append(c)
    if columns != df.columns:
        df = df.clone()  # cheap, and the caller's frame keeps its names
        df.columns = columns
    return df


def _json(value: object) -> str:
    from ..textsafe import dumps

    if hasattr(value, "to_list"):
        value = value.to_list()
    return dumps(value, default=str)


DATE_SQL = "CAST(timezone('UTC', h.started_at) AS DATE)"
"""A hand's partition date: the UTC date it started."""


def export_parquet(db: str | Path, out: str | Path) -> dict[str, int]:
    """Every table as Parquet under ``out``: the hand tables partitioned by the hand's date.

    Layout: ``out/hands/date=2026-11-29/data_0.parquet`` (hive style) for
    ``hands``, ``seats``, ``actions``, ``cards``, ``pots``, ``findings``;
    ``out/files.parquet``, ``out/failed.parquet``, ``out/conflicts.parquet``
    for the others.  A table's folder is replaced.  Returns rows per table.
    """
    import shutil

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    con = connect(db, read_only=True)
    counts: dict[str, int] = {}
    try:
        for t in TABLES:
            if t.name == "meta":
                continue
            row = con.execute(f"SELECT count(*) FROM {t.name}").fetchone()
            counts[t.name] = int(row[0]) if row else 0
            if t.partitioned:
                target = out / t.name
                if target.exists():
                    shutil.rmtree(target)
                if t.name == "hands":
                    select = f"SELECT h.*, {DATE_SQL} AS date FROM hands h"
                else:
                    select = f"SELECT t.*, {DATE_SQL} AS date FROM {t.name} t JOIN hands h USING (hand_key)"
                if counts[t.name]:
                    con.execute(f"COPY ({select}) TO '{_sql_path(target)}' (FORMAT PARQUET, PARTITION_BY (date))")
                else:
                    target.mkdir()
            else:
                con.execute(f"COPY {t.name} TO '{_sql_path(out / (t.name + '.parquet'))}' (FORMAT PARQUET)")
    finally:
        con.close()
    return counts


def _sql_path(p: Path) -> str:
    return str(p).replace("'", "''")
