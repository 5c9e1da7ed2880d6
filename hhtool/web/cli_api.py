"""The local CLI's way in while ``hhtool serve`` holds the database: ``stats``, ``query``, ``report``, ``export`` (docs/serve.md).

DuckDB lets one process write a database file, and no other process
read it meanwhile.  The server knows the database is its own, so the CLI
that finds the file held asks the server (:mod:`hhtool.web.client`),
which runs the very same library functions on a cursor of its connection
(:class:`ServedDatabase`) and hands back what the command needs to print
or write the same bytes as without it:

- ``POST /api/cli/stats``: the statistics' result (:class:`~hhtool.stats.result.StatsResult`,
  its frames as Arrow IPC); the CLI renders it as it renders its own, for
  its terminal's width and with its own options;
- ``POST /api/cli/query``: the query's output, rendered (table, CSV or JSON);
- ``POST /api/cli/report``: the report's HTML, which the CLI writes;
- ``POST /api/cli/export``: every table's rows as exported, one Arrow IPC
  stream after another, each after a line of JSON naming it; the CLI
  writes the Parquet files.  The server never writes a file for a request.
- ``POST /api/cli/write``: ``hhtool note``, ``tag`` and ``alias`` (a body of
  :mod:`hhtool.stats.notes_commands`, its arguments checked against its
  types), run on a cursor of the server's connection -- the one route
  here that writes the database, as the pages' forms do -- and the text
  the command prints.

Only the local CLI may ask: each request carries the token of
``FILE.serve`` (:data:`TOKEN_HEADER`; the file is its owner's only), or
is refused (403), and comes from this machine (the loopback, or the
server's own address) naming it so in its ``Host`` (a loopback name, or
that address: a 403 otherwise, whatever ``--host`` the server has).  It
needs no ``Origin`` nor CSRF token, unlike the pages' writes
(:mod:`hhtool.web.writes`): the CLI is no browser, and a page a browser
runs can neither read ``FILE.serve`` nor set :data:`TOKEN_HEADER` on a
request to another origin without the server's leave (no CORS here).
Everything but ``write`` is read in a read-only transaction,
and while these routes are on, DuckDB reads no file but the database's
(``enable_external_access = false``, as ``hhtool query``'s connection):
a query is refused the same way, with the same message, as by ``hhtool
query`` on the file (:func:`hhtool.store.query.read_only_statements`,
then DuckDB).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hmac
import ipaddress
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from hhtool.store.db import StandIn, StoreError, database_errors

if TYPE_CHECKING:
    import duckdb
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from hhtool.history.currency import Rates
    from hhtool.stats import Filters, StatsResult

class WebDb(Protocol):
    """What these routes need of the server's database (:class:`hhtool.web.app.WebDb`): named here, not imported,
    since the app registers these routes (the app imports this module, never the other way)."""

    path: Path

    def cursor(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...

    def new_cursor(self) -> duckdb.DuckDBPyConnection: ...


TOKEN_HEADER = "X-Hhtool-Token"
"""The header that carries ``FILE.serve``'s token (:func:`hhtool.store.marker.new_token`)."""

PREFIX = "/api/cli/"

MAX_BODY = 16 << 20
"""Bytes of a request's JSON at most: SQL of a file, filters of 24 values each, far less."""

BATCH_ROWS = 100_000
"""Rows of a table an export sends in one Arrow batch: a few MB, so neither side holds a table in memory."""


class BadCall(ValueError):
    """A request the CLI would never send (a 400 with this message)."""


class ServedDatabase(StandIn):
    """The server's database, given to the library where a path goes: each connection is a new cursor of the server's.

    Each :meth:`connect` is a cursor in a read-only transaction: what the
    command reads is one state of the database (a batch the live import
    commits meanwhile is in all of it or none), and nothing it runs can
    write (DuckDB refuses it in such a transaction).  Closing the cursor,
    as the library does, ends the transaction.
    """

    cursors: Callable[[], duckdb.DuckDBPyConnection]

    def connect(self) -> duckdb.DuckDBPyConnection:
        cur = self.cursors()
        try:
            cur.execute("BEGIN TRANSACTION READ ONLY")
        except BaseException:
            cur.close()
            raise
        return cur


def served_database(db: WebDb) -> ServedDatabase:
    """:class:`ServedDatabase` of the app's database (its path, as the server names it, in the messages)."""
    served = ServedDatabase(db.path)
    served.cursors = db.new_cursor
    return served


# ------------------------------------------------------------------ what goes over the wire


def _encode(value: object) -> object:
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):  # a result's accounts: each row key's (site, name) pairs
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot send a {type(value).__name__}")


def _decode(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"dict"} and isinstance(value["dict"], list):
        pairs = [_decode(kv) for kv in value["dict"]]
        if not all(isinstance(kv, tuple) and len(kv) == 2 for kv in pairs):
            raise BadCall("a mapping of the result is not a list of pairs")
        return {kv[0]: kv[1] for kv in pairs if isinstance(kv, tuple)}
    if isinstance(value, dict):
        if set(value) != {"date"} or not isinstance(value["date"], str):
            raise BadCall("a value of the filters is not a date, a number, a text or a list of them")
        return dt.date.fromisoformat(value["date"])
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    return value


def filters_doc(f: Filters) -> dict[str, object]:
    """The filters as JSON, field by field (a field added to :class:`~hhtool.stats.Filters` goes with them)."""
    return {field.name: _encode(getattr(f, field.name)) for field in dataclasses.fields(f)}


def filters_of(doc: object) -> Filters:
    """:func:`filters_doc`'s filters again; :class:`BadCall` for what it never writes."""
    from hhtool.stats import Filters

    names = {field.name for field in dataclasses.fields(Filters)}
    if not isinstance(doc, dict) or not set(doc) <= names:
        raise BadCall(f"filters: an object of {', '.join(sorted(names))}")
    values: dict[str, Any] = {k: _decode(v) for k, v in doc.items()}
    try:
        return Filters(**values)
    except (TypeError, ValueError) as e:
        raise BadCall(f"filters: {e}") from None


def rates_doc(rates: Rates | None) -> dict[str, object] | None:
    """The rates as the options that give them: ``{"currency": "EUR", "rates": ["USD=0.92"]}``."""
    if rates is None:
        return None
    return {"currency": rates.target.code, "rates": [f"{code}={value}" for code, value in rates.rates]}


def rates_of(doc: object) -> Rates | None:
    from hhtool.history.currency import Rates, RatesError

    if doc is None:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("currency"), str) or not isinstance(doc.get("rates"), list):
        raise BadCall("rates: an object of currency and rates")
    try:
        return Rates.parse(doc["currency"], [str(r) for r in doc["rates"]])
    except RatesError as e:
        raise BadCall(f"rates: {e}") from None


def _frame_bytes(frame: Any) -> str:
    import base64
    import io

    buf = io.BytesIO()
    frame.write_ipc(buf)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def result_doc(result: StatsResult) -> dict[str, object]:
    """The statistics' result as JSON: each frame as Arrow IPC (base64), the filters, any other field as it is; not its ``db``."""
    import polars as pl

    from hhtool.stats import Filters

    out: dict[str, object] = {}
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        if field.name == "db":
            continue
        if isinstance(value, pl.DataFrame):
            out[field.name] = {"ipc": _frame_bytes(value)}
        elif isinstance(value, Filters):
            out[field.name] = {"filters": filters_doc(value)}
        else:
            out[field.name] = {"value": _encode(value)}
    return out


def result_of(doc: dict[str, Any], db: Path) -> StatsResult:
    """:func:`result_doc`'s result again, read from the database ``db`` (where it would ask for more: its hands)."""
    import base64
    import io

    import polars as pl

    from hhtool.stats import StatsResult

    kwargs: dict[str, Any] = {}
    for name, value in doc.items():
        if "ipc" in value:
            kwargs[name] = pl.read_ipc(io.BytesIO(base64.b64decode(value["ipc"])))
        elif "filters" in value:
            kwargs[name] = filters_of(value["filters"])
        else:
            kwargs[name] = _decode(value["value"])
    return StatsResult(**kwargs, db=db)


# ------------------------------------------------------------------ the routes


def _is_local(client: str | None, server: str | None) -> bool:
    """A request from this machine: the loopback, or the address the server listens on (``--host`` of this machine)."""
    if client is None:
        return False
    if client == server:
        return True
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False


LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
"""The loopback's names a ``Host`` may give (those of the app's ``TrustedHostMiddleware``, without the port)."""


def _local_host(host: str | None, server: str | None) -> bool:
    """A ``Host`` header that names this machine: a loopback name, or the address the server listens on; with any port."""
    from urllib.parse import urlsplit

    if not host:
        return False
    try:
        name = urlsplit("//" + host).hostname
    except ValueError:
        return False
    return name is not None and (name in LOCAL_NAMES or name == server)


def cli_routes(db: WebDb, token: str, on_write: Callable[[], None] = lambda: None) -> list[Route]:
    """The routes of the CLI's commands over ``db``, each asking for ``token``; the instance reads no other file from now on.
    ``on_write``: called after each ``write`` (the pages' kept figures are then made again)."""
    from starlette.routing import Route

    with db.cursor() as cur:  # the server's own work never reads a file through DuckDB: the query's fence, as hhtool query's
        cur.execute("SET enable_external_access = false")
    served = served_database(db)
    return [
        Route(PREFIX + "stats", _endpoint(token, lambda doc: _stats(served, doc)), methods=["POST"]),
        Route(PREFIX + "query", _endpoint(token, lambda doc: _query(served, doc)), methods=["POST"]),
        Route(PREFIX + "report", _endpoint(token, lambda doc: _report(served, doc)), methods=["POST"]),
        Route(PREFIX + "export", _endpoint(token, lambda doc: _export(db), stream=True), methods=["POST"]),
        Route(PREFIX + "write", _endpoint(token, lambda doc: _write(db, doc, on_write)), methods=["POST"]),
    ]


def _answer(status: int, message: str, kind: str = "") -> Response:
    from starlette.responses import Response

    from hhtool.textsafe import dumps

    return Response(dumps({"error": message, "kind": kind, "status": status}) + "\n", status_code=status, media_type="application/json")


def _endpoint(token: str, work: Callable[[dict[str, Any]], Response], *, stream: bool = False) -> Callable[[Request], Any]:
    """The route's endpoint: the token and the caller checked, the JSON read, ``work`` run in a thread, its errors answered.

    A command's own refusal (a :class:`~hhtool.store.db.StoreError`: an
    unknown player, SQL that would write, no hand to report) is a 422 whose
    ``kind`` names the error, so that the CLI raises the same one with the
    same words and exits as it would without the server.
    """

    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        given = request.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8")):
            return _answer(403, f"{request.url.path} is for the hhtool CLI of this machine: it needs the token of the database's .serve file")
        server = request.scope.get("server")
        own = str(server[0]) if server else None
        if not _is_local(request.client.host if request.client else None, own):
            return _answer(403, f"{request.url.path} answers this machine only")
        if not _local_host(request.headers.get("host"), own):
            return _answer(403, f"{request.url.path} answers a request that names this machine as its Host (the loopback, or the server's address)")
        body = await request.body()
        if len(body) > MAX_BODY:
            return _answer(413, f"the request is larger than {MAX_BODY} bytes")
        try:
            doc = json.loads(body or b"{}")
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            return _answer(400, "the request is a JSON object")
        try:
            return await run_in_threadpool(work, doc)
        except BadCall as e:
            return _answer(400, str(e))
        except StoreError as e:
            return _answer(422, str(e), type(e).__name__)
        except Exception as e:  # a bug of ours: one line, as the pages' (hhtool.web.app)
            import logging

            from hhtool.textsafe import term

            logging.getLogger("hhtool.web").error("hhtool serve: internal error on %s: %s", request.url.path, term(f"{type(e).__name__}: {e}"[:300]))
            return _answer(500, f"internal error ({type(e).__name__}): this is a bug in hhtool, please report it")

    return endpoint


def _text(doc: dict[str, Any], key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str):
        raise BadCall(f"{key}: a text")
    return value


def _stats(served: ServedDatabase, doc: dict[str, Any]) -> Response:
    from starlette.responses import Response

    from hhtool.stats import compute
    from hhtool.textsafe import dumps

    filters = filters_of(doc.get("filters", {}))
    play_time, gap = doc.get("play_time", False), doc.get("gap_minutes", 30)
    if not isinstance(play_time, bool) or not isinstance(gap, int) or isinstance(gap, bool) or gap < 1:
        raise BadCall("play_time: true or false; gap_minutes: minutes, 1 or more")
    with database_errors(served, everything=True):
        result = compute(served, filters, play_time=play_time, gap_minutes=gap)
    return Response(dumps({"result": result_doc(result)}), media_type="application/json")


def _query(served: ServedDatabase, doc: dict[str, Any]) -> Response:
    from starlette.responses import Response

    from hhtool.store.query import render, run_query

    fmt = _text(doc, "format")
    if fmt not in ("table", "csv", "json"):
        raise BadCall("format: table, csv or json")
    timeout = doc.get("timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout < 0):
        raise BadCall("timeout: seconds, 0 or more")
    frame = run_query(served, _text(doc, "sql"), timeout=timeout)
    text = render(frame, fmt, raw=bool(doc.get("raw")))  # type: ignore[arg-type]  # checked above
    return Response(text.encode("utf-8"), media_type="text/plain; charset=utf-8")


def _report(served: ServedDatabase, doc: dict[str, Any]) -> Response:
    from starlette.responses import Response

    from hhtool.stats.report import build_report

    filters = filters_of(doc.get("filters", {}))
    gap = doc.get("gap_minutes", 30)
    if not isinstance(gap, int) or gap < 1:
        raise BadCall("gap_minutes: a whole number, 1 or more")
    with database_errors(served, everything=True):
        html = build_report(served, filters, gap_minutes=gap, rates=rates_of(doc.get("rates")))
    return Response(html.encode("utf-8"), media_type="text/html; charset=utf-8")


def _write(db: WebDb, doc: dict[str, Any], on_write: Callable[[], None]) -> Response:
    """``hhtool note``, ``tag`` or ``alias`` run on a cursor of the server's connection: the text the command prints."""
    from starlette.responses import Response

    from hhtool.stats.notes_commands import checked_args, run

    command = _text(doc, "command")
    try:
        args = checked_args(command, doc.get("args"))
    except ValueError as e:
        raise BadCall(str(e)) from None
    cur = db.new_cursor()
    try:
        with database_errors(db.path, everything=True):
            text = run(cur, command, args)
    finally:
        cur.close()
    on_write()
    return Response(text.encode("utf-8"), media_type="text/plain; charset=utf-8")


def _export(db: WebDb) -> Response:
    """Every table's rows, in one read-only transaction: a line of JSON (``{"table", "rows", "partitioned"}``), then
    its Arrow IPC stream; ``{"end": true}`` last.  The counts are read first, so that an error of the database is a
    422 before anything is sent; one past that point ends the answer early, which the CLI reports."""
    from starlette.responses import StreamingResponse

    from hhtool.store.query import export_selects

    cur = db.new_cursor()
    try:
        with database_errors(db.path, everything=True):
            cur.execute("BEGIN TRANSACTION READ ONLY")
            tables = export_selects()
            counts = {}
            for name, _, _ in tables:
                counts[name] = int(cur.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0])
    except BaseException:
        cur.close()
        raise

    def parts() -> Iterator[bytes]:
        import io

        import pyarrow as pa

        try:
            for name, select, partitioned in tables:
                yield json.dumps({"table": name, "rows": counts[name], "partitioned": partitioned}).encode("utf-8") + b"\n"
                reader = cur.sql(select).to_arrow_reader(BATCH_ROWS)
                buf = io.BytesIO()
                with pa.ipc.new_stream(buf, reader.schema) as writer:
                    for batch in reader:
                        writer.write_batch(batch)
                        yield buf.getvalue()
                        buf.seek(0)
                        buf.truncate()
                yield buf.getvalue()  # the stream's end
            yield b'{"end": true}\n'
        finally:
            cur.close()

    return StreamingResponse(parts(), media_type="application/octet-stream")
