"""Issue 42: the integrity pages of ``hhtool serve``: ``/integrity`` (the pairs to review) and a pair's dossier.

On a real database (a simulated room of 14 players joining and leaving tables, two colluding pairs, three players
renamed ``<img src=x onerror=alert(1)>``, ``Gatto<U+202E>Nero`` and, by the simulator, ``=1+1`` and ``<b>Zia</b>``)
served by the real ``hhtool serve``: ``/integrity`` lists the pairs of :func:`hhtool.collusion.screen` in its order
with their scores, leads, how sure, signals in words and the hands behind them; the dossier lists every hand the two
played together, each decision a link that opens the replayer at its step (checked in real headless Chromium: the
step shown is the one of that line); the hostile names are text; nothing is written.  Screenshots at 1,400 px go to
``test-artifacts/`` (and, for the issue, to ``/work/notes/shots/`` when that folder exists).
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from hhtool.store.db import connect
from tests.browser import headless_chromium, needs_browser
from hhtool.web.integrity import SIGNAL_WORDS
from tests.servegen import ARTIFACTS, Server, hhtool

IMG = "<img src=x onerror=alert(1)>"
BIDI = "Gatto\u202eNero"
WIDTH = 1400
SHOTS = Path("/work/notes/shots")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,500 hands of a pool of 14 at 6-max: chip dumping from ``Gatto<U+202E>Nero`` to ``<b>Zia</b>``, soft play between
    Ännchen and Nonna Pina (pairs the seed's seating has meet some 500 times), and a player named ``<img ...>``."""
    tmp = tmp_path_factory.mktemp("integrity")
    room = tmp / "room.txt"
    r = hhtool("simulate", "--hands", "1500", "--pool", "14", "--collude", "chip-dumping:Gatto Nero,<b>Zia</b>:0.9",
               "--collude", "soft-play:Ännchen,Nonna Pina:0.9",
               "--seed", "21", "--jobs", "1", "--out", str(room))
    assert r.returncode == 0, r.stderr
    text = room.read_text(encoding="utf-8")
    text = re.sub(r"(?<![\w<])vela77\b", IMG, text)
    text = re.sub(r"(?<![\w<])Gatto Nero\b", BIDI, text)
    src = tmp / "histories"
    src.mkdir()
    (src / "room.txt").write_text(text, encoding="utf-8")
    out = tmp / "integrity.duckdb"
    r = hhtool("import", str(src), "--db", str(out), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    return out


@pytest.fixture(scope="module")
def facts(db: Path) -> dict[str, Any]:
    """The core's own screen and the top pair's dossier, read before the server holds the file: what the pages must show."""
    from hhtool.collusion import screen

    con = connect(db, read_only=True)
    try:
        s = screen(con)
        top = s.pairs.row(0, named=True)
        hands = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
        try:
            from hhtool.collusion import dossier
        except ImportError:  # not yet in the core
            d = None
        else:
            d = dossier(con, top["a"], top["b"])
    finally:
        con.close()
    return {"screen": s, "top": top, "dossier": d, "hands": hands}


@pytest.fixture(scope="module")
def server(db: Path, facts: dict[str, Any]) -> Iterator[Server]:
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def _rows(page: str) -> list[dict[str, str]]:
    """The pairs table's rows: (a, b) from the row's data, its cells' text."""
    out = []
    for m in re.finditer(r'<tr class="pair [^"]*" data-a="([^"]*)" data-b="([^"]*)">(.*?)\n</tr>', page, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", m.group(3), re.S)
        out.append({"a": html.unescape(m.group(1)), "b": html.unescape(m.group(2)), "rank": cells[0], "body": m.group(3)})
    return out


def _shown(name: str) -> str:
    """A name as the pages show it: control and bidi characters as escapes (hhtool.textsafe.term)."""
    from hhtool.textsafe import term

    return term(name)


def test_integrity_lists_the_pairs_in_the_screens_order(server: Server, facts: dict[str, Any]) -> None:
    status, kind, page = server.get("/integrity")
    assert status == 200 and kind.startswith("text/html")
    pairs = facts["screen"].pairs
    rows = _rows(page)
    assert len(rows) == min(100, pairs.height) and pairs.height > 50
    want = list(pairs.head(len(rows)).iter_rows(named=True))
    assert [(r["a"], r["b"]) for r in rows] == [(_shown(w["a"]), _shown(w["b"])) for w in want]
    assert [int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1))
    for r, w in zip(rows, want):
        body = html.unescape(r["body"])
        assert f">{w['lead']}<" in body and _shown(w["sure"]) in body and _shown(w["signals"]) in body
        assert f"{w['hands_together']:,}" in body
        # the dossier's link names the pair
        link = re.search(r'class="dossier" href="([^"]+)"', r["body"])
        assert link is not None
        query = dict(parse_qsl(html.unescape(link.group(1)).split("?", 1)[1]))
        assert (query["a"], query["b"]) == (w["a"], w["b"])
    # a lead names the hands it rests on, each a link to its hand
    k, w = next((k, w) for k, w in enumerate(want) if w["hand_ids"])
    linked = re.findall(r'<a class="hand" href="/hands/([^/"]+)/([^"#]+)">', rows[k]["body"])
    assert linked and all(s == quote(w["site"], safe="") for s, _ in linked)
    assert [html.unescape(h) for _, h in linked] == [quote(h, safe="") for h in w["hand_ids"][: len(linked)]]
    assert f"over {facts['hands']:,} hands" in page
    # the words of a lead to review
    assert "A lead is a reason to look at the hands, not a finding" in page


def test_the_filters_and_the_lead_level_choose_the_pairs(server: Server, facts: dict[str, Any]) -> None:
    pairs = facts["screen"].pairs
    for lead in ("strong", "moderate", "weak", "none"):
        page = server.get(f"/integrity?lead={lead}")[2]
        rows = _rows(page)
        n = pairs.filter(pairs["lead"] == lead).height
        assert len(rows) == min(n, 100), lead
        assert all(f'lead lead-{lead}"' in r["body"] for r in rows)
    # a player's pairs: every row holds that player
    page = server.get("/integrity?" + urlencode([("player", "Luca")]))[2]
    rows = _rows(page)
    assert rows and all("Luca" in (r["a"].rsplit("@", 1)[0], r["b"].rsplit("@", 1)[0]) for r in rows)
    # a second page
    if pairs.height > 100:
        rows2 = _rows(server.get("/integrity?page=2")[2])
        assert int(rows2[0]["rank"]) == 101


@pytest.mark.parametrize(("path", "status", "words"), [
    ("/integrity?lead=guilty", 400, "lead"),
    ("/integrity?bogus=1", 400, "unknown parameter"),
    ("/integrity?min_hands=10", 400, "unknown parameter 'min_hands'"),
    ("/integrity/pair?a=Luca&b=Sofia&player=Luca", 400, "unknown parameter 'player'"),
    ("/integrity?together=x", 400, "together"),
    ("/integrity?player=nobody_here", 404, "nobody_here"),
    ("/integrity/pair?a=Luca", 400, "give both accounts"),
    ("/integrity/pair?a=Luca&b=Luca", 400, "a pair is two accounts"),
    ("/integrity/pair?a=Luca&b=Sofia", 404, "never dealt in together"),
    ("/integrity/pair?a=Luca&b=nobody_here", 404, "nobody_here"),
])
def test_bad_parameters_are_refused_with_a_message(server: Server, path: str, status: int, words: str) -> None:
    got, _, body = server.get(path)
    assert got == status and words in html.unescape(body), body[:400]


def test_the_dossier_lists_every_hand_and_each_decision_links_its_step(server: Server, facts: dict[str, Any]) -> None:
    top, d = facts["top"], facts["dossier"]
    status, _, page = server.get("/integrity/pair?" + urlencode([("a", top["a"]), ("b", top["b"])]))
    assert status == 200
    assert "A lead to review, not a finding" in page
    listed = re.findall(r'<tr class="hand-row" data-hand="([^"]*)">', page)
    assert sorted(html.unescape(h) for h in listed) == sorted(_shown(str(h)) for h in d.hands["hand_id"].to_list())
    assert f'<span id="hands-total">{d.hands.height:,}</span>' in page
    # every priced decision is a link to its hand at its line
    links = re.findall(r'<a class="decision" href="/hands/([^/"]+)/([^"#]+)#line=(\d+)"', page)
    want = {(quote(str(r["site"]), safe=""), quote(str(r["hand_id"]), safe=""), str(r["line"]))
            for r in d.decisions.iter_rows(named=True) if r["line"] is not None}
    assert {(html.unescape(s), html.unescape(h), n) for s, h, n in links} == want
    # the baseline beside the lead: each player against the partner and against everyone else
    base = page.split('id="baseline"', 1)[1].split("</table>", 1)[0]
    assert base.count("partner") >= 2 and base.count("everyone else") >= 2


def test_hostile_names_are_text_in_both_pages(server: Server, facts: dict[str, Any]) -> None:
    page = server.get("/integrity?" + urlencode([("player", IMG)]))[2]
    assert "<img src=x" not in page and html.escape(IMG, quote=False) in page
    assert "\u202e" not in server.get("/integrity")[2]
    dossier = server.get("/integrity/pair?" + urlencode([("a", IMG), ("b", "=1+1")]))[2]  # 61 hands together
    assert "<img src=x" not in dossier and "<b>Zia</b>" not in dossier
    assert html.escape(IMG, quote=False) in dossier and "=1+1" in dossier


def test_the_pages_only_read(server: Server, db: Path) -> None:
    for path in ("/integrity", "/integrity/pair?a=Luca&b=Sofia"):
        status, _, _ = server.post(path) if hasattr(server, "post") else _post(server, path)
        assert status == 405


def _post(server: Server, path: str) -> tuple[int, str, str]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(server.url + path.lstrip("/"), data=b"x=1", method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode("utf-8")


def test_the_dashboard_and_the_nav_link_the_integrity_page(server: Server) -> None:
    page = server.get("/")[2]
    assert 'id="integrity-link" href="/integrity"' in page
    assert '<a href="/integrity">Integrity</a>' in server.get("/hands")[2]


# ------------------------------------------------------------------ in real headless Chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"), WIDTH, 1000)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(browser: Any, name: str) -> None:
    """A full-page screenshot at 1,400 px to test-artifacts/, and to the notes' shots when that folder is there."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(WIDTH, min(max(1000, height), 4000))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    if SHOTS.is_dir():
        shutil.copy(ARTIFACTS / f"{name}.png", SHOTS / f"{name}.png")
    browser.set_window_size(WIDTH, 1000)


@needs_browser
def test_in_a_browser_a_decision_opens_the_replayer_at_its_step(server: Server, browser: Any, facts: dict[str, Any]) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    fits = "const w = document.querySelector(arguments[0]).closest('.wide'); return [w.scrollWidth, w.clientWidth];"
    browser.get(server.url + "integrity")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH
    inner, outer = browser.execute_script(fits, "#pairs")
    assert inner <= outer  # the pairs' table does not scroll sideways at 1,400 px
    # a hand id that fits its cell stays on one line (not broken at its hyphens); only a longer one wraps
    broken = browser.execute_script(
        "return [...document.querySelectorAll('#pairs td.hands a.hand')].filter(a => {"
        " const r = a.getClientRects(), h = parseFloat(getComputedStyle(a).fontSize);"
        " return a.scrollWidth <= a.closest('td').clientWidth && (r.length > 1 || r[0].height > 1.8 * h); })"
        ".map(a => a.textContent);")
    assert browser.execute_script("return document.querySelectorAll('#pairs td.hands a.hand').length") > 0
    assert broken == []
    _shot(browser, "issue42-integrity")
    browser.find_element(By.CSS_SELECTOR, "#pairs tr.pair a.dossier").click()
    assert "/integrity/pair?" in browser.current_url
    assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH
    for table in ("#hands-together", "#baseline", "#signal-table"):
        inner, outer = browser.execute_script(fits, table)
        assert inner <= outer, table
    _shot(browser, "issue42-dossier")
    decisions = browser.find_elements(By.CSS_SELECTOR, "a.decision")
    assert decisions, "the top pair has priced decisions"
    flagged = browser.find_elements(By.CSS_SELECTOR, "tr.flagged a.decision") or decisions
    link = flagged[0]
    line = link.get_attribute("data-line")
    href = link.get_attribute("href")
    link.click()
    assert browser.current_url == href and href.endswith(f"#line={line}")
    shown = browser.execute_script(
        "const r = document.querySelector('.hhr'), c = r.querySelector('.hhr-line.current');"
        "return {line: c.dataset.line, text: c.innerText, say: r.querySelector('.hhr-say').innerText, step: r.dataset.step};")
    assert shown["line"] == line and shown["step"] != "0"
    # the step shown is the one of that line: its sentence is about the decision's player
    row = next(r for r in facts["dossier"].decisions.iter_rows(named=True) if str(r["line"]) == line)
    assert _shown(str(row["player"])) in shown["say"] and _shown(str(row["player"])) in shown["text"]
    try:
        browser.switch_to.alert
        raise AssertionError("an alert opened")
    except NoAlertPresentException:
        pass


@needs_browser
def test_in_a_browser_hostile_names_are_inert(server: Server, browser: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    for path in ("integrity", "integrity?" + urlencode([("player", IMG)]), "integrity/pair?" + urlencode([("a", IMG), ("b", "=1+1")])):
        browser.get(server.url + path)
        assert not browser.find_elements(By.CSS_SELECTOR, "main img, main b")  # no element made of a name
        assert IMG in browser.find_element(By.TAG_NAME, "main").text
        try:
            browser.switch_to.alert
            raise AssertionError("an alert opened")
        except NoAlertPresentException:
            pass


def test_own_view_histories_say_what_could_not_be_computed(tmp_path: Path) -> None:
    """One player's own files: the signals that need every hole card are listed as not computed, each with why."""
    from hhtool.collusion import screen

    src = tmp_path / "own.txt"
    r = hhtool("simulate", "--hands", "300", "--players", "4", "--view", "alice", "--seed", "4", "--jobs", "1", "--out", str(src))
    assert r.returncode == 0, r.stderr
    db = tmp_path / "own.duckdb"
    r = hhtool("import", str(src), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    missing = screen(db, cache=False).not_computed
    assert {sig for sig, _ in missing} >= {"strong_fold", "card_sharing"}
    s = Server(db)
    try:
        page = s.get("/integrity")[2]
    finally:
        code, err = s.stop()
        assert code == 0 and "Traceback" not in err, err
    block = html.unescape(page.split('<div id="not-computed">', 1)[1].split("</div>", 1)[0])
    for sig, why in missing:
        assert f"<li><strong>{SIGNAL_WORDS[sig]}</strong>: {why}</li>" in block


def test_every_signal_of_the_core_has_its_words_on_the_pages() -> None:
    """A signal the core adds is named in words on the pages, never by its id."""
    from hhtool.collusion.signals import SIGNALS

    assert set(SIGNAL_WORDS) == set(SIGNALS)
