"""Reading the hand database: read-only SQL through polars, and Parquet export for other engines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from hhtool.store.db import StoreError, connect, store_error
from hhtool.store.schema import TABLES

if TYPE_CHECKING:
    import duckdb
    import polars as pl

Format = Literal["table", "csv", "json"]


class QueryError(StoreError):
    """SQL that DuckDB refused (a usage error)."""


class ReadOnlyQueryError(QueryError):
    """SQL that would write, or read something other than the database's tables."""


QUERY_TIMEOUT = 300.0
"""Seconds each statement of ``hhtool query`` may run by default (``--timeout``; 0: no limit): minutes for the
biggest reads of a database of millions of hands, and not for ever for a query that would never end."""


def run_query(db: str | Path, sql: str, *, timeout: float | None = QUERY_TIMEOUT) -> pl.DataFrame:
    """Run ``sql`` on a read-only, locked-down connection; the result of its last statement as a polars frame (empty when none).

    Two fences, each enough for what the other misses: every statement is
    checked against :func:`read_only_statements`' allow-list before any
    runs, and the connection itself refuses files, extensions, other
    databases and settings (:func:`~hhtool.store.db.connect`, read-only).
    Each statement, its rows fetched included, runs ``timeout`` seconds at
    most (None or 0: no limit), then ends with
    :class:`~hhtool.store.limits.TimeLimitError`.
    """
    import duckdb
    import polars as pl

    from hhtool.store.limits import time_limit

    statements = read_only_statements(sql)
    con = connect(db, read_only=True)
    over = f"the statement ran longer than the time limit, {timeout or 0:g} s, and was stopped: give a longer --timeout (0: no limit; docs/query.md)"
    try:
        try:
            frame = pl.DataFrame()
            for i, text in enumerate(statements):
                with time_limit(con, timeout, over):
                    if i < len(statements) - 1:  # run, as DuckDB runs every statement but the last, its rows dropped
                        cursor = con.execute(text)
                        while cursor.fetchmany(10_000):
                            pass
                    else:
                        rel = con.sql(text)
                        frame = pl.DataFrame() if rel is None else pl.DataFrame(rel)
            return frame
        except duckdb.Error as e:
            raise _query_error(db, e) from None
    finally:
        con.close()


READ_ONLY_HELP = (
    "it runs SELECT (WITH, VALUES, FROM, TABLE, PIVOT, UNPIVOT), DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, CALL "
    "and PRAGMA table_info (and the other PRAGMAs that only read), on the database's tables only (docs/query.md)"
)

_READING_PRAGMAS = frozenset(
    {
        "table_info", "show", "show_tables", "show_tables_expanded", "show_databases", "database_list",
        "database_size", "storage_info", "metadata_info", "version", "platform", "user_agent",
        "functions", "collations",
    }
)
"""PRAGMAs that read and return rows; the others change settings (``PRAGMA threads = 1`` is a SET to DuckDB)."""

_COMMENTS = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.S)
_EXPLAIN = re.compile(r"EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^()]*\)\s*)?", re.I)
_CALLED = re.compile(r'(?:(?:"(?:[^"]|"")*"|\w+)\s*\.\s*)*(?:"((?:[^"]|"")*)"|(\w+))')
"""The function a CALL names, after any schema or catalog (``main.checkpoint``, ``"checkpoint"``)."""

_WRITING_CALLS = {
    "checkpoint": "writes the database file (it moves DuckDB's log into it)",
    "force_checkpoint": "writes the database file (it moves DuckDB's log into it)",
    "truncate_duckdb_logs": "empties DuckDB's log",
    "enable_logging": "changes DuckDB's settings, which hhtool keeps locked",
    "disable_logging": "changes DuckDB's settings, which hhtool keeps locked",
    "enable_profiling": "changes DuckDB's settings, which hhtool keeps locked",
    "disable_profiling": "changes DuckDB's settings, which hhtool keeps locked",
}
"""Table functions that do something rather than read: a CALL of one is refused like the statement it stands for."""


def _called(text: str) -> str:
    """The lower-case name of the function ``CALL ...`` calls (empty when it cannot be read)."""
    rest = text[_COMMENTS.match(text).end():]  # type: ignore[union-attr]  # the pattern matches every text
    rest = rest[4:] if rest[:4].upper() == "CALL" else rest
    rest = rest[_COMMENTS.match(rest).end():]  # type: ignore[union-attr]
    m = _CALLED.match(rest)
    if m is None:
        return ""
    return (m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)).lower()


def _words(text: str, n: int = 2) -> list[str]:
    """The statement's first ``n`` words, upper case, after any comment."""
    return text[_COMMENTS.match(text).end():].split(None, n)[:n]  # type: ignore[union-attr]  # the pattern matches every text


def read_only_statements(sql: str) -> list[str]:
    """The statements of ``sql`` (DuckDB's own parser splits them), each one that only reads; else :class:`ReadOnlyQueryError`.

    An allow-list, not a deny-list: what DuckDB calls a SELECT (which
    covers WITH, VALUES, FROM, TABLE, DESCRIBE, SHOW, SUMMARIZE and
    UNPIVOT), EXPLAIN of such a statement (``EXPLAIN ANALYZE`` runs it),
    PIVOT, CALL of a table function, and the PRAGMAs that only read.
    Every statement is checked before the first one runs, so
    ``SELECT 1; COPY ...`` runs nothing.  A statement that calls one of
    the table functions that act (``SELECT * FROM checkpoint()``,
    ``enable_profiling()``: :data:`_WRITING_CALLS`) anywhere, or
    ``query()`` of such a statement, is refused as their CALL is: a
    locked-down connection would refuse some of them itself, but the
    server's (``hhtool serve``, which runs ``hhtool query`` for the CLI,
    :mod:`hhtool.web.cli_api`) cannot be locked, and its answers must be
    the same.
    """
    import duckdb

    try:
        parsed = [(s.type, s.query) for s in duckdb.extract_statements(sql)]
    except duckdb.Error as e:
        raise QueryError(str(e)) from None
    except ValueError:  # a statement type the Python binding has no name for (UPDATE EXTENSIONS)
        raise ReadOnlyQueryError(f"hhtool query is read-only: {_first(sql)} is not a statement it runs; {READ_ONLY_HELP}") from None
    for kind, text in parsed:
        why = _refusal(kind, text)
        if why is None and kind != duckdb.StatementType.CALL:
            why = _acting_call(text)
        if why is not None:
            raise ReadOnlyQueryError(f"hhtool query is read-only: {why}; {READ_ONLY_HELP}")
    return [text for _, text in parsed]


_ACTING = re.compile(r"\b(" + "|".join([*_WRITING_CALLS, "query"]) + r")\s*\(", re.I)
"""A call of an acting table function (or of ``query()``) in a statement's text, for what DuckDB cannot give as a tree."""


def _acting_call(text: str) -> str | None:
    """Why the statement is not run when it calls a function of :data:`_WRITING_CALLS` anywhere in it; else None.

    Read from DuckDB's own parse tree (``json_serialize_sql``, a SELECT's):
    every function it names, at any depth, and the SQL of a ``query('...')``
    checked in turn.  A statement DuckDB gives no tree of (PIVOT, EXPLAIN)
    is looked at as text: any such call in it is refused, even in a string.
    """
    import json

    from hhtool.store.db import open_duckdb

    con = open_duckdb()
    try:
        row = con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()
    finally:
        con.close()
    tree = json.loads(row[0]) if row is not None else {"error": True}
    if not isinstance(tree, dict) or tree.get("error"):
        m = _ACTING.search(text)
        if m is None:
            return None
        name = m.group(1).lower()
        return f"{_first(text)} calls {name}(), which " + (_WRITING_CALLS[name] if name in _WRITING_CALLS else "it cannot check in such a statement")
    stack: list[object] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        stack.extend(node.values())
        name = node.get("function_name")
        if not isinstance(name, str):
            continue
        name = name.lower()
        if name in _WRITING_CALLS:
            return f"{_first(text)} calls {name}(), which {_WRITING_CALLS[name]}"
        if name == "query":
            args = node.get("arguments") or node.get("children") or []
            first = args[0] if isinstance(args, list) and args else None
            expr = first.get("expression", first) if isinstance(first, dict) else None
            literal = expr.get("literal") if isinstance(expr, dict) else None
            sql = literal.get("text") if isinstance(literal, dict) else None
            if not isinstance(sql, str):
                return f"{_first(text)} calls query() of SQL not written in it, which it cannot check"
            try:
                read_only_statements(sql)
            except ReadOnlyQueryError as e:
                return f"{_first(text)} calls query() of a statement it does not run ({str(e).split(': ', 1)[1].split('; ', 1)[0]})"
    return None


def _refusal(kind: duckdb.StatementType, text: str) -> str | None:
    """Why the statement is not run, or None when it only reads."""
    import duckdb

    T = duckdb.StatementType
    words = _words(text)
    first = words[0].upper() if words else ""
    if kind == T.CALL and first.rstrip(";") in ("CHECKPOINT", "FORCE"):  # DuckDB parses CHECKPOINT as a CALL of checkpoint()
        return f"{_first(text).rstrip(';')} writes the database file (it moves DuckDB's log into it)"
    if kind == T.CALL:
        called = _called(text)
        if called in _WRITING_CALLS:
            return f"CALL {called}() {_WRITING_CALLS[called]}"
        return None
    if kind == T.SELECT:
        return None
    if kind == T.MULTI and first == "PIVOT":
        return None
    if kind == T.EXPLAIN:
        rest = text[_COMMENTS.match(text).end():]  # type: ignore[union-attr]
        m = _EXPLAIN.match(rest)
        if m is None:
            return f"{_first(text)} is not an EXPLAIN it can check"
        try:
            inner = [(s.type, s.query) for s in duckdb.extract_statements(rest[m.end():])]
        except (duckdb.Error, ValueError):
            return f"{_first(text)} explains a statement it does not run"
        for inner_kind, inner_text in inner:
            why = _refusal(inner_kind, inner_text)
            if why is not None:
                return f"EXPLAIN of a statement it does not run ({why})"
        return None
    if first == "COPY" and len(words) > 1 and words[1].upper() == "FROM" and kind != T.COPY:  # DuckDB makes it a PRAGMA
        return "COPY FROM DATABASE writes another database"
    if kind == T.PRAGMA and first == "PRAGMA":
        name = words[1].split("(", 1)[0].strip().lower() if len(words) > 1 else ""
        if name in _READING_PRAGMAS:
            return None
        return f"PRAGMA {name} is not one that only reads"
    if kind == T.COPY:
        return "COPY ... TO writes a file (and COPY ... FROM reads one)"
    if kind == T.COPY_DATABASE:
        return "COPY FROM DATABASE writes another database"
    if kind == T.EXPORT:
        return "EXPORT DATABASE writes a folder"
    if kind == T.ATTACH:
        return "ATTACH opens another database (and could write it)"
    if kind == T.DETACH:
        return "DETACH closes a database"
    if kind == T.LOAD:
        return f"{first} adds an extension to DuckDB ({'INSTALL downloads it from the network' if first in ('INSTALL', 'FORCE') else 'code from outside the database'})"
    if kind == T.SET or kind == T.VARIABLE_SET:
        if first == "USE":
            return "USE changes which database is read"
        return f"{first} changes DuckDB's settings, which hhtool keeps locked"
    if kind in (T.INSERT, T.UPDATE, T.DELETE, T.MERGE_INTO):
        return f"{first} changes the database's rows"
    if kind in (T.CREATE, T.DROP, T.ALTER, T.CREATE_FUNC):
        return f"{first} changes the database's tables"
    return f"{_first(text)} is not a statement it runs"


def _first(text: str) -> str:
    words = _words(text)
    return " ".join(words).upper() if words else "an empty statement"


def _query_error(db: str | Path, e: BaseException) -> StoreError:
    """DuckDB's error while running the user's SQL: the file's own trouble, the fence, or the SQL's mistake."""
    import duckdb

    err = store_error(db, e)
    if err is not None:
        return err
    text = str(e)
    if isinstance(e, duckdb.PermissionException):
        return ReadOnlyQueryError(
            f"hhtool query is read-only: it reads the database's tables, not files, other databases or extensions (DuckDB says: {text.splitlines()[0]})"
        )
    if "configuration has been locked" in text:
        return ReadOnlyQueryError(f"hhtool query is read-only: DuckDB's settings are locked (DuckDB says: {text.splitlines()[0]})")
    return QueryError(text)


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

    from hhtool.textsafe import json_text

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

    from hhtool.textsafe import ESCAPES, FORMULA_PATTERN, csv_text, term

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
    from hhtool.textsafe import dumps

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
    out = Path(out)
    con = connect(db, read_only=True, write_to=out)  # its Parquet files: the one folder this connection may write
    counts: dict[str, int] = {}
    try:
        out.mkdir(parents=True, exist_ok=True)  # once the database is known to be hhtool's: nothing made for another file
        exported = export_selects()
        for name, _, _ in exported:
            counts[name] = int(con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0])
        for name, select, partitioned in exported:
            write_exported(con, name, select, partitioned, counts[name], out)
    finally:
        con.close()
    return counts


def export_selects() -> list[tuple[str, str, bool]]:
    """``(table, the SELECT of its rows as exported, partitioned by date)`` for each table :func:`export_parquet` writes.

    ``hhtool serve`` sends these rows to the CLI that exports while it
    holds the database (:mod:`hhtool.web.cli_api`), which writes them with
    :func:`write_exported` as :func:`export_parquet` does.
    """
    out: list[tuple[str, str, bool]] = []
    for t in TABLES:
        if t.name == "meta":
            continue
        if not t.partitioned:
            select = f"SELECT * FROM {t.name}"
        elif t.name == "hands":
            select = f"SELECT h.*, {DATE_SQL} AS date FROM hands h"
        else:
            select = f"SELECT t.*, {DATE_SQL} AS date FROM {t.name} t JOIN hands h USING (hand_key)"
        out.append((t.name, select, t.partitioned))
    return out


def write_exported(con: duckdb.DuckDBPyConnection, name: str, select: str, partitioned: bool, rows: int, out: Path) -> None:
    """The rows of ``select`` (``rows`` of them) written as the table ``name`` under ``out``, as :func:`export_parquet` lays it out."""
    import shutil

    if partitioned:
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        if rows:
            con.execute(f"COPY ({select}) TO '{_sql_path(target)}' (FORMAT PARQUET, PARTITION_BY (date))")
        else:
            target.mkdir()
    else:
        con.execute(f"COPY ({select}) TO '{_sql_path(out / (name + '.parquet'))}' (FORMAT PARQUET)")


def _sql_path(p: Path) -> str:
    return str(p).replace("'", "''")
