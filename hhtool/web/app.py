"""The web application: one DuckDB connection, the pages and the JSON API over it (``docs/serve.md``, ``docs/api.md``).

:func:`create_app` opens the database (for writing: the process that
serves is the one that imports, so the two never lock each other out)
and returns the ASGI app; every request reads through a cursor of that
one connection (DuckDB runs them side by side), for :data:`TIME_LIMIT`
seconds at most.  Nothing but the database, the installed plotly's
JavaScript and the pages' own scripts and style is served: no route maps
a path to a file, and every response carries :data:`SECURITY_HEADERS`.
A request that names nothing (an unknown path, hand or player) gets a
404, one whose parameters do not parse a 400, each with a message -- a
page, or JSON under ``/api/`` -- and never a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from hhtool.stats.filters import VERDICTS
from hhtool.web.params import BadRequest, hand_query, stats_request

if TYPE_CHECKING:
    import duckdb
    import jinja2
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
Progress = Callable[[], "dict[str, Any] | None"]
"""What the pages show of a running import: a snapshot as plain data, or None when no import runs."""


class NotFound(LookupError):
    """A path that names nothing in the database: an unknown hand or player (a 404 with this message)."""


TIME_LIMIT = 10.0
"""Seconds of DuckDB's time a request's queries may take on one cursor (docs/serve.md): a page answers in
milliseconds, a cold page of a player's every hand of a million in a fraction of a second; what a request
still runs past this (a query string built to be costly, sent by any web page through the browser) is
interrupted and answered with a 503 that says so, before it takes the server's memory and cores."""


class WebDb:
    """The server's one connection, and a cursor of it for each request (DuckDB's way for threads to share one).

    Each cursor's statements run :data:`TIME_LIMIT` seconds at most
    (``time_limit``; :func:`hhtool.store.limits.time_limit`): the limit
    interrupts that cursor alone, never another request's or the live
    import's (a cursor of its own).
    """

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection, time_limit: float | None = TIME_LIMIT) -> None:
        self.path = path
        self.con = con
        self.time_limit = time_limit
        self.over = (f"this request's queries took more than {time_limit or 0:g} s of the database and were stopped "
                     "(the server's time limit, docs/serve.md): ask for less, e.g. fewer players or values, a shorter range of dates")
        self._lock = threading.Lock()
        self.closed = False

    @contextmanager
    def cursor(self, limited: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor for the block; ``limited=False``: without the time limit, for a computation of the library whose
        cost the request does not choose beyond its filters (the integrity screen, one at a time: docs/serve.md)."""
        from hhtool.store.db import database_errors
        from hhtool.store.limits import time_limit

        with self._lock:  # a cursor is made from the connection: one at a time, and never after close
            if self.closed:
                raise RuntimeError("the server is stopping")
            cur = self.con.cursor()
        try:
            with database_errors(self.path, everything=True), time_limit(cur, self.time_limit if limited else None, self.over):
                yield cur
        finally:
            cur.close()  # after the time limit's watch has ended: an interrupt never reaches a closed cursor

    def new_cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for the caller to close, with no time limit: the CLI's commands (:mod:`hhtool.web.cli_api`) run as long as they do without the server."""
        with self._lock:
            if self.closed:
                raise RuntimeError("the server is stopping")
            return self.con.cursor()

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                self.con.close()


def _term(value: object) -> object:
    """Every ``{{ }}`` of a template: a string from a history shows its control characters escaped (``\\x1b``), as on a terminal."""
    from markupsafe import Markup

    from hhtool.textsafe import term

    if isinstance(value, str) and not isinstance(value, Markup):
        return term(value)
    return "" if value is None else value


def _lines(value: str) -> object:
    """``{{ note|lines }}``: a text of several lines (a note) escaped for HTML with its line ends kept, every other
    control character shown escaped as :func:`_term` shows it (``\\x1b``)."""
    from markupsafe import Markup, escape

    from hhtool.textsafe import term_lines

    return Markup(escape(term_lines(value)))


@lru_cache(maxsize=1)
def templates() -> jinja2.Environment:
    """The pages' templates (package data), HTML-escaped always: a name like ``<script>`` is text."""
    import jinja2

    from hhtool.web.hands import api_hand_url, hand_url, share_url
    from hhtool.web.player import player_url

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("hhtool.web", "templates"),
        autoescape=True,
        finalize=_term,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["lines"] = _lines
    env.globals.update(hand_url=hand_url, api_hand_url=api_hand_url, share_url=share_url, player_url=player_url, verdicts=VERDICTS)
    return env


@lru_cache(maxsize=1)
def plotly_js() -> bytes:
    """plotly.js from the installed plotly package: the pages never fetch it from elsewhere."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs()).encode("utf-8")


MEMORY_LIMIT = "512MB"
"""DuckDB's memory in the server (its cache of the file and its queries' work): the whole server, its import's
worker included, stays under 1.5 GB on a database of a million hands (docs/serve.md, "Speed and memory").  The
server's process holds about 400 MB beside it (Python, the libraries, the import's frames), so DuckDB's share is
what the budget moves; 640 MB left 62 MB of margin, and a cold page of a player's every hand takes the same CPU."""


def open_database(path: Path) -> duckdb.DuckDBPyConnection:
    """The server's one connection: for writing (it imports too), with DuckDB's memory bounded (:data:`MEMORY_LIMIT`).

    DuckDB's own default is 80 % of the machine's memory, which a server
    that runs for days fills with its cache of the file.
    """
    from hhtool.store.db import connect

    return connect(path, memory_limit=MEMORY_LIMIT, derived=True)


SECURITY_HEADERS = {
    # scripts only from this server's files (no inline script, no eval: the pages' data is JSON in
    # <script type="application/json">, which is never run); styles from this server, inline ones too, since
    # plotly.js adds its own <style> as it draws (a style runs no code); nothing fetched from anywhere else
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser names a POST's origin "null", and a write is
    # refused unless its Origin is this server's (hhtool.web.writes); to any other site nothing is sent still
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
"""The headers of every response of the server, errors and redirects included (:class:`SecurityHeaders`)."""

SECURITY_HEADERS_RAW = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]
"""The same, as ASGI and h11 write headers."""


class SecurityHeaders:
    """ASGI middleware: every response of the app it wraps carries :data:`SECURITY_HEADERS`, whoever made it.

    The routes' pages and JSON, but also the responses no route makes: a
    redirect, the 400 of a foreign ``Host`` (Starlette's
    ``TrustedHostMiddleware``, which this one wraps), a 404 or 405 of the
    router.  Headers of the same names a response brings are replaced.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _SECURED]
                message = {**message, "headers": kept + SECURITY_HEADERS_RAW}
            await send(message)

        await self.app(scope, receive, send_secured)


_SECURED = frozenset(k for k, _ in SECURITY_HEADERS_RAW)

ASSETS = {
    "/static/replayer.js": ("replayer.js", "text/javascript"),
    "/static/replayer.css": ("replayer.css", "text/css"),
    "/static/graph.js": ("graph.js", "text/javascript"),
    "/static/progress.js": ("progress.js", "text/javascript"),
}
"""The pages' own scripts and styles (package data under ``hhtool/web/static/``, the replayer's under
``hhtool/replayer/static/``: :mod:`hhtool.web.assets` reads both), each at a fixed address: files,
not inline, so that the Content-Security-Policy runs no inline script.  No route maps a path to a file."""


def create_app(
    db_path: str | Path,
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    progress: Progress | None = None,
    hosts: tuple[str, ...] | None = LOOPBACK,
    on_close: Callable[[], None] | None = None,
    version: Callable[[], object] | None = None,
    time_limit: float | None = TIME_LIMIT,
    token: str | None = None,
) -> Starlette:
    """The ASGI app serving the database ``db_path``.

    ``con``: the connection to use (else one is opened here, for writing,
    with :func:`hhtool.store.db.connect`: :class:`~hhtool.store.db.StoreError`
    when it cannot be, :class:`~hhtool.store.db.DatabaseInUseError` when
    another process holds it); the app closes it when it stops.
    ``progress``: the running import's snapshot for the pages.  ``hosts``:
    the ``Host`` names a request may name (the loopback's by default, which
    keeps a page of another site from reaching the server through a DNS
    name of its own); None for any.  ``on_close``: called as the app stops,
    before the connection closes (the live import's stop).  ``version``: a
    value that changes whenever hands are added through ``con`` (the live
    import's hands stored), for the figures the pages keep meanwhile
    (:class:`hhtool.web.hands.Kept`); without it the hands are taken not
    to change while served.  ``time_limit``: the seconds a request's
    queries may take on its cursor (:data:`TIME_LIMIT`; None: no limit).
    ``token``: the secret of ``FILE.serve``; with it, the routes through
    which the CLI reads the database the server holds (:mod:`hhtool.web.cli_api`).
    """
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Route

    from hhtool.stats.compute import UnknownPlayerError, check_players
    from hhtool.store.db import StoreError
    from hhtool.web.hands import Kept

    from hhtool.web.writes import new_csrf_token

    path = Path(db_path)
    db = WebDb(path, con if con is not None else open_database(path), time_limit)
    app_progress: Progress = progress or (lambda: None)
    hands_version: Callable[[], object] = version or (lambda: None)
    screening = threading.Lock()  # one integrity screen or dossier at a time (hhtool.web.integrity)
    writes = [0]  # the server's own writes (aliases): what the pages keep is kept for the hands and these both
    kept = Kept(lambda: (hands_version(), writes[0]))
    csrf = new_csrf_token()
    side = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hhtool-serve-side")  # a page's second query (player_view)
    # the sessions' walk beside the graph's lines, within that second half (a pool of its own: a task of ``side``
    # waiting on a task queued behind it in ``side`` could wait for ever)
    walks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hhtool-serve-walk")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if on_close is not None:
                on_close()
            side.shutdown(wait=True, cancel_futures=True)
            walks.shutdown(wait=True, cancel_futures=True)
            db.close()

    def page(request: Request, template: str, code: int = 200, **context: Any) -> Response:
        from starlette.responses import HTMLResponse

        html = templates().get_template(template).render(request=request, progress=app_progress(), db=str(path), csrf=csrf, **context)
        return HTMLResponse(html, status_code=code)

    def api(doc: Any, status: int = 200) -> Response:
        from starlette.responses import Response

        from hhtool.textsafe import dumps

        return Response(dumps(doc, indent=1) + "\n", status_code=status, media_type="application/json")

    def error(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return api({"error": message, "status": status}, status)
        return page(request, "error.html", status, status=status, message=message)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return error(request, 404, f"nothing at {request.url.path}: the pages are / (the dashboard), /hands, /players, /audit, /integrity; the API is under /api/ (docs/api.md)")
        return error(request, exc.status_code, str(exc.detail))

    async def crashed(request: Request, exc: Exception) -> Response:
        """The last resort, outside every middleware (Starlette's ``ServerErrorMiddleware``): a bug outside a route
        (:func:`guarded` answers those) is a 500 with the security headers too, and its traceback in the log."""
        from starlette.responses import PlainTextResponse

        return PlainTextResponse("internal error: this is a bug in hhtool, please report it with the address asked", 500, headers=SECURITY_HEADERS)

    def guarded(endpoint: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """The endpoint, with every exception it raises answered here: 400, 404, 503 or 500, each with its message.

        Here and not in Starlette's handlers, whose last resort raises the
        exception again after answering, for the server to print its
        traceback: a bug of ours is one line of the server's log instead.
        """
        from functools import wraps

        @wraps(endpoint)
        def run(request: Request) -> Response:
            try:
                return endpoint(request)
            except BadRequest as e:
                return error(request, 400, str(e))
            except (NotFound, UnknownPlayerError) as e:
                return error(request, 404, str(e.args[0]) if e.args else "not found")
            except StoreError as e:
                return error(request, 503, str(e))
            except Exception as e:
                return bug(request, e)

        return run

    def bug(request: Request, exc: Exception) -> Response:
        import logging
        import os

        from hhtool.textsafe import term

        # one line in the server's log; the traceback only for whoever fixes it
        log = logging.getLogger("hhtool.web")
        if os.environ.get("HHTOOL_DEBUG") == "1":
            log.exception("internal error on %s", request.url.path)
        else:
            log.error("hhtool serve: internal error on %s: %s (HHTOOL_DEBUG=1 shows the traceback)", term(request.url.path), term(f"{type(exc).__name__}: {exc}"[:300]))
        return error(request, 500, f"internal error ({type(exc).__name__}): this is a bug in hhtool, please report it with the address asked")

    # ------------------------------------------------------------------ pages

    def hands_list(request: Request) -> Response:
        from hhtool.stats.notes import notes_of_hands
        from hhtool.web.hands import PER_DECISION, STAT_SEATS, hand_page

        q = hand_query(request.query_params.multi_items(), STAT_SEATS)
        with db.cursor() as cur:
            known_players(cur, q.filters.players)  # a misspelt name: a 404 with the names it may mean, not an empty list
            result = hand_page(cur, q, kept, derived=derived(cur))
            notes = notes_of_hands(cur, [(str(r["site"]), str(r["hand_id"])) for r in result.rows])
        return page(request, "hands.html", notes=notes, result=result, q=q, nav=_nav(request, result.total, q.limit, q.offset),
                    sort_url=lambda key: _with(request, sort=key, order="asc" if q.sort == key and q.descending else "desc", page=None, offset=None),
                    params=request.query_params, per_decision=q.stat in PER_DECISION)

    def hand_view(request: Request) -> Response:
        from hhtool.stats.notes import STUDY, HandRef, hand_note, tag_counts

        detail, findings = _hand(request)
        site, hand_id = str(detail.row["site"]), str(detail.row["hand_id"])
        with db.cursor() as cur:
            mine = hand_note(cur, HandRef(site, hand_id))
            known = kept.get(("tags",), lambda: tag_counts(cur))
            notes, ptags = kept.get(("player-notes",), lambda: player_notes_of(cur))
        offered = [STUDY, *(t for t, _ in known if t != STUDY)]
        seat_notes = {p: n for (s, p), n in notes.items() if s == site}
        seat_tags = {p: t for (s, p), t in ptags.items() if s == site}
        return page(request, "hand.html", d=detail, stored=findings, notes=mine, offered=offered, seat_notes=seat_notes, seat_tags=seat_tags)

    def player_notes_of(cur: duckdb.DuckDBPyConnection) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], tuple[str, ...]]]:
        """Every account's note and tags, kept while nothing is written (the pages show them wherever the account is)."""
        from hhtool.stats.notes import player_notes, player_tags

        return player_notes(cur), player_tags(cur)

    def study(request: Request) -> Response:
        """``/study``: the hands of a tag (``study`` unless ``tag`` names others), oldest first, each with its note and a
        link to its replayer: the hands list's filters and pages, its order the time played unless asked."""
        from hhtool.stats.notes import STUDY, notes_of_hands, tag_counts
        from hhtool.web.hands import STAT_SEATS, hand_page

        items = list(request.query_params.multi_items())
        if not any(k == "tag" and v.strip() for k, v in items):
            items.append(("tag", STUDY))
        if not any(k == "order" for k, _ in items):
            items.append(("order", "asc"))
        q = hand_query(items, STAT_SEATS)
        with db.cursor() as cur:
            known_players(cur, q.filters.players)
            result = hand_page(cur, q, kept, derived=derived(cur))
            notes = notes_of_hands(cur, [(str(r["site"]), str(r["hand_id"])) for r in result.rows])
            known = kept.get(("tags",), lambda: tag_counts(cur))
        return page(request, "study.html", result=result, q=q, notes=notes, known=known, nav=_nav(request, result.total, q.limit, q.offset),
                    params=request.query_params)

    def _hand(request: Request) -> tuple[Any, list[dict[str, Any]]]:
        from hhtool.web.detail import read_hand
        from hhtool.store.rooms import stored_room
        from hhtool.web.hands import find_hand, stored_findings

        site, hand_id = _segments(request, "/api/hands/" if request.url.path.startswith("/api/") else "/hands/", 2)
        with db.cursor() as cur:
            row = find_hand(cur, site, hand_id)
            if row is None:
                raise NotFound(f"no hand {hand_id!r} of the site {site!r} in this database")
            findings = stored_findings(cur, [int(row["hand_key"])])[int(row["hand_key"])]
            room = stored_room(cur, row)
        return read_hand(row, room), findings

    def share_view(request: Request) -> Response:
        """``/share/SITE/HAND_ID``: the hand as ``hhtool share`` writes it, a file to download (:mod:`hhtool.web.share`)."""
        from starlette.responses import Response as Plain

        from hhtool.store.rooms import stored_room
        from hhtool.web.hands import find_hand
        from hhtool.web.share import file_name, share_query, shared_bytes

        q = share_query(list(request.query_params.multi_items()))
        site, hand_id = _segments(request, "/share/", 2)
        with db.cursor() as cur:
            row = find_hand(cur, site, hand_id)
            if row is None:
                raise NotFound(f"no hand {hand_id!r} of the site {site!r} in this database")
            room = stored_room(cur, row)
        body = shared_bytes(row, room, q)
        kind = "text/html; charset=utf-8" if q.fmt == "html" else "text/plain; charset=utf-8"
        return Plain(body, media_type=kind, headers={"Content-Disposition": f'attachment; filename="{file_name(site, hand_id, q)}"'})

    async def form(request: Request, allowed: tuple[str, ...]) -> dict[str, list[str]]:
        """The fields of a write's form once :func:`~hhtool.web.writes.checked_form` has let it through (:class:`Refused`
        otherwise), each name one of ``allowed`` (a :class:`BadRequest` for another)."""
        from hhtool.web.writes import MAX_FORM, checked_form

        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM:
                break
        headers = {k.lower(): v for k, v in request.headers.items()}
        fields = checked_form(request.method, headers, f"{request.url.scheme}://{request.url.netloc}", body, csrf)
        values: dict[str, list[str]] = {}
        for k, v in fields:
            values.setdefault(k, []).append(v)
        if set(values) - set(allowed):
            raise BadRequest(f"unknown field {sorted(set(values) - set(allowed))[0]!r}: {', '.join(allowed)}")
        return values

    def one(values: dict[str, list[str]], name: str) -> str:
        got = values.get(name) or [""]
        if len(got) > 1:
            raise BadRequest(f"{name} given {len(got)} times: give it once")
        return got[0]

    async def guarded_write(request: Request, work: Callable[[], Awaitable[Response]], bad: tuple[type[Exception], ...]) -> Response:
        """A form's write, run by ``work``: refused by the guard (:mod:`hhtool.web.writes`) 403, a bad form or a value the
        library refuses (``bad``) 400, a hand not in the database 404, each with its words; a write done is counted."""
        from hhtool.web.writes import Refused

        user: tuple[type[Exception], ...] = (BadRequest, *bad)
        try:
            response = await work()
        except Refused as e:
            return error(request, 403, str(e))
        except user as e:
            return error(request, 400, str(e))
        except NotFound as e:
            return error(request, 404, str(e))
        writes[0] += 1
        return response

    async def aliases_post(request: Request) -> Response:
        """``POST /aliases``: the accounts a person owns, added or taken out, as ``hhtool alias`` does (:mod:`hhtool.web.writes`)."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import RedirectResponse

        from hhtool.stats.aliases import AliasError, add_aliases, remove_aliases

        async def work() -> Response:
            values = await form(request, ("action", "person", "accounts"))
            action = (values.get("action") or [""])[0]
            if action not in ("add", "remove"):
                raise BadRequest("action: add or remove")
            person = (values.get("person") or [""])[0].strip()
            accounts = [line.strip() for text in values.get("accounts", []) for line in text.splitlines() if line.strip()]

            def write() -> None:
                with db.cursor() as cur:
                    if action == "add":
                        add_aliases(cur, person, accounts)
                    else:
                        remove_aliases(cur, accounts)

            await run_in_threadpool(write)
            return RedirectResponse("/players#aliases", status_code=303)

        return await guarded_write(request, work, (AliasError,))

    async def hand_notes_post(request: Request) -> Response:
        """``POST /notes/hand``: a hand's note written (``action=note``), a tag given (``tag``) or taken off (``untag``),
        as ``hhtool note`` and ``hhtool tag`` do; back to the hand's page."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import RedirectResponse

        from hhtool.stats.notes import HandRef, NoteError, add_tags, remove_tags, set_hand_note
        from hhtool.web.hands import hand_url

        async def work() -> Response:
            values = await form(request, ("action", "site", "hand_id", "note", "tag"))
            action, site, hand_id = one(values, "action"), one(values, "site"), one(values, "hand_id")
            if action not in ("note", "tag", "untag"):
                raise BadRequest("action: note, tag or untag")

            def write() -> None:
                with db.cursor() as cur:
                    if cur.execute("SELECT 1 FROM hands WHERE site = ? AND hand_id = ?", [site, hand_id]).fetchone() is None:
                        raise NotFound(f"no hand {hand_id!r} of the site {site!r} in this database")
                    ref = HandRef(site, hand_id)
                    if action == "note":
                        set_hand_note(cur, ref, one(values, "note"))
                    elif action == "tag":
                        add_tags(cur, ref, [t for text in values.get("tag", []) for t in text.split()])
                    else:
                        gone = [t for text in values.get("tag", []) for t in text.split()]
                        if not gone:
                            raise BadRequest("untag: name the tag to take off")
                        remove_tags(cur, ref, gone)

            await run_in_threadpool(write)
            return RedirectResponse(hand_url(site, hand_id) + "#notes", status_code=303)

        return await guarded_write(request, work, (NoteError,))

    async def player_notes_post(request: Request) -> Response:
        """``POST /notes/player``: an account's note written (``action=note``, or no action), a tag given (``tag``) or
        taken off (``untag``), as ``hhtool note --player`` and ``hhtool tag --player`` do; back to ``back`` (a player's
        page of this server) or the account's page."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import RedirectResponse

        from hhtool.stats.notes import NoteError, add_player_tags, remove_player_tags, set_player_note
        from hhtool.web.player import player_url

        async def work() -> Response:
            values = await form(request, ("action", "site", "player", "note", "tag", "back"))
            site, name, back = one(values, "site"), one(values, "player"), one(values, "back")
            action = one(values, "action") or "note"
            if action not in ("note", "tag", "untag"):
                raise BadRequest("action: note, tag or untag")
            tags = [t for text in values.get("tag", []) for t in text.split()]
            if action == "untag" and not tags:
                raise BadRequest("untag: name the tag to take off")

            def write() -> None:
                with db.cursor() as cur:
                    if action == "note":
                        set_player_note(cur, (site, name), one(values, "note"))
                    elif action == "tag":
                        add_player_tags(cur, (site, name), tags)
                    else:
                        remove_player_tags(cur, (site, name), tags)

            await run_in_threadpool(write)
            # only a path of this server's players (never "//host" nor a scheme): the form's own page, or the account's
            target = back if back.startswith(("/players/", "/players?")) or back == "/players" else player_url(f"{name}@{site}")
            if "\\" in target or "\r" in target or "\n" in target:
                target = player_url(f"{name}@{site}")
            return RedirectResponse(target + "#notes", status_code=303)

        return await guarded_write(request, work, (NoteError,))

    def hand_by_key(request: Request) -> Response:
        """``/hand/KEY``: a 303 to the hand's page.  The winnings graph's points carry their hand's key, not its URL,
        so that a page of 2,000 points a line needs no lookup of each point's site and hand id (a third of its CPU)."""
        import re

        from starlette.responses import RedirectResponse

        from hhtool.web.hands import hand_url

        (text,) = _segments(request, "/hand/", 1)
        if not re.fullmatch(r"[0-9]{1,19}", text) or int(text) >= 2**63:
            raise BadRequest(f"/hand/{text}: a hand's key is a whole number (the graph's points link to /hand/KEY); a hand by its site and id is at /hands/SITE/HAND_ID")
        with db.cursor() as cur:
            row = cur.execute("SELECT site, hand_id FROM hands WHERE hand_key = ?", [int(text)]).fetchone()
        if row is None:
            raise NotFound(f"no hand of key {text} in this database")
        return RedirectResponse(hand_url(str(row[0]), str(row[1])), status_code=303)

    def players(request: Request) -> Response:
        """The players grid (:mod:`hhtool.web.grid`): a row per player, sorted and paged here, under the statistics' filters."""
        from hhtool.stats.aliases import list_aliases
        from hhtool.web.grid import players_page, players_query

        items = list(request.query_params.multi_items())
        q = players_query(items)
        with db.cursor() as cur:
            known_players(cur, q.filters.players)  # a misspelt name: a 404 with the names it may mean, not an empty grid
            view = players_page(cur, q, request.url.path, items, kept, derived(cur))
            aliases = kept.get(("aliases",), lambda: list_aliases(cur))
            notes, ptags = kept.get(("player-notes",), lambda: player_notes_of(cur))
        return page(request, "players.html", v=view, q=q, params=request.query_params, aliases=aliases,
                    notes_of=notes_lookup(notes, aliases, ptags))

    def notes_lookup(notes: dict[tuple[str, str], str], aliases: list[Any],
                     tags: dict[tuple[str, str], tuple[str, ...]]) -> Callable[[str], list[Any]]:
        """What a page asks of a player's key: the notes and tags of the accounts it names (:func:`~hhtool.stats.notes.notes_for_key`)."""
        from hhtool.stats.notes import notes_for_key

        owners = {(a.site, a.player): a.person for a in aliases}
        return lambda key: notes_for_key(key, notes, owners, tags)

    def known_players(cur: duckdb.DuckDBPyConnection, names: tuple[str, ...]) -> None:
        """:func:`~hhtool.stats.compute.check_players` (a pass over the seats), once for names found: a name once in stays."""
        from hhtool.store.totals import PLAYER_TOTALS, current

        if names:
            kept.get(("players", names), lambda: check_players(cur, names, current(cur, PLAYER_TOTALS, derived(cur))))

    def derived(cur: duckdb.DuckDBPyConnection) -> frozenset[str]:
        """The derived tables that hold every stored hand (:func:`~hhtool.store.totals.current_tables`), asked once
        for each count of hands stored: the import writes them in the transaction of the hands, so they stay so."""
        from hhtool.store.totals import current_tables

        return kept.get(("derived",), lambda: current_tables(cur))

    def statistics(cur: duckdb.DuckDBPyConnection, f: Any) -> Any:
        """:func:`~hhtool.stats.compute.compute_on`'s result for the filters ``f``, kept while no hand is added."""
        from hhtool.stats.compute import compute_on

        def compute() -> Any:
            known_players(cur, f.players)  # an unknown name: UnknownPlayerError; a known one is asked once
            return compute_on(cur, f, derived=derived(cur), known=True)

        return kept.get(("statistics", repr(f)), compute)

    def player_view(request: Request) -> Response:
        from hhtool.stats.render import heading
        from hhtool.web.player import play_lines_of, stat_lines, winnings_figure

        (name,) = _segments(request, "/players/", 1)
        f, rates = _stats_args(request, name)

        def winnings() -> tuple[str | None, list[dict[str, Any]]]:
            with db.cursor() as cur:
                return kept.get(("winnings", repr(f), name), lambda: winnings_figure(cur, f, name, derived(cur), beside=walks))

        # the graph and sessions on a cursor of their own while the statistics are summed on this one: DuckDB runs
        # both queries at once (each leaves the GIL), and a cold page waits for the longer of the two, not their sum
        pending = side.submit(winnings)
        with db.cursor() as cur:
            result = statistics(cur, f)  # an unknown name: UnknownPlayerError, a 404 with the names it may mean
        if name not in result.players() and result.players():
            # a bare name of accounts on two sites: their rows, a link each (docs/stats.md, "Players and accounts")
            from urllib.parse import urlencode

            from starlette.responses import RedirectResponse

            pending.cancel()
            items = [(k, v) for k, v in request.query_params.multi_items() if k != "player"]
            return RedirectResponse("/players?" + urlencode([("player", name), *items]), status_code=303)
        mine = player_accounts(name)
        if name not in result.players():
            return page(request, "player.html", name=name, lines=[], heading=f"{name}: no hand matches the filters", graph=None,
                        sessions=[], played=[], params=request.query_params, accounts=mine,
                        player_tags=player_tags_offered())
        graph, rows = pending.result()
        return page(request, "player.html", name=name, lines=stat_lines(result, name, rates), heading=heading(result, name), graph=graph,
                    sessions=rows, played=play_lines_of(result, name, rows, rates), params=request.query_params, accounts=mine,
                    player_tags=player_tags_offered())

    def player_accounts(name: str) -> list[tuple[str, str, str, tuple[str, ...]]]:
        """The accounts a player's page is about ((site, name, note, tags) each, '' and () without): a person's every
        account, ``NAME@SITE``'s one, a bare name's; each with its note box and tag buttons on the page."""
        from hhtool.stats.accounts import resolve
        from hhtool.store.totals import PLAYER_TOTALS, current

        with db.cursor() as cur:
            found = kept.get(("accounts", name), lambda: resolve(cur, (name,), current(cur, PLAYER_TOTALS, derived(cur)))[0])
            notes, tags = kept.get(("player-notes",), lambda: player_notes_of(cur))
        accounts = list(dict.fromkeys((site, player) for _, site, player in found))
        return [(site, player, notes.get((site, player), ""), tags.get((site, player), ())) for site, player in accounts]

    def player_tags_offered() -> list[str]:
        """The tag buttons of a player's page: every tag some account has, most used first."""
        with db.cursor() as cur:
            _, tags = kept.get(("player-notes",), lambda: player_notes_of(cur))
        counts: dict[str, int] = {}
        for ts in tags.values():
            for t in ts:
                counts[t] = counts.get(t, 0) + 1
        return sorted(counts, key=lambda t: (-counts[t], t))

    def audit(request: Request) -> Response:
        from hhtool.web.hands import STAT_SEATS, hand_page, stored_findings

        items = list(request.query_params.multi_items())
        if not any(k == "verdict" for k, _ in items):
            items += [("verdict", "disputed"), ("verdict", "invalid"), ("verdict", "error")]
        q = hand_query(items, STAT_SEATS)
        with db.cursor() as cur:
            result = hand_page(cur, q, kept, derived=derived(cur))
            findings = stored_findings(cur, [int(r["hand_key"]) for r in result.rows])
        return page(request, "audit.html", result=result, findings=findings, nav=_nav(request, result.total, q.limit, q.offset))

    def integrity(request: Request) -> Response:
        """``/integrity``: the pairs of accounts to review, best lead first (:mod:`hhtool.web.integrity`)."""
        from hhtool.web.integrity import integrity_page, integrity_query

        items = list(request.query_params.multi_items())
        q = integrity_query(items)
        with db.cursor() as cur:
            known_players(cur, q.filters.players)  # a misspelt name: a 404 with the names it may mean, not an empty list
        # the screen reads every hand in scope and prices decisions (seconds on a big database when its equities are not
        # in the core's cache yet): past the time limit of a request, and so one screen at a time (docs/serve.md)
        with screening, db.cursor(limited=False) as cur:
            view = integrity_page(cur, q, request.url.path, items, kept)
        return page(request, "integrity.html", v=view, q=q, params=request.query_params)

    def integrity_pair(request: Request) -> Response:
        """``/integrity/pair?a=..&b=..``: one pair's dossier (:mod:`hhtool.web.integrity`)."""
        from hhtool.collusion import UnknownPairError
        from hhtool.web.integrity import dossier_page, pair_query

        a, b, f = pair_query(list(request.query_params.multi_items()))
        with db.cursor() as cur:
            known_players(cur, (a, b))  # an account not in the database: a 404 with the names it may mean
        try:
            with screening, db.cursor(limited=False) as cur:  # as the screen: the pair's every hand, priced
                view = dossier_page(cur, a, b, f, kept)
        except UnknownPairError as e:
            raise NotFound(str(e)) from None
        return page(request, "integrity_pair.html", d=view)

    def plotly(request: Request) -> Response:
        from starlette.responses import Response

        return Response(plotly_js(), media_type="text/javascript", headers={"Cache-Control": "public, max-age=86400"})

    def asset(request: Request) -> Response:
        """One of :data:`ASSETS`; asked again on each page (``no-cache``): a few kB, and never one of an older hhtool."""
        from starlette.responses import Response

        from hhtool.web.assets import asset as read

        name, kind = ASSETS[request.url.path]
        return Response(read(name), media_type=kind, headers={"Cache-Control": "no-cache"})

    def root(request: Request) -> Response:
        """The dashboard (:mod:`hhtool.web.dashboard`): the database at a glance."""
        from hhtool.web.dashboard import dashboard
        from hhtool.web.params import Params

        Params(request.query_params.multi_items(), ())  # it takes no parameter: a misspelt filter is a 400, not ignored
        with db.cursor() as cur:
            board = dashboard(cur, kept, derived(cur))
        return page(request, "dashboard.html", d=board)

    # ------------------------------------------------------------------ the JSON API

    def api_hands(request: Request) -> Response:
        from hhtool.web.hands import STAT_SEATS, hand_page

        q = hand_query(request.query_params.multi_items(), STAT_SEATS)
        with db.cursor() as cur:
            known_players(cur, q.filters.players)  # a misspelt name: a 404 with the names it may mean, not an empty list
            result = hand_page(cur, q, kept, derived=derived(cur))
        return api({"total": result.total, "limit": q.limit, "offset": q.offset, "hands": result.rows})

    def api_hand(request: Request) -> Response:
        from hhtool.web.hands import row_json

        detail, findings = _hand(request)
        row = {k: v for k, v in detail.row.items() if k != "raw_text"}
        return api({
            "hand": row_json(row),
            **detail.to_json(),
            "stored_findings": findings,
            "raw_text": detail.row["raw_text"],
        })

    def api_stats(request: Request) -> Response:
        import json

        from hhtool.stats.render import to_json

        name, last = _segments(request, "/api/players/", 2)
        if last != "stats":
            raise NotFound(f"nothing at {request.url.path}: a player's statistics are at /api/players/NAME/stats")
        f, rates = _stats_args(request, name)
        with db.cursor() as cur:
            result = statistics(cur, f)
        doc = json.loads(to_json(result, rates))
        players = doc["players"]
        return api({"player": name, "filters": _filters_json(f), "rates": doc["rates"], "stats": players[0] if players else None})

    def api_progress(request: Request) -> Response:
        return api({"import": app_progress()})

    routes = [
        Route(path, guarded(endpoint))
        for path, endpoint in (
            ("/", root),
            ("/hands", hands_list),
            ("/study", study),
            ("/hands/{rest:path}", hand_view),
            ("/hand/{rest:path}", hand_by_key),
            ("/share/{rest:path}", share_view),
            ("/players", players),
            ("/players/{rest:path}", player_view),
            ("/audit", audit),
            ("/integrity", integrity),
            ("/integrity/pair", integrity_pair),
            ("/static/plotly.min.js", plotly),
            *((address, asset) for address in ASSETS),
            ("/api/hands", api_hands),
            ("/api/hands/{rest:path}", api_hand),
            ("/api/players/{rest:path}", api_stats),
            ("/api/progress", api_progress),
        )
    ]
    # the pages' writes, each a POST checked by hhtool.web.writes: the accounts a person owns, the notes and tags
    routes.append(Route("/aliases", aliases_post, methods=["POST"]))
    routes.append(Route("/notes/hand", hand_notes_post, methods=["POST"]))
    routes.append(Route("/notes/player", player_notes_post, methods=["POST"]))
    if token is not None:  # stats, query, report, export, note, tag, alias of the local CLI (docs/serve.md, "Reading and writing while serving")
        from hhtool.web.cli_api import cli_routes

        def written() -> None:
            writes[0] += 1

        routes += cli_routes(db, token, written)
    middleware = [Middleware(SecurityHeaders)] + ([] if hosts is None else [Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))])
    return Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={HTTPException: on_http, Exception: crashed},
    )


def _segments(request: Request, prefix: str, n: int) -> list[str]:
    """The ``n`` path segments after ``prefix``, each percent-decoded on its own.

    Read from the raw path, so that a name or an id holding ``/``
    (``</script>``), sent as ``%2F``, stays one segment; any other count
    of segments names nothing (a 404).
    """
    from urllib.parse import unquote

    raw = request.scope.get("raw_path") or request.url.path.encode("utf-8")
    path = raw.decode("latin-1").split("?", 1)[0]
    parts = path[len(prefix):].split("/") if path.startswith(prefix) else []
    if len(parts) != n or not all(parts):
        raise NotFound(f"nothing at {request.url.path}: a hand is at /hands/SITE/HAND_ID, a player at /players/NAME (docs/serve.md)")
    try:
        return [unquote(part, errors="strict") for part in parts]
    except UnicodeDecodeError:
        raise BadRequest(f"{request.url.path}: the path is not UTF-8 once decoded") from None


def _stats_args(request: Request, name: str) -> tuple[Any, Any]:
    """A player's filters (those of ``hhtool stats``) and the rates of ``currency``/``rate``, from the query string."""
    return stats_request(request.query_params.multi_items(), name)


def _filters_json(f: Any) -> dict[str, Any]:
    from hhtool.web.player import filter_items

    out: dict[str, Any] = {}
    for k, v in filter_items(f):
        out.setdefault(k, []).append(v)
    return out


def _with(request: Request, **changes: str | None) -> str:
    """This page's address with some parameters changed (None: removed)."""
    items = [(k, v) for k, v in request.query_params.multi_items() if k not in changes and v.strip()]
    items += [(k, v) for k, v in changes.items() if v is not None]
    return request.url.path + ("?" + urlencode(items) if items else "")


def _nav(request: Request, total: int, limit: int, offset: int) -> dict[str, Any]:
    """The pager: which hands this page shows, and the first, previous, next and last pages' addresses."""
    last = max(0, (total - 1) // limit * limit)

    def at(o: int) -> str:
        return _with(request, offset=str(o), page=None)

    return {
        "first": offset + 1 if total else 0,
        "last": min(total, offset + limit),
        "total": total,
        "prev": at(max(0, offset - limit)) if offset > 0 else None,
        "next": at(offset + limit) if offset + limit < total else None,
        "start": at(0) if offset > 0 else None,
        "end": at(last) if offset + limit < total else None,
    }

