"""Opening the hand database: where it is, one writer at a time, the schema in place, nothing else read or written.

DuckDB lets one process write a database file (or several read it); a
second process that tries gets :class:`DatabaseInUseError` with words a
person can act on, never DuckDB's lock exception.  A file that is not
hhtool's (another program's DuckDB file, a text file), a damaged one, and
a disk that refuses the writes get their own :class:`StoreError` (the CLI
prints it and exits 2), never DuckDB's exception.

Every connection is opened by :func:`open_duckdb`, with DuckDB's
extensions off from its start, and a file that is not DuckDB's (a SQLite
database, a Parquet file, text) is refused by its first bytes before DuckDB
sees it (:func:`not_duckdb`).  A read-only connection is also locked down
(:func:`lock_down`): it reads the database's tables and nothing else -- no
other file, no extension, no other database, no setting changed
(``docs/query.md``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PosixPath
from typing import TYPE_CHECKING

from hhtool.store.marker import read_marker
from hhtool.store.schema import ADDED_COLUMNS, ADDED_TABLES, SCHEMA_VERSION, TABLES, ddl
from hhtool.store.totals import ensure_derived

if TYPE_CHECKING:
    import duckdb

ENV_DB = "HHTOOL_DB"


class StoreError(Exception):
    """A database that cannot be used (the CLI prints it and exits 2)."""


class DatabaseInUseError(StoreError):
    """Another process holds the database file."""


class NotHhtoolDatabaseError(StoreError):
    """A file that holds no hhtool database: another program's DuckDB file, a foreign table, not DuckDB at all."""


class DatabaseDamagedError(StoreError):
    """A database file DuckDB cannot read back: truncated, overwritten, its checksums wrong."""


class DatabaseWriteError(StoreError):
    """The database could not be written: a full disk, a file size limit, a read-only folder or file."""


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


DuckDBSetting = str | bool | int | float | list[str]
"""A value of DuckDB's ``config``, as :func:`duckdb.connect` takes it."""

EXTENSIONS_OFF: dict[str, DuckDBSetting] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
}
"""DuckDB's settings for every connection hhtool opens: no extension fetched or loaded on its own, no secret kept in home.

By default DuckDB fetches a "known" extension from the network into
``~/.duckdb/extensions/`` (made first) and loads it as soon as something
needs it -- opening a SQLite file, for one -- and ``CREATE PERSISTENT
SECRET`` writes ``~/.duckdb/stored_secrets/``.  hhtool needs none of it
(its SQL uses DuckDB's built-in parts only: ``core_functions``, ``icu``,
``json``, ``parquet`` are in the Python package), so all of it is off.
"""


def open_duckdb(
    database: str | Path = ":memory:", *, read_only: bool = False, config: Mapping[str, DuckDBSetting] | None = None
) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with :data:`EXTENSIONS_OFF` in its ``config``: every connection of hhtool is opened here.

    In the ``config``, not by ``SET`` statements after: DuckDB acts when
    it opens the file (an attached SQLite file loads its extension then),
    before any statement of ours.  ``config`` adds settings (a memory
    limit) and cannot turn these back on.  DuckDB shares one instance
    between a process's connections to a file and refuses another
    connection with other settings: these are the same for all.
    """
    import duckdb

    return duckdb.connect(str(database), read_only=read_only, config={**(config or {}), **EXTENSIONS_OFF})


_SQLITE = b"SQLite format 3\x00"
_PARQUET = b"PAR1"
_DUCKDB = b"DUCK"  # at byte 8, after the header's checksum


def not_duckdb(path: Path) -> str | None:
    """Why the file at ``path`` is not a DuckDB database, in words (``"it is a SQLite database, not a DuckDB file"``); else None.

    Told by its first bytes, as DuckDB itself tells them apart, so that
    DuckDB never opens it: DuckDB would open a SQLite file through its
    ``sqlite_scanner`` extension (loaded from home when installed, even
    with autoloading off), and a Parquet file as an empty database held in
    memory, into which an import would be lost.  None for a DuckDB file,
    for no file, and for what is not a regular file or cannot be read here
    (a folder, a FIFO, which an open would wait on): DuckDB says why.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return None
    if not head:
        return "it is an empty file, not a DuckDB file"
    if head.startswith(_SQLITE):
        return "it is a SQLite database, not a DuckDB file"
    if head.startswith(_PARQUET):
        return "it is a Parquet file, not a DuckDB file"
    if head[8:12] == _DUCKDB:
        return None
    return "it is not a DuckDB file, or its first blocks are damaged"


class StandIn(PosixPath):
    """A path given where a database file goes that is no DuckDB file: it opens its own connection (:meth:`connect`).

    ``--parquet DIR`` is one (:class:`hhtool.store.parquet.ParquetDataset`,
    the same tables as views over the folder's files).  :func:`connect`
    knows it by this class, defined here, so that the store's opening of a
    database does not import the Parquet reader, which opens its DuckDB
    through this module.
    """

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection with the database's tables."""
        raise NotImplementedError


_PID = re.compile(r"PID (\d+)")
_LOCK = re.compile(r"\block\b")  # "Could not set lock on file", not "block"


def connect(
    path: str | Path, *, read_only: bool = False, memory_limit: str | None = None, write_to: str | Path | None = None,
    derived: bool = False, _added: bool = False,
) -> duckdb.DuckDBPyConnection:
    """Open the database; create it (and its folder) with the schema when writing.

    A read-only connection reads the database's tables and nothing else
    (:func:`lock_down`); ``write_to``: a folder it may write files into
    (``export --parquet``'s), and read them back.  A :class:`StandIn`
    (``--parquet DIR``) is opened by its own ``connect``.
    A file of this schema version lacking a column of
    :data:`~hhtool.store.schema.ADDED_COLUMNS` (or a table of
    :data:`~hhtool.store.schema.ADDED_TABLES`) gains it even when opened to
    be read: it is opened once for writing first (``_added``: the reopening
    after that, which does not try again).  Opened for writing with
    ``derived`` (``hhtool serve``), a database whose players' totals and
    hands are missing or out of step with its hands gets them caught up or
    built from the seats (:func:`hhtool.store.totals.ensure_derived`).

    Raises :class:`DatabaseInUseError` when another process holds it,
    :class:`NotHhtoolDatabaseError` for a file that is not hhtool's,
    :class:`SchemaVersionError` for another hhtool's,
    :class:`DatabaseDamagedError` for a damaged one,
    :class:`DatabaseWriteError` when it cannot be written, and
    :class:`StoreError` when it cannot be opened at all.
    """
    import duckdb

    if isinstance(path, StandIn):  # --parquet DIR: the same tables as views over its files, read-only
        return path.connect()
    path = Path(path)
    if read_only and not path.exists():
        raise StoreError(f"no database at {path} (run `hhtool import` first, or pass --db)")
    why = not_duckdb(path)
    if why is not None:  # before DuckDB opens it: its extensions for other kinds of file never start
        raise NotHhtoolDatabaseError(f"the database {path} is not an hhtool database ({why})")
    if not read_only:
        _check_writable(path)
    config: dict[str, DuckDBSetting] = {}
    if memory_limit:
        config["memory_limit"] = memory_limit
    try:
        con = open_duckdb(path, read_only=read_only, config=config)
    except duckdb.IOException as e:
        text = str(e)
        if _LOCK.search(text.lower()):
            m = _PID.search(text)
            who = f" (process {m.group(1)})" if m else ""
            server = _server_of(path)
            if server is not None:
                raise DatabaseInUseError(server) from None
            raise DatabaseInUseError(
                f"the database {path} is in use by another process{who}; wait for it to finish "
                "(an import holds it until the end) or use another --db"
            ) from None
        raise (store_error(path, e, writing=not read_only) or StoreError(f"cannot open the database {path}: {text}")) from None
    except duckdb.Error as e:
        raise (store_error(path, e, writing=not read_only) or StoreError(f"cannot open the database {path}: {e}")) from None
    try:
        with database_errors(path, writing=not read_only):
            if read_only:
                lock_down(con, None if write_to is None else Path(write_to))
            else:
                con.execute("SET enable_progress_bar = false")  # DuckDB's own bar on a long statement: never on our terminal
            if _check_schema(con, path, read_only):
                _create_schema(con)  # a new file, or one lacking a table of ADDED_TABLES: made, the others kept
            if not read_only:
                for statement in ADDED_COLUMNS:  # columns added within this schema version: an older file gains them
                    con.execute(statement)
            if derived and not read_only:  # the players' totals and hands, derived from the seats: caught up or built
                ensure_derived(con)
            missing = _missing_added(con) if read_only and not _added else []
    except BaseException:
        con.close()
        raise
    if missing:  # an older file of this version, opened to be read: it gains the columns once (metadata only), then is read
        con.close()
        try:
            connect(path, memory_limit=memory_limit).close()
        except StoreError as e:
            raise StoreError(
                f"the database {path} lacks the column(s) {', '.join(missing)}, added by this hhtool, and cannot be "
                f"opened for writing to add them ({e}); open it once with write access (e.g. `hhtool import` of any folder)"
            ) from None
        return connect(path, read_only=True, memory_limit=memory_limit, write_to=write_to, _added=True)
    return con


def _missing_added(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The columns of :data:`~hhtool.store.schema.ADDED_COLUMNS` (``table.column``) and the tables of
    :data:`~hhtool.store.schema.ADDED_TABLES` this file lacks."""
    have = {(str(t), str(c)) for t, c in con.execute("SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database()").fetchall()}
    tables = {t for t, _ in have}
    return [f"{m.group(1)}.{m.group(2)}" for m in _ADDED if m is not None and (m.group(1), m.group(2)) not in have] + [
        t for t in ADDED_TABLES if t not in tables
    ]


def _server_of(path: Path) -> str | None:
    """The words for a database held by a running ``hhtool serve``, from the ``FILE.serve`` it writes beside it; else None."""
    server = read_marker(path)
    if server is None:
        return None
    return (
        f"the database {path} is held by `hhtool serve` (process {server['pid']}) at {server['url']}: "
        f"open that address, or use its API ({server['url']}api/hands, docs/api.md), or stop the server (Ctrl-C) to run this command"
    )


def _check_writable(path: Path) -> None:
    """The folder made, and it and the file writable: else a clear :class:`DatabaseWriteError` before DuckDB starts.

    DuckDB writes its log (``FILE.wal``) beside the database, so a
    read-only folder fails an import at its first commit, not when the
    file is opened: it is told here, before any work.
    """
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DatabaseWriteError(f"cannot write the database {path}: cannot make the folder {folder}: {_reason(e.errno, e.strerror)}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseWriteError(
            f"cannot write the database {path}: the folder {folder} is not writable "
            "(DuckDB writes its log, FILE.wal, beside the database); give a --db in a folder you can write"
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseWriteError(f"cannot write the database {path}: the file is read-only to you; give another --db, or make it writable")


def lock_down(con: duckdb.DuckDBPyConnection, write_to: Path | None) -> None:
    """The read-only connection's settings: the database's own tables only, then the settings locked.

    ``enable_external_access = false`` refuses every file but the database
    itself (its ``.wal`` and DuckDB's spill folder ``FILE.tmp/``): no
    ``read_csv``, ``read_text``, ``glob``, ``COPY``, ``EXPORT``, ``ATTACH``
    of a file, ``INSTALL`` or ``LOAD`` of an extension from a file or the
    network; extensions are not installed or loaded on their own either
    (off from the start, :data:`EXTENSIONS_OFF`, and set again here for a
    connection opened otherwise).  ``lock_configuration`` then refuses
    every ``SET`` that would give any of it back.  ``write_to`` is allowed (export's folder), set before the
    lock.  The settings belong to the database instance, which DuckDB
    shares between the connections of a process to one file: a second
    connection finds it locked already (with the first one's folder).
    """
    row = con.execute("SELECT current_setting('lock_configuration')").fetchone()
    if row is not None and row[0]:
        return  # and its progress bar stays off: DuckDB's default in Python, which nothing could change since
    con.execute("SET enable_progress_bar = false")
    if write_to is not None:
        con.execute("SET allowed_directories = ?", [[str(write_to.resolve()) + os.sep]])
    for setting in (
        "autoinstall_known_extensions = false",
        "autoload_known_extensions = false",
        "allow_community_extensions = false",
        "enable_external_access = false",
        "lock_configuration = true",  # last: nothing above can be set again
    ):
        con.execute(f"SET {setting}")


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Every table and the schema version in one transaction, so that a file has all of hhtool's schema or none.

    With the columns' compression first; a DuckDB (or a file's storage
    version) without that compression gets its own choice.
    """
    import duckdb

    for compression in (True, False):
        con.execute("BEGIN TRANSACTION")
        try:
            for statement in ddl(compression=compression):
                con.execute(statement)
            con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
            con.execute("COMMIT")
            return
        except duckdb.Error as e:
            con.execute("ROLLBACK")
            if not compression or "compress" not in str(e).lower():
                raise


@contextmanager
def batch_transaction(con: duckdb.DuckDBPyConnection, registered: Iterable[str] = ()) -> Iterator[None]:
    """One batch's transaction: committed whole, or rolled back on any exception (Ctrl-C included) and re-raised.

    ``registered``: the names of the frames the batch registered on the
    connection, unregistered afterwards whichever way it ended (a name
    never registered is passed over).  The import's writer and the
    re-audit write their batches through it.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except Exception:  # pragma: no cover - the connection is gone
            pass
        raise
    finally:
        for name in registered:
            try:
                con.unregister(name)
            except Exception:
                pass


class SchemaVersionError(StoreError):
    """A database written by another version of hhtool, with other tables."""


_ADDED = [re.match(r"ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+)", statement) for statement in ADDED_COLUMNS]


def _before_added(table: str, names: tuple[str, ...] | list[str]) -> list[str]:
    """A table's columns as a file of this schema version written before :data:`~hhtool.store.schema.ADDED_COLUMNS` has them."""
    added = {m.group(2) for m in _ADDED if m is not None and m.group(1) == table}
    return [n for n in names if n not in added]


def _check_schema(con: duckdb.DuckDBPyConnection, path: Path, read_only: bool) -> bool:
    """Refuse a file that is not this hhtool's database; True when its schema is still to be made (a new file).

    hhtool's database has a ``meta`` table of ``(key, value)`` with this
    hhtool's ``schema_version``, and its tables with hhtool's columns.  A
    file with no table is new; one with only hhtool's tables, all empty and
    no version yet, is one whose making was stopped (an earlier hhtool made
    the tables one statement at a time): both are made whole when writing.
    Anything else is another program's file, refused before a row is read
    or written: an import never adds hhtool's tables beside someone else's.

    The statistics' flags (schema 2) are decided when a hand is imported,
    so a database of schema 1 lacks them: it is refused with what to do,
    not read into wrong figures.
    """
    columns: dict[str, list[str]] = {}
    for table, column in con.execute(
        "SELECT c.table_name, c.column_name FROM duckdb_columns() c "
        "JOIN duckdb_tables() t USING (database_name, schema_name, table_name) "  # tables, not views
        "WHERE c.database_name = current_database() AND c.schema_name = 'main' ORDER BY c.table_name, c.column_index"
    ).fetchall():
        columns.setdefault(table, []).append(column)
    views = [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal").fetchall()]
    ours = {t.name: t.names for t in TABLES}
    if not columns and not views:
        if read_only:
            raise NotHhtoolDatabaseError(f"the database {path} is empty (no hhtool tables yet): import hand histories into it first")
        return True
    version: str | None = None
    if columns.get("meta") == ours["meta"]:
        rows = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
        version = str(rows[0][0]) if rows else None
    if version is None:
        if (
            not read_only
            and not views
            and all(columns[t] == ours.get(t) for t in columns)
            and all(_empty(con, t) for t in columns)
        ):
            return True
        raise NotHhtoolDatabaseError(f"the database {path} is not an hhtool database (it has {_names(columns, views)} and no hhtool schema version)")
    if version != str(SCHEMA_VERSION):
        newer = version.isdigit() and int(version) > SCHEMA_VERSION
        raise SchemaVersionError(
            f"the database {path} has schema version {version}, and this hhtool reads version {SCHEMA_VERSION}: "
            + (
                "it was written by a newer hhtool; use that one"
                if newer
                else "it was written by an earlier hhtool; import the hand histories again into a new database "
                "(`hhtool import PATH... --db NEW.duckdb`), see docs/schema.md"
            )
        )
    for t in TABLES:
        got = columns.get(t.name)
        if got is not None and got != t.names and got != _before_added(t.name, t.names):
            raise NotHhtoolDatabaseError(
                f"the database {path} is not an hhtool database: its table {t.name} has the columns {_few(got)}, "
                f"not hhtool's ({_few(t.names)})"
            )
    missing = [t.name for t in TABLES if t.name not in columns]
    if missing and all(t in ADDED_TABLES for t in missing):
        return not read_only  # an older file of this version: made when writing; read, it is opened for writing once first
    if missing:
        if read_only:
            raise NotHhtoolDatabaseError(
                f"the database {path} is not a whole hhtool database: it lacks the table{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
            )
        return True
    return False


def _empty(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    row = con.execute(f'SELECT count(*) FROM (SELECT 1 FROM "{table}" LIMIT 1)').fetchone()  # an hhtool table's name: no quote in it
    return row is not None and row[0] == 0


def _few(names: list[str], most: int = 6) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _names(columns: dict[str, list[str]], views: list[str]) -> str:
    tables = sorted(columns)
    parts = []
    if tables:
        parts.append(f"table{'s' if len(tables) > 1 else ''} {_few(tables)}")
    if views:
        parts.append(f"view{'s' if len(views) > 1 else ''} {_few(sorted(views))}")
    return " and ".join(parts)


# ------------------------------------------------------------------ DuckDB's errors in words

_DAMAGED = ("corrupt database file", "could not read enough bytes", "failed to read database header")
_NOT_DUCKDB = "not a valid duckdb database file"
_NO_SPACE = (("no space left", errno.ENOSPC), ("file too large", errno.EFBIG), ("disk quota", errno.EDQUOT))
_NO_RIGHT = (("permission denied", errno.EACCES), ("read-only file system", errno.EROFS), ("operation not permitted", errno.EPERM))


def _reason(code: int | None, fallback: str | None = None) -> str:
    """An errno in the words the messages use."""
    return {
        errno.ENOSPC: "no space left on the device",
        errno.EFBIG: "the file has reached the largest size this process may write (File too large)",
        errno.EDQUOT: "the disk quota is used up",
        errno.EACCES: "permission denied",
        errno.EROFS: "the file system is read-only",
        errno.EPERM: "operation not permitted",
    }.get(code or 0, fallback or "an operating system error")


def store_error(path: str | Path, e: BaseException, *, writing: bool = False, everything: bool = False) -> StoreError | None:
    """DuckDB's error about the database ``path`` as a :class:`StoreError` in words, or None.

    None for an error that is not about the file (a wrong statement, a
    Ctrl-C) unless ``everything``: then any DuckDB error is one, so that a
    command never shows a traceback.  ``writing``: the error came while
    the database was being written (an import), which shapes the advice.
    """
    import duckdb

    if isinstance(e, StoreError):
        return e
    if not isinstance(e, duckdb.Error) or isinstance(e, duckdb.InterruptException):
        return None
    text = str(e)
    said = _first_line(text)
    if isinstance(e, duckdb.OutOfMemoryException):
        if writing:
            return DatabaseWriteError(
                f"cannot write the database {path}: DuckDB ran out of memory (DuckDB says: {said}); "
                "what was committed before is kept: run the same import again (with fewer --workers) to finish it"
            )
        return StoreError(f"DuckDB ran out of memory reading the database {path} (DuckDB says: {said})")
    # the kinds DuckDB raises for its files; a statement's own mistake (a binder, catalog, parser error) may
    # quote the user's words, "permission denied" among them, and is never taken for the file's trouble
    about_files = type(e) is duckdb.Error or isinstance(e, (duckdb.IOException, duckdb.TransactionException, duckdb.FatalException, duckdb.InternalException))
    if not about_files:
        return StoreError(f"reading the database {path} failed (DuckDB says: {said})") if everything else None
    low = text.lower()
    if _NOT_DUCKDB in low:
        return NotHhtoolDatabaseError(f"the database {path} is not an hhtool database (it is not a DuckDB file, or its first blocks are damaged; DuckDB says: {said})")
    for words, code in _NO_SPACE + _NO_RIGHT:
        if words in low:
            advice = (
                "; what was committed before is kept: free some space and run the same import again to finish it"
                if code in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
                else "; give a --db in a folder you can write"
            )
            if not writing:  # a query's spill file, export's Parquet: DuckDB's words name the file
                return DatabaseWriteError(f"{_reason(code)} (DuckDB says: {said})")
            return DatabaseWriteError(f"cannot write the database {path}: {_reason(code)} (DuckDB says: {said}){advice}")
    if any(words in low for words in _DAMAGED):
        return DatabaseDamagedError(
            f"the database {path} is damaged (DuckDB says: {said}): restore it from a copy or import again into a new one"
        )
    if isinstance(e, duckdb.FatalException) or "invalidated" in low:
        return DatabaseDamagedError(
            f"the database {path} could not be {'written' if writing else 'read'} (DuckDB stopped: {said}); "
            "run the command again, and if it fails the same way, restore the file from a copy or import again into a new one"
        )
    if everything:
        return StoreError(f"reading the database {path} failed (DuckDB says: {said})")
    return None


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= 300 else line[:300] + "…"


@contextmanager
def snapshot(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The statements of the block read one state of the database: a read-only transaction around them.

    A reader that asks two questions (which monies, then the hands) of a
    database an import commits to meanwhile would otherwise get answers
    from two states: a hand of a money committed between them has no place
    among the monies read first.  Inside a transaction of the caller's
    (which is already one state), the block runs in it and leaves it open:
    told apart by asking the transaction's id twice (the same inside one,
    a new one a statement outside), not by a ``BEGIN`` that fails, since a
    failed statement aborts the caller's transaction.  Nothing is written,
    so the end is a rollback, whatever happened.
    """
    ids = [con.execute("SELECT txid_current()").fetchall()[0][0] for _ in range(2)]
    if ids[0] == ids[1]:
        yield
        return
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    finally:
        con.execute("ROLLBACK")


@contextmanager
def database_errors(path: str | Path, *, writing: bool = False, everything: bool = False) -> Iterator[None]:
    """Raise DuckDB's errors about the database ``path`` as :class:`StoreError` in words (:func:`store_error`).

    DuckDB reads a database's blocks when a statement first needs them, so
    a damaged block is found by whichever statement reads it, in any
    command: this wraps every command's work on the database, not only
    the opening.
    """
    try:
        yield
    except Exception as e:
        err = store_error(path, e, writing=writing, everything=everything)
        if err is None or err is e:
            raise
        raise err from e
