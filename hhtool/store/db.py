"""Opening the hand database: where it is, one writer at a time, the schema in place.

DuckDB lets one process write a database file (or several read it); a
second process that tries gets :class:`DatabaseInUseError` with words a
person can act on, never DuckDB's lock exception.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .schema import ADDED_COLUMNS, SCHEMA_VERSION, ddl

if TYPE_CHECKING:
    import duckdb

ENV_DB = "HHTOOL_DB"


class StoreError(Exception):
    """A database that cannot be used (the CLI prints it and exits 2)."""


class DatabaseInUseError(StoreError):
    """Another process holds the database file."""


def default_db_path() -> Path:
    """``$HHTOOL_DB``, else ``$XDG_DATA_HOME/hhtool/hhtool.duckdb``, else ``~/.local/share/hhtool/hhtool.duckdb``."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "hhtool" / "hhtool.duckdb"


def resolve_db_path(db: str | Path | None) -> Path:
    """``--db`` if given, else :func:`default_db_path`."""
    return Path(db) if db is not None else default_db_path()


_PID = re.compile(r"PID (\d+)")


def connect(path: str | Path, *, read_only: bool = False, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open the database; create it (and its folder) with the schema when writing.

    Raises :class:`DatabaseInUseError` when another process holds it and
    :class:`StoreError` when it cannot be opened at all.
    """
    import duckdb

    path = Path(path)
    if read_only and not path.exists():
        raise StoreError(f"no database at {path} (run `hhtool import` first, or pass --db)")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    config: dict[str, str | bool | int | float | list[str]] = {}
    if memory_limit:
        config["memory_limit"] = memory_limit
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as e:
        text = str(e)
        if "lock" in text.lower():
            m = _PID.search(text)
            who = f" (process {m.group(1)})" if m else ""
            raise DatabaseInUseError(
                f"the database {path} is in use by another process{who}; wait for it to finish "
                "(an import holds it until the end) or use another --db"
            ) from None
        raise StoreError(f"cannot open the database {path}: {text}") from None
    except duckdb.Error as e:
        raise StoreError(f"cannot open the database {path}: {e}") from None
    con.execute("SET enable_progress_bar = false")  # DuckDB's own bar on a long statement: never on our terminal
    _check_version(con, path)
    if not read_only:
        for statement, plain in zip(ddl(), ddl(compression=False)):
            try:
                con.execute(statement)
            except duckdb.Error as e:
                if statement == plain or "compress" not in str(e).lower():
                    raise
                con.execute(plain)  # a DuckDB (or a file's storage version) without that compression: its own choice
        for statement in ADDED_COLUMNS:
            con.execute(statement)
        con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
    return con


class SchemaVersionError(StoreError):
    """A database written by another version of hhtool, with other tables."""


def _check_version(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a database whose ``schema_version`` is not this hhtool's (a new, empty file has none yet).

    The statistics' flags (schema 2) are decided when a hand is imported,
    so a database of schema 1 lacks them: it is refused with what to do,
    not read into wrong figures.
    """
    import duckdb

    try:
        rows = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    except duckdb.CatalogException:
        return  # no meta table: a new file
    if not rows or rows[0][0] == str(SCHEMA_VERSION):
        return
    found = rows[0][0]
    con.close()
    newer = found.isdigit() and int(found) > SCHEMA_VERSION
    raise SchemaVersionError(
        f"the database {path} has schema version {found}, and this hhtool reads version {SCHEMA_VERSION}: "
        + (
            "it was written by a newer hhtool; use that one"
            if newer
            else "it was written by an earlier hhtool; import the hand histories again into a new database "
            "(`hhtool import PATH... --db NEW.duckdb`), see docs/schema.md"
        )
    )
