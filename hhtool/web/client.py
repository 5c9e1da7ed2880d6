"""The CLI's side of a database ``hhtool serve`` holds: ``stats``, ``query``, ``report``, ``export`` (reads) and ``note``,
``tag``, ``alias`` (writes) asked of the server.

When a command finds the database held by a server
(:class:`~hhtool.store.db.DatabaseInUseError`) whose ``FILE.serve`` it can
read, :func:`server_of` gives the :class:`Server`, whose methods return
what the library functions return without the server: the same
statistics' result (rendered by the CLI as always), the same query output,
the same report and Parquet files, written here.  The work is the
server's (:mod:`hhtool.web.cli_api`); an error it answers is raised here
as the same :class:`~hhtool.store.db.StoreError` with the same words, so
the command exits as it would without the server.  Only the standard
library's ``http.client`` speaks to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hhtool.store.db import DatabaseInUseError, StoreError

if TYPE_CHECKING:
    import http.client

    from hhtool.history.currency import Rates
    from hhtool.stats import Filters, StatsResult
    from hhtool.store.query import Format

CONNECT_SECONDS = 10.0
"""Seconds to reach the server: a server that takes longer is stuck, and the command says so."""


def server_of(db: Path, held: DatabaseInUseError) -> Server:
    """The server holding ``db``, from its ``FILE.serve``; ``held`` raised again when none can be asked.

    No file, a file of a process that is gone, one this user may not read,
    or one of an earlier hhtool (no token): the command is refused as
    before, with the words ``held`` has.
    """
    from hhtool.store.marker import read_marker

    doc = read_marker(db)
    if doc is None or not isinstance(doc.get("token"), str):
        raise held
    return Server(db, str(doc["url"]), int(doc["pid"]), str(doc["token"]))  # type: ignore[call-overload]  # read_marker checked pid


def _error_kinds() -> dict[str, type[StoreError]]:
    """The errors the server names in its refusals, raised here by the same class."""
    from hhtool.stats.aliases import AliasError
    from hhtool.stats.filters import UnknownPlayerError
    from hhtool.stats.notes import NoteError
    from hhtool.stats.report_data import EmptyReportError
    from hhtool.store import db
    from hhtool.store.limits import TimeLimitError
    from hhtool.store.query import QueryError, ReadOnlyQueryError

    kinds: list[type[StoreError]] = [
        UnknownPlayerError, EmptyReportError, NoteError, AliasError, TimeLimitError, QueryError, ReadOnlyQueryError, db.DatabaseInUseError,
        db.NotHhtoolDatabaseError, db.DatabaseDamagedError, db.DatabaseWriteError, db.SchemaVersionError,
    ]
    return {k.__name__: k for k in kinds}


@dataclass(frozen=True)
class Server:
    """``hhtool serve`` of the database ``db``, at ``url``, in the process ``pid``, asked with ``token``."""

    db: Path
    url: str
    pid: int
    token: str

    def stats(self, filters: Filters, *, play_time: bool = False, gap_minutes: int = 30) -> StatsResult:
        """:func:`hhtool.stats.compute`'s result for ``filters`` (and its options), computed by the server."""
        from hhtool.web.cli_api import filters_doc, result_of

        with self._post("stats", {"filters": filters_doc(filters), "play_time": play_time, "gap_minutes": gap_minutes}) as answer:
            doc = json.loads(answer.read())
        return result_of(doc["result"], self.db)

    def query(self, sql: str, fmt: Format, *, raw: bool = False, timeout: float | None = None) -> str:
        """:func:`hhtool.store.query.render` of :func:`~hhtool.store.query.run_query`'s frame, run by the server."""
        with self._post("query", {"sql": sql, "format": fmt, "raw": raw, "timeout": timeout}) as answer:
            return answer.read().decode("utf-8")

    def report(self, out: str | Path, filters: Filters, *, gap_minutes: int = 30, rates: Rates | None = None) -> Path:
        """:func:`hhtool.stats.report.write_report`: the server's HTML written to ``out`` (nothing when it refuses)."""
        from hhtool.web.cli_api import filters_doc, rates_doc

        with self._post("report", {"filters": filters_doc(filters), "gap_minutes": gap_minutes, "rates": rates_doc(rates)}) as answer:
            text = answer.read().decode("utf-8")
        p = Path(out)
        p.write_text(text, encoding="utf-8")
        return p

    def export(self, out: str | Path) -> dict[str, int]:
        """:func:`hhtool.store.query.export_parquet`: the server's rows of each table written as Parquet under ``out`` here.

        Each table's Arrow stream is written as it arrives, by a DuckDB of
        this process (in memory, locked down to ``out`` as the export's own
        connection is) with the statements of the export without the server.
        """
        import pyarrow as pa

        from hhtool.store.db import lock_down, open_duckdb
        from hhtool.store.query import write_exported

        out = Path(out)
        counts: dict[str, int] = {}
        with self._post("export", {}) as answer:
            stream = _Exact(answer)
            out.mkdir(parents=True, exist_ok=True)
            con = open_duckdb()
            try:
                lock_down(con, out)
                while True:
                    head = json.loads(stream.readline() or b'{"cut": true}')
                    if head.get("end"):
                        break
                    if "table" not in head:
                        raise self._cut()
                    try:
                        reader = pa.ipc.open_stream(stream)
                    except (pa.ArrowInvalid, OSError):
                        raise self._cut() from None
                    name = str(head["table"])
                    con.register("exported", reader)
                    try:
                        write_exported(con, name, "SELECT * FROM exported", bool(head["partitioned"]), int(head["rows"]), out)
                        if not head["rows"]:
                            reader.read_all()  # its end, before the next table's line
                    finally:
                        con.unregister("exported")
                    counts[name] = int(head["rows"])
            finally:
                con.close()
        return counts

    def write(self, command: str, args: dict[str, Any]) -> str:
        """The text :func:`hhtool.stats.notes_commands.run` gives for ``command`` (``note``, ``tag``, ``alias-add``, ...),
        run by the server on its connection: the note, tag or alias written there, as on the file."""
        with self._post("write", {"command": command, "args": args}) as answer:
            return answer.read().decode("utf-8")

    def _cut(self) -> StoreError:
        return StoreError(f"`hhtool serve` (process {self.pid}) at {self.url} stopped sending the export of {self.db} before its end; run the command again")

    def _post(self, command: str, doc: dict[str, Any]) -> _Answer:
        """The server's answer to ``POST /api/cli/COMMAND``; its refusal raised as the error it names."""
        import http.client

        from hhtool.web.cli_api import PREFIX, TOKEN_HEADER

        parts = urlsplit(self.url)
        con = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=CONNECT_SECONDS)
        try:
            con.connect()
            assert con.sock is not None
            con.sock.settimeout(None)  # the command runs as long as it does without the server (query's --timeout is the server's)
            con.request("POST", PREFIX + command, body=json.dumps(doc).encode("utf-8"),
                        headers={TOKEN_HEADER: self.token, "Content-Type": "application/json"})
            answer = con.getresponse()
        except (OSError, http.client.HTTPException) as e:
            con.close()
            why = getattr(e, "strerror", None) or str(e) or type(e).__name__
            raise StoreError(
                f"the database {self.db} is held by `hhtool serve` (process {self.pid}) at {self.url}, which does not answer ({why}); "
                "wait for it, or stop that process to run this command on the file"
            ) from None
        if answer.status != 200:
            body = answer.read()
            con.close()
            try:
                refusal = json.loads(body)
                message, kind = str(refusal["error"]), str(refusal.get("kind", ""))
            except (ValueError, KeyError, TypeError):
                message, kind = body.decode("utf-8", "replace")[:300], ""
            if answer.status == 422:
                raise _error_kinds().get(kind, StoreError)(message)
            doing = "write" if command == "write" else "read"
            raise StoreError(f"`hhtool serve` (process {self.pid}) at {self.url} refused to {doing} {self.db} ({answer.status}): {message}")
        return _Answer(con, answer)


class _Answer:
    """An answer of the server to read, and its connection closed after."""

    def __init__(self, con: http.client.HTTPConnection, answer: http.client.HTTPResponse) -> None:
        self.con = con
        self.answer = answer

    def __enter__(self) -> http.client.HTTPResponse:
        return self.answer

    def __exit__(self, *exc: object) -> None:
        self.con.close()


class _Exact:
    """The answer as a file whose ``read(n)`` gives ``n`` bytes unless it ends: Arrow reads each message's bytes so."""

    def __init__(self, answer: http.client.HTTPResponse) -> None:
        self.answer = answer
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            return self.answer.read()
        parts = []
        while n > 0:
            got = self.answer.read(n)
            if not got:
                break
            parts.append(got)
            n -= len(got)
        return b"".join(parts)

    def readline(self) -> bytes:
        return self.answer.readline()
