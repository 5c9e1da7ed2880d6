"""The bounds of what one request or one query may cost, and the replayer's control characters (issue 38).

The time limit (:func:`hhtool.store.limits.time_limit`) on real DuckDB
statements that never end on their own (``count(*)`` over ``range(10^12)``):
the statement of the block is interrupted at its time, the block's error
says so, and the other cursors of the same connection (other requests, the
live import) run on.  The web app's limit through the app itself, in this
process (its ASGI interface, a real database); ``hhtool query --timeout``
through the command.  The replayer's data with names holding bidi and C1
controls, and the replayer drawn by a real headless Chromium: no line
reordered.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import duckdb
import pytest

from hhtool.store.limits import TimeLimitError, time_limit
from tests.browser import headless_chromium, needs_browser
from tests.inprocess import hhtool
from tests.sample_paths import GOOD, SAMPLES

ENDLESS = "SELECT count(*) FROM range(1000000000000)"
"""A statement that runs for hours: only an interrupt ends it."""


def _running(cur: duckdb.DuckDBPyConnection, sql: str = ENDLESS) -> tuple[threading.Thread, list[BaseException]]:
    """``sql`` on ``cur`` in a thread of its own, started; the thread and what the statement raised (once it ends)."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            cur.execute(sql).fetchall()
        except BaseException as e:  # noqa: BLE001  # the test reads it
            raised.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


def test_the_time_limit_interrupts_its_own_statement_and_no_other() -> None:
    con = duckdb.connect()
    mine, other = con.cursor(), con.cursor()
    thread, raised = _running(other)  # another request, or the live import: no limit of its own
    try:
        start = time.monotonic()
        with pytest.raises(TimeLimitError, match="^took too long: 0.3 s$"):
            with time_limit(mine, 0.3, "took too long: 0.3 s"):
                mine.execute(ENDLESS).fetchall()
        assert 0.25 < time.monotonic() - start < 5
        assert mine.execute("SELECT 42").fetchall() == [(42,)]  # the cursor, and the connection, answer as before
        time.sleep(0.3)
        assert thread.is_alive() and not raised  # the other cursor's statement runs on
    finally:
        other.interrupt()
        thread.join(10)
    assert raised and isinstance(raised[0], duckdb.InterruptException)  # ended by our own interrupt, not the limit's


def test_each_block_ends_at_its_own_time() -> None:
    """Blocks under way at once (requests side by side), the later one with the nearer time: each stopped at its own."""
    con = duckdb.connect()
    ended: dict[str, float] = {}
    start = time.monotonic()

    def run(name: str, seconds: float) -> None:
        cur = con.cursor()
        try:
            with time_limit(cur, seconds, name):
                cur.execute(ENDLESS).fetchall()
        except TimeLimitError as e:
            ended[str(e)] = time.monotonic() - start

    longer = threading.Thread(target=run, args=("longer", 1.5))
    longer.start()
    time.sleep(0.2)
    run("shorter", 0.3)  # its deadline, 0.5 s from the start, comes before the first one's
    longer.join(10)
    assert 0.45 < ended["shorter"] < 1.4 and 1.45 < ended["longer"] < 5, ended


def test_a_statement_started_after_the_time_is_up_is_stopped_too() -> None:
    """The block's time is the block's: a statement begun once it ran out (the first interrupt found none) is interrupted."""
    cur = duckdb.connect().cursor()
    start = time.monotonic()
    with pytest.raises(TimeLimitError):
        with time_limit(cur, 0.2, "took too long"):
            assert cur.execute("SELECT 1").fetchall() == [(1,)]
            time.sleep(0.5)  # Python's work past the time: the interrupt reached no statement
            cur.execute(ENDLESS).fetchall()
    assert time.monotonic() - start < 5


def test_no_interrupt_after_the_block() -> None:
    """A block that ends in time leaves nothing behind: the cursor's next statement, however long, is not interrupted."""
    cur = duckdb.connect().cursor()
    with time_limit(cur, 0.2, "took too long"):
        assert cur.execute("SELECT 1").fetchall() == [(1,)]
    thread, raised = _running(cur)
    try:
        time.sleep(0.6)
        assert thread.is_alive() and not raised
    finally:
        cur.interrupt()
        thread.join(10)
    with time_limit(cur, 0, "no limit"), time_limit(cur, None, "no limit"):
        assert cur.execute("SELECT 2").fetchall() == [(2,)]


# ------------------------------------------------------------------ the web app, in this process


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hhtool.store.importer import import_paths

    path = tmp_path_factory.mktemp("bounds") / "h.duckdb"
    summary = import_paths(GOOD, path, workers=0)
    assert summary.stored >= 12
    return path


def _asgi_get(app: Any, path: str) -> tuple[int, dict[str, str], bytes]:
    """``GET path`` through the app's ASGI interface, as uvicorn calls it: (status, headers, body)."""

    async def call(sent: list[dict[str, Any]]) -> None:
        raw, _, query = path.partition("?")
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
                 "path": unquote(raw), "raw_path": raw.encode(), "query_string": query.encode(), "root_path": "",
                 "headers": [(b"host", b"127.0.0.1:8765")], "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8765)}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)

    sent: list[dict[str, Any]] = []
    try:
        asyncio.run(call(sent))
    finally:
        start: dict[str, Any] = next((m for m in sent if m["type"] == "http.response.start"), {"status": 0, "headers": []})
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        _LAST[:] = [(start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body)]
    return _LAST[0]


_LAST: list[tuple[int, dict[str, str], bytes]] = []
"""The last answer of :func:`_asgi_get`, also when the app raised after answering."""


def test_a_request_past_the_apps_time_limit_is_stopped_alone(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request whose query never ends: a 503 that says why, at its time; the import's statement runs on; the next requests answer.

    The endless query stands in for a costly one (a database of millions of hands): it runs on the request's own
    cursor, where the app's queries run, through the hands list of a site named ``slow``.
    """
    import hhtool.web.hands as hands
    from hhtool.web.app import create_app, open_database

    real = hands.hand_page

    def hand_page(cur: duckdb.DuckDBPyConnection, q: Any, *args: Any, **kwargs: Any) -> Any:
        if q.filters.sites == ("slow",):
            cur.execute(ENDLESS).fetchall()
        return real(cur, q, *args, **kwargs)

    monkeypatch.setattr(hands, "hand_page", hand_page)
    con = open_database(db)
    app = create_app(db, con=con, time_limit=1.0)
    importing = con.cursor()  # as the live import's: a cursor of the same connection, with no limit
    thread, raised = _running(importing)
    try:
        start = time.monotonic()
        status, headers, body = _asgi_get(app, "/api/hands?site=slow")
        assert 0.95 < time.monotonic() - start < 15
        doc = json.loads(body)
        assert status == 503 and doc["status"] == 503, doc
        assert "took more than 1 s of the database and were stopped (the server's time limit, docs/serve.md)" in doc["error"]
        assert "memory" not in doc["error"]
        assert headers["content-type"].startswith("application/json")
        status, _, body = _asgi_get(app, "/hands?site=slow")
        assert status == 503 and b"the server&#39;s time limit" in body  # a page, not JSON, for a page
        assert thread.is_alive() and not raised  # the import's statement was not touched
    finally:
        importing.interrupt()  # ours to end: its endless count holds every core, which a page would wait for
        thread.join(10)
    try:
        assert raised and isinstance(raised[0], duckdb.InterruptException)
        for _ in range(3):  # the shared connection answers every later request
            status, _, body = _asgi_get(app, "/api/hands?limit=1")
            assert status == 200 and json.loads(body)["total"] >= 12
    finally:
        con.close()


def test_a_bug_outside_every_route_is_a_500_with_the_security_headers(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last resort (Starlette's ``ServerErrorMiddleware``, outside every middleware): its 500 carries the headers too."""
    import hhtool.web.app as web

    def broken() -> Any:
        raise RuntimeError("the templates are gone")

    con = web.open_database(db)
    try:
        app = web.create_app(db, con=con)
        monkeypatch.setattr(web, "templates", broken)  # the 404 page cannot be drawn: the error escapes the routes
        with pytest.raises(RuntimeError, match="the templates are gone"):  # raised again after the answer, for the server's log
            _asgi_get(app, "/nothing")
    finally:
        con.close()
    status, headers, body = _LAST[0]
    assert status == 500 and b"internal error" in body
    for name, value in web.SECURITY_HEADERS.items():
        assert headers[name.lower()] == value


def test_query_has_a_timeout(db: Path, tmp_path: Path) -> None:
    """``hhtool query --timeout``: a statement that would run for hours ends at its time with a line that says so."""
    start = time.monotonic()
    r = hhtool("query", "--db", str(db), "--timeout", "0.5", ENDLESS)
    assert time.monotonic() - start < 15
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == (
        "hhtool: the statement ran longer than the time limit, 0.5 s, and was stopped: give a longer --timeout (0: no limit; docs/query.md)"
    )
    r = hhtool("query", "--db", str(db), "--timeout", "0.5", "SELECT 1 AS a; " + ENDLESS)  # each statement its own limit
    assert r.returncode == 2 and "time limit, 0.5 s" in r.stderr
    r = hhtool("query", "--db", str(db), "--timeout", "0", "--format", "json", "SELECT count(*) AS n FROM hands")
    assert r.returncode == 0 and json.loads(r.stdout)[0]["n"] >= 12
    r = hhtool("query", "--db", str(db), "--timeout", "-1", "SELECT 1")
    assert r.returncode == 2 and "--timeout" in r.stderr


# ------------------------------------------------------------------ the replayer's control characters

CONTROLS = {
    "alice": "al\u202eice",  # RIGHT-TO-LEFT OVERRIDE: everything after it, to the line's end, drawn backwards
    "bob": "b\u2067o\u2066b\u2068x\u2069",  # the isolates: RLI, LRI, FSI, PDI
    "carol": "ca\u200frol\u200e",  # RLM, LRM
    "dave": "da\u0085ve\u009b",  # C1: NEL, CSI
}
UNSAFE = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def controlled_hand() -> str:
    """The format example, each of its four players named with control characters (:data:`CONTROLS`)."""
    text = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
    for old, new in CONTROLS.items():
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def test_the_replayers_data_shows_control_characters_as_the_pages_do() -> None:
    from hhtool.replay.steps import steps_from_text
    from hhtool.textsafe import term
    from hhtool.replayer.html import replayer_html

    html = replayer_html(steps_from_text(controlled_hand()), assets=False)
    body = html.split('class="hhr-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(body)
    strings: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(data)
    assert not [s for s in strings if UNSAFE.search(s) or re.search("[\x00-\x1f\x7f]", s)]
    names = {p["name"] for p in data["seat_table"]}
    assert names == {term(n) for n in CONTROLS.values()} == {"al\\u202eice", "b\\u2067o\\u2066b\\u2068x\\u2069", "ca\\u200frol\\u200e", "da\\x85ve\\x9b"}
    assert "al\\u202eice: posts the ante €0.10" in data["lines"]


_X = """
const [root, sel, first, second] = arguments;
function left(el, part) {  // the left edge on screen of the first drawn occurrence of part in el's text
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const at = n.data.indexOf(part);
    if (at >= 0) { const r = document.createRange(); r.setStart(n, at); r.setEnd(n, at + part.length); return r.getBoundingClientRect().left; }
  }
  return null;
}
return Array.from(root.querySelectorAll(sel)).filter(e => e.textContent.includes(first) && e.textContent.includes(second)).map(e => [e.textContent, left(e, first), left(e, second)]);
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"))
    try:
        yield driver
    finally:
        driver.quit()


@needs_browser
def test_a_name_with_bidi_or_c1_controls_reorders_no_line_of_the_replayer(browser: Any, tmp_path: Path) -> None:
    """Each player's ante, on the hand's text and as the step's sentence, reads left to right: the name, then the amount."""
    from selenium.webdriver.common.by import By

    from hhtool.replay.steps import steps_from_text
    from hhtool.replayer.html import replayer_html

    page = tmp_path / "replayer.html"
    page.write_text("<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"
                    + replayer_html(steps_from_text(controlled_hand())) + "</body></html>", encoding="utf-8")
    browser.get(page.as_uri())
    root = browser.find_element(By.CSS_SELECTOR, ".hhr")
    assert not UNSAFE.search(root.text) and not UNSAFE.search(browser.execute_script("return arguments[0].textContent", root))
    lines = browser.execute_script(_X, root, ".hhr-line", "posts the ante", "€0.10")
    assert len(lines) == 4, lines
    for text, words, amount in lines:
        assert words is not None and amount is not None and words < amount, text  # the amount drawn right of the words
    forward = root.find_element(By.CSS_SELECTOR, 'button[data-act="forward"]')
    for step in range(1, 5):  # the four antes, one a step
        forward.click()
        ((text, words, amount),) = browser.execute_script(_X, root, ".hhr-say", "posts the ante", "€0.10")
        assert words < amount, (step, text)
    shown = {e.get_attribute("data-name") for e in root.find_elements(By.CSS_SELECTOR, ".hhr-seat")}
    assert shown == {"al\\u202eice", "b\\u2067o\\u2066b\\u2068x\\u2069", "ca\\u200frol\\u200e", "da\\x85ve\\x9b"}
