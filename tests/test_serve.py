"""``hhtool serve`` as a real process on a real database: the JSON API's shapes and filters, the errors, the lock,
what one request may cost, the headers of every response, connections that send no whole request, SIGTERM."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlparse

import duckdb
import pytest

from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, HOSTILE, Server, hhtool, make_db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def recount(db: Path) -> dict[str, int]:
    """Figures straight from the tables, read before the server holds the file."""
    con = duckdb.connect(str(db), read_only=True)
    try:

        def one(sql: str, *params: object) -> int:
            row = con.execute(sql, list(params)).fetchone()
            assert row is not None
            return int(row[0])

        return {
            "hands": one("SELECT count(*) FROM hands"),
            "disputed": one("SELECT count(*) FROM hands WHERE verdict = 'disputed'"),
            "invalid": one("SELECT count(*) FROM hands WHERE verdict = 'invalid'"),
            "showdown": one("SELECT count(*) FROM hands WHERE showdown"),
            "script": one("SELECT count(*) FROM seats WHERE player = ? AND dealt_in", HOSTILE[0]),
            "drop": one("SELECT count(*) FROM seats WHERE player = ? AND dealt_in", HOSTILE[1]),
            "script_vpip": one("SELECT count(*) FROM seats WHERE player = ? AND dealt_in AND vpip", HOSTILE[0]),
            "script_vpip_opp": one("SELECT count(*) FROM seats WHERE player = ? AND dealt_in AND vpip_opp", HOSTILE[0]),
            "allin": one("SELECT count(DISTINCT hand_key) FROM actions WHERE all_in"),
            "pot_10": one("SELECT count(*) FROM hands WHERE (unit = 'chip' AND total_pot >= 10) OR (unit = 'cent' AND total_pot >= 1000)"),
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def server(db: Path, recount: dict[str, int]) -> Iterator[Server]:
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0, err
    assert "Traceback" not in err
    assert not db.with_name(db.name + ".serve").exists()


def test_hands_list_counts_and_pages(server: Server, recount: dict[str, int]) -> None:
    doc = server.json("/api/hands?limit=7")
    assert doc["total"] == recount["hands"] and doc["limit"] == 7 and doc["offset"] == 0
    assert len(doc["hands"]) == 7
    times = [h["started_at"] for h in doc["hands"]]
    assert times == sorted(times, reverse=True)
    seen = {h["hand_key"] for h in doc["hands"]}
    second = server.json("/api/hands?limit=7&offset=7")
    assert not seen & {h["hand_key"] for h in second["hands"]}
    first = doc["hands"][0]
    assert set(first["total_pot"]) == {"amount", "currency", "decimals", "text"}
    assert isinstance(first["total_pot"]["amount"], int)


@pytest.mark.parametrize(
    ("query", "key"),
    [("verdict=disputed", "disputed"), ("verdict=invalid", "invalid"), ("showdown=1", "showdown"), ("allin=1", "allin"), ("pot_min=10", "pot_10")],
)
def test_each_filter_gives_the_hands_it_names(server: Server, recount: dict[str, int], query: str, key: str) -> None:
    assert recount[key] > 0, key  # the corpus holds some of each
    assert server.json(f"/api/hands?{query}&limit=1")["total"] == recount[key]


def test_dates_sites_and_sorting(server: Server, recount: dict[str, int]) -> None:
    everything = server.json("/api/hands?limit=500")["hands"]
    day = everything[0]["started_at"][:10]
    want = sum(1 for h in everything if h["started_at"][:10] == day)  # the samples are in UTC or named zones: compare in UTC
    got = server.json(f"/api/hands?from={day}&to={day}&limit=500")
    assert got["total"] >= 1 and all(h["started_at"] for h in got["hands"])
    assert got["total"] <= recount["hands"] and want >= 1
    sites = {h["site"] for h in everything}
    for site in sites:
        assert server.json(f"/api/hands?site={quote(site)}&limit=1")["total"] == sum(1 for h in everything if h["site"] == site)
    by_pot = [h["total_pot"]["amount"] for h in server.json("/api/hands?sort=pot&order=asc&limit=50&site=Vela")["hands"]]
    assert by_pot == sorted(by_pot)


def test_a_statistic_lists_the_hands_behind_it(server: Server, recount: dict[str, int]) -> None:
    name = quote(HOSTILE[0], safe="")
    stats = server.json(f"/api/players/{name}/stats")["stats"]
    assert stats["player"] == HOSTILE[0]
    assert stats["vpip_actions"] == recount["script_vpip"] and stats["vpip_opportunities"] == recount["script_vpip_opp"]
    opp = server.json(f"/api/hands?player={name}&stat=vpip&limit=1")
    taken = server.json(f"/api/hands?player={name}&stat=vpip&taken=1&limit=1")
    assert (opp["total"], taken["total"]) == (recount["script_vpip_opp"], recount["script_vpip"])
    assert server.json(f"/api/hands?player={name}&limit=1")["total"] == recount["script"]
    nets = [h["player_net"]["amount"] for h in server.json(f"/api/hands?player={name}&sort=net&limit=500")["hands"]]
    assert nets == sorted(nets, reverse=True)


def test_the_hostile_names_are_data_in_the_api(server: Server, recount: dict[str, int]) -> None:
    for name, key in zip(HOSTILE, ("script", "drop")):
        doc = server.json(f"/api/players/{quote(name, safe='')}/stats")
        assert doc["player"] == name and doc["stats"]["hands"] == recount[key] > 0
        hands = server.json(f"/api/hands?player={quote(name, safe='')}&limit=500")
        assert hands["total"] == recount[key]
    assert server.json("/api/hands?limit=1")["total"] > 0  # the table is still there


def test_one_hand_has_its_events_findings_and_text(server: Server) -> None:
    (hand,) = server.json("/api/hands?verdict=disputed&limit=1")["hands"]
    doc = server.json(f"/api/hands/{quote(hand['site'], safe='')}/{quote(hand['hand_id'], safe='')}")
    assert doc["hand"]["hand_id"] == hand["hand_id"] and doc["hand"]["verdict"] == "disputed"
    assert doc["audit"]["verdict"] == "disputed" and doc["audit"]["findings"]
    assert [f["code"] for f in doc["stored_findings"]] == [f["code"] for f in doc["audit"]["findings"]]
    assert doc["events"][0]["event"] and doc["raw_text"].startswith(f"{hand['site']} Hand #{hand['hand_id']}:")
    steps = doc["replay"]["steps"]
    assert doc["replay"]["verdict"] == "disputed" and steps[-1]["kind"] == "verdict"
    placed = [f["code"] for s in steps for f in s["findings"]]
    assert sorted(placed) == sorted(f["code"] for f in doc["audit"]["findings"])  # every finding at its step
    lines = {f["line"] for f in doc["audit"]["findings"]}
    first = doc["hand"]["first_line"]
    assert all(first <= n < first + doc["raw_text"].count("\n") for n in lines)  # the file's lines, as the audit names them


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/hands?verdict=great", 400, "verdict 'great': use ok, disputed, invalid or error"),
        ("/api/hands?from=2026-13-01", 400, "from '2026-13-01': not a date (YYYY-MM-DD)"),
        ("/api/hands?limit=0", 400, "limit '0': a whole number from 1 to 500"),
        ("/api/hands?playr=alice", 400, "unknown parameter 'playr'"),
        ("/api/hands?stat=vpip", 400, "give exactly one player"),
        ("/api/hands?pot_min=lots", 400, "pot_min 'lots': an amount"),
        ("/api/hands?player=nobody-at-all", 404, "no player 'nobody-at-all' in this database"),
        ("/api/hands/Vela/no-such-hand", 404, "no hand 'no-such-hand' of the site 'Vela'"),
        ("/api/players/nobody-at-all/stats", 404, "no player 'nobody-at-all'"),
        ("/api/players/alice/stats?structure=huge", 400, "structure 'huge': use fixed, pot or no"),
        ("/api/nothing", 404, "nothing at /api/nothing"),
    ],
)
def test_api_errors_are_json_with_a_message(server: Server, path: str, status: int, words: str) -> None:
    got, kind, body = server.get(path)
    assert got == status and kind.startswith("application/json"), body
    doc = json.loads(body)
    assert doc["status"] == status and words in doc["error"], doc
    assert "Traceback" not in body


@pytest.mark.parametrize(
    ("path", "status"),
    [("/hands?verdict=great", 400), ("/hands?to=yesterday", 400), ("/hands/Vela/no-such-hand", 404), ("/players/nobody-at-all", 404),
     ("/etc/passwd", 404), ("/static/../pyproject.toml", 404), ("/static/", 404)],
)
def test_page_errors_are_pages_with_a_message(server: Server, path: str, status: int) -> None:
    got, kind, body = server.get(path)
    assert got == status and kind.startswith("text/html")
    assert 'id="message"' in body and "Traceback" not in body


@pytest.mark.parametrize("raw", ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2fpyproject.toml", "//etc/passwd"])
def test_nothing_outside_the_database_is_served(server: Server, raw: str) -> None:
    """The path exactly as written, not cleaned by a client: a 404 (or 400) and never the file."""
    u = urlparse(server.url)
    con = http.client.HTTPConnection(str(u.hostname), u.port, timeout=10)
    con.putrequest("GET", raw, skip_host=True)
    con.putheader("Host", f"127.0.0.1:{u.port}")
    con.endheaders()
    r = con.getresponse()
    body = r.read().decode("utf-8", "replace")
    assert r.status in (400, 404), (r.status, body[:200])
    assert "root:" not in body and "[project]" not in body


def test_another_host_name_is_refused(server: Server) -> None:
    """A page of another site that points its DNS name at 127.0.0.1 gets nothing (no DNS rebinding)."""
    u = urlparse(server.url)
    con = http.client.HTTPConnection(str(u.hostname), u.port, timeout=10)
    con.request("GET", "/api/hands", headers={"Host": "evil.example:80"})
    assert con.getresponse().status == 400


def test_plotly_is_served_from_the_package(server: Server) -> None:
    status, kind, body = server.get("/static/plotly.min.js")
    assert status == 200 and "javascript" in kind and "plotly" in body[:2000].lower()
    from plotly.offline import get_plotlyjs

    assert len(body) == len(get_plotlyjs())


def test_another_command_names_the_server(server: Server, db: Path) -> None:
    r = hhtool("stats", "--db", str(db))  # reads through the server (tests/test_serve_read.py)
    assert r.returncode == 0 and r.stdout
    r = hhtool("import", "sample_histories/000_format_example.txt", "--db", str(db))
    assert r.returncode == 2
    assert f"is held by `hhtool serve` (process {server.proc.pid}) at {server.url}" in r.stderr
    r = hhtool("serve", "--db", str(db), "--port", "0")
    assert r.returncode == 2 and server.url in r.stderr and "Traceback" not in r.stderr


def test_a_taken_port_is_a_usage_error(server: Server, tmp_path: Path) -> None:
    port = urlparse(server.url).port
    r = hhtool("serve", "--db", str(tmp_path / "other.duckdb"), "--port", str(port), timeout=60)
    assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in r.stderr
    assert not (tmp_path / "other.duckdb.serve").exists()


def test_pages_answer_with_the_hands(server: Server, recount: dict[str, int]) -> None:
    status, _, body = server.get("/hands?" + urlencode({"verdict": "disputed"}))
    assert status == 200 and f'<span class="total">{recount["disputed"]:,}</span>' in body
    status, _, body = server.get("/audit")
    assert status == 200 and f'<span class="total">{recount["disputed"] + recount["invalid"]:,}</span>' in body
    status, _, body = server.get("/players")
    assert status == 200 and "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script>alert(1)" not in body


def test_the_winnings_graph_is_drawn_as_the_reports(server: Server) -> None:
    """The player's graph is a plain figure with plotly's template, as the report's are (hhtool.stats.figures)."""
    import plotly.io as pio

    from hhtool.stats.figures import template

    status, _, body = server.get(f"/players/{quote(HOSTILE[1], safe='')}")
    assert status == 200 and 'id="winnings"' in body
    assert template() == pio.templates[pio.templates.default].to_plotly_json()
    assert '"template":{"data":' in body.replace(" ", "") and '<table id="sessions">' in body


def test_a_hand_key_redirects_to_its_hand(server: Server) -> None:
    """``/hand/KEY``, where the graph's points link: a 303 to ``/hands/SITE/HAND_ID``; a key that is none or no hand's: 400 or 404."""
    u = urlparse(server.url)
    import re

    graph = server.get(f"/players/{quote(HOSTILE[1], safe='')}")[2]
    lines = re.findall(r'"customdata":\s*\[([0-9, ]*)\]', graph)  # each line's points' hand keys
    assert len(lines) == 3
    keys = [int(k) for k in lines[2].split(",")]
    con = http.client.HTTPConnection(str(u.hostname), u.port, timeout=10)
    for key in keys[:3]:
        con.request("GET", f"/hand/{key}")
        r = con.getresponse()
        r.read()
        assert r.status == 303
        target = r.getheader("Location")
        assert target is not None and target.startswith("/hands/")
        status, _, body = server.get(target)
        assert status == 200 and 'id="hand-id"' in body
    for path, status, words in [("/hand/0", 404, "no hand of key 0"), ("/hand/99999999999", 404, "no hand of key"),
                                ("/hand/abc", 400, "a whole number"), ("/hand/-3", 400, "a whole number"), ("/hand/1.5", 400, "a whole number"),
                                ("/hand/99999999999999999999", 400, "a whole number"), ("/hand/%C2%B2", 400, "a whole number"),
                                ("/hand/1/2", 404, "nothing at"), ("/hand/", 404, "nothing at")]:
        got, kind, body = server.get(path)
        assert got == status and kind.startswith("text/html") and words in body and "Traceback" not in body, (path, got, body[:300])


# ------------------------------------------------------------------ in a real browser

@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"))
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


def _no_alert(driver: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018  # an alert would be the name run as a script


def _shot(driver: Any, name: str) -> None:
    driver.save_screenshot(str(ARTIFACTS / f"serve-{name}.png"))


@needs_browser
def test_hostile_names_are_text_on_every_page(server: Server, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    (hand,) = server.json(f"/api/hands?player={quote(HOSTILE[0], safe='')}&player={quote(HOSTILE[1], safe='')}&limit=1")["hands"]
    both, script, drop = HOSTILE, HOSTILE[:1], HOSTILE[1:]
    pages = {
        "players": ("players", both),
        "player-script": (f"players/{quote(HOSTILE[0], safe='')}", script),
        "player-drop": (f"players/{quote(HOSTILE[1], safe='')}", drop),
        "hands-of-script": (f"hands?player={quote(HOSTILE[0], safe='')}&sort=net", script),
        "hand-of-both": (f"hands/{quote(hand['site'], safe='')}/{quote(hand['hand_id'], safe='')}", both),
    }
    for label, (path, names) in pages.items():
        browser.get(server.url + path)
        _no_alert(browser)
        text = browser.find_element(By.TAG_NAME, "body").text
        for name in names:
            assert name in text, (label, name)
        _shot(browser, f"names-{label}")
    seats = browser.find_elements(By.CSS_SELECTOR, ".hhr-seat")
    assert {s.get_attribute("data-name") for s in seats} >= set(HOSTILE)  # the replayer draws them as text too
    assert server.json("/api/hands?limit=1")["total"] > 0  # no table dropped


@needs_browser
@pytest.mark.parametrize(("link", "key"), [("a.taken", "script_vpip"), ("a.opportunities", "script_vpip_opp")])
def test_click_a_statistic_and_land_on_its_hands(server: Server, browser: Any, recount: dict[str, int], link: str, key: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url + f"players/{quote(HOSTILE[0], safe='')}")
    browser.find_element(By.CSS_SELECTOR, f'#stats tr[data-stat="vpip"] {link}').click()
    assert "/hands?" in browser.current_url and "stat=vpip" in browser.current_url
    assert browser.find_element(By.CSS_SELECTOR, ".pager .total").text == f"{recount[key]:,}"
    scope = browser.find_element(By.ID, "stat-scope").text
    assert HOSTILE[0] in scope and "vpip" in scope
    rows = browser.find_elements(By.CSS_SELECTOR, "#hands tbody tr")
    assert len(rows) == min(recount[key], 50)
    _shot(browser, f"stat-vpip-{link[2:]}")


@needs_browser
def test_a_point_of_the_winnings_graph_opens_its_hand(server: Server, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server.url + f"players/{quote(HOSTILE[1], safe='')}")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#winnings .scatterlayer .points path"))
    keys = browser.execute_script("return document.getElementById('winnings').data[2].customdata")
    assert keys and all(isinstance(k, int) for k in keys)  # hand keys: /hand/KEY redirects to the hand's page
    status, _, first = server.get(f"/hand/{keys[0]}")  # followed: the page of the hand of the first point
    assert status == 200
    point = browser.find_elements(By.CSS_SELECTOR, "#winnings .scatterlayer .trace:last-child .points path")[0]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).move_to_element(point).click().perform()
    WebDriverWait(browser, 20).until(lambda d: "/hands/" in d.current_url)
    assert browser.find_element(By.ID, "hand-id").text
    assert f'id="hand-id">{browser.find_element(By.ID, "hand-id").get_attribute("innerHTML")}<' in first


@needs_browser
def test_step_a_disputed_hand_to_its_finding(server: Server, browser: Any) -> None:
    """Forward with the button and the arrow key, checking the page at each step, until the finding shows at its line."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    (hand,) = server.json("/api/hands?verdict=disputed&limit=1")["hands"]
    doc = server.json(f"/api/hands/{quote(hand['site'], safe='')}/{quote(hand['hand_id'], safe='')}")
    steps = doc["replay"]["steps"]
    target = next(s for s in steps if s["findings"])
    browser.get(server.url + f"hands/{quote(hand['site'], safe='')}/{quote(hand['hand_id'], safe='')}")
    root = browser.find_element(By.CSS_SELECTOR, ".hhr")
    assert browser.find_element(By.ID, "verdict").text == "disputed"
    forward = root.find_element(By.CSS_SELECTOR, 'button[data-act="forward"]')
    for i in range(1, target["index"] + 1):
        if i % 2:
            forward.click()
        else:
            root.send_keys(Keys.ARROW_RIGHT)
        assert root.get_attribute("data-step") == str(i)
        assert root.find_element(By.CSS_SELECTOR, ".hhr-pot").text.endswith(steps[i]["pot"]["text"])
        assert root.find_element(By.CSS_SELECTOR, ".hhr-line.current").get_attribute("data-line") == str(steps[i]["line"])
        if i > target["index"] - 3:
            _shot(browser, f"disputed-step-{i}")
    shown = root.find_elements(By.CSS_SELECTOR, ".hhr-finding")
    assert shown and target["findings"][0]["code"] in shown[0].text and target["findings"][0]["message"][:40] in shown[0].text
    root.send_keys(Keys.ARROW_LEFT)
    assert root.get_attribute("data-step") == str(target["index"] - 1)


@needs_browser
@pytest.mark.parametrize(("path", "words"), [("hands?from=2026-02-30", "not a date"), ("hands/Vela/no-such-hand", "no hand 'no-such-hand'"),
                                             ("no/such/page", "nothing at /no/such/page")])
def test_errors_are_pages_a_person_reads(server: Server, browser: Any, path: str, words: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url + path)
    assert words in browser.find_element(By.ID, "message").text
    _shot(browser, "error-" + path.split("?")[0].replace("/", "-"))


# ------------------------------------------------------------------ the live import

def _until(check: Any, seconds: float = 30) -> Any:
    """Poll ``check()`` until it is truthy (its value) or ``seconds`` pass (then the last value)."""
    import time

    deadline = time.monotonic() + seconds
    got = check()
    while not got and time.monotonic() < deadline:
        time.sleep(0.1)
        got = check()
    return got


def test_hands_written_to_a_watched_folder_appear_once(tmp_path: Path) -> None:
    """A new file, a file that grows in appends, a hand whose end comes later: each hand in the pages once, the progress shown."""
    from tests.storegen import hand

    folder = tmp_path / "live"
    folder.mkdir()
    (folder / "first.txt").write_text("\n".join(hand(f"L-1-{i}") for i in range(3)) + "\n", encoding="utf-8")
    s = Server(tmp_path / "live.duckdb", "--watch", str(folder))
    try:
        def total() -> int:
            return int(s.json("/api/hands?limit=1")["total"])

        assert _until(lambda: total() == 3), total()  # what was there before the server started
        grows = folder / "grows.txt"
        with grows.open("a", encoding="utf-8") as f:
            for k in range(3):
                f.write(hand(f"L-2-{k}") + "\n")
                f.flush()
                assert _until(lambda: total() == 4 + k), (k, total())
            text = hand("L-2-3")
            f.write(text[: len(text) // 2])  # a hand being written: half of it now
            f.flush()
            f.write(text[len(text) // 2 :] + "\n")  # and the rest, with the blank line that ends it
            f.flush()
        assert _until(lambda: total() == 7), total()
        ids = sorted(h["hand_id"] for h in s.json("/api/hands?limit=500")["hands"])
        assert ids == sorted([f"L-1-{i}" for i in range(3)] + [f"L-2-{k}" for k in range(4)])  # each once
        progress = s.json("/api/progress")["import"]
        assert progress["running"] and progress["hands_stored"] == 7 and progress["conflicts"] == 0 and progress["failed"] == 0
        status, _, page = s.get("/hands")
        assert status == 200 and "watching " in page and "7 hands stored" in page
    finally:
        code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def test_a_watched_path_that_is_no_folder_is_a_usage_error(tmp_path: Path) -> None:
    r = hhtool("serve", "--db", str(tmp_path / "x.duckdb"), "--port", "0", "--watch", str(tmp_path / "nowhere"), timeout=60)
    assert r.returncode == 2 and "nowhere" in r.stderr and "Traceback" not in r.stderr


def test_a_site_or_hand_id_holding_path_characters_has_one_unambiguous_path(tmp_path: Path) -> None:
    """Each part of a hand's path is percent-encoded apart: site ``a/b`` hand ``x`` and site ``a`` hand ``b/x`` stay apart."""
    from tests.sample_paths import SAMPLES
    from tests.servegen import hhtool

    db = tmp_path / "odd.duckdb"
    r = hhtool("import", str(SAMPLES / "010_classic_own_view_three_hands.txt"), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    odd = {"C-2001": ("a/b", "x"), "C-2002": ("a", "b/x"), "C-2003": ("a/b", "x/y?z#w%")}  # no history writes these: a database may
    con = duckdb.connect(str(db))
    try:
        for old, (site, hand_id) in odd.items():
            con.execute("UPDATE hands SET site = ?, hand_id = ? WHERE hand_id = ?", [site, hand_id, old])
    finally:
        con.close()
    server = Server(db)
    try:
        listed = {(h["site"], h["hand_id"]): h for h in server.json("/api/hands")["hands"]}
        assert listed[("a/b", "x/y?z#w%")]["url"] == "/api/hands/a%2Fb/x%2Fy%3Fz%23w%25"
        for old, key in odd.items():
            h = listed[key]
            assert h["url"] == f"/api/hands/{quote(key[0], safe='')}/{quote(key[1], safe='')}" and h["page"] == "/" + h["url"][5:]
            doc = server.json(h["url"])
            assert (doc["hand"]["site"], doc["hand"]["hand_id"]) == key and f"#{old}:" in doc["raw_text"]
            status, _, page = server.get(h["page"])
            assert status == 200 and f'href="{h["url"]}"' in page  # the page's link to its JSON
        status, _, hands_page = server.get("/hands")
        assert status == 200 and all(f'href="{h["page"]}"' in hands_page for h in listed.values())
        assert server.get("/api/hands/a/b/x")[0] == 404  # three parts: no hand, not a guess
    finally:
        code, err = server.stop()
    assert code == 0 and "Traceback" not in err, err


_FAULTS = """
import resource, sys
import numpy as np
if sys.argv[1] == "kept":
    from hhtool.web.server import keep_freed_memory
    assert keep_freed_memory()
def page():  # a cold page's arrays: a few MB each, made and freed
    a = np.ones(1 << 19)
    return float(np.cumsum(a)[-1])
page()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    page()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def test_the_server_reuses_the_memory_a_page_frees() -> None:
    """``keep_freed_memory`` (called by ``serve``): arrays of a few MB made again and again take no new page faults.

    In a process of its own, since it changes the process's malloc; by
    default each such array costs hundreds of faults.
    """
    import platform
    import subprocess
    import sys

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc's malloc only")
    faults = {kind: float(subprocess.run([sys.executable, "-c", _FAULTS, kind], capture_output=True, text=True, check=True).stdout)
              for kind in ("default", "kept")}
    assert faults["default"] > 200 and faults["kept"] < faults["default"] / 10, faults


# ------------------------------------------------------------------ bounds, headers, connections, signals (issue 38)

def test_a_value_given_again_is_one_and_too_many_values_are_refused(server: Server, recount: dict[str, int]) -> None:
    """``player=X`` 500 times (what any web page can have a browser send as an ``<img>``) is one player, answered at once;
    more than ``MAX_VALUES`` different values of a parameter are a 400 that says so, before any query."""
    import time

    from hhtool.web.params import MAX_VALUES

    name = quote(HOSTILE[0], safe="")
    start = time.monotonic()
    doc = server.json("/api/hands?" + "&".join([f"player={name}"] * 500) + "&limit=1")
    assert doc["total"] == recount["script"] and time.monotonic() - start < 5
    assert server.json("/api/hands?" + "&".join(["verdict=disputed"] * 300) + "&limit=1")["total"] == recount["disputed"]
    many = "&".join(f"player=p{i}" for i in range(MAX_VALUES + 1))
    status, _, body = server.get(f"/api/hands?{many}")
    assert status == 400 and json.loads(body)["error"] == f"player: more than {MAX_VALUES} different values; give at most {MAX_VALUES} (docs/serve.md)"
    for path in (f"/hands?{many}", "/players/alice?" + "&".join(f"site=s{i}" for i in range(MAX_VALUES + 1)),
                 f"/api/players/{name}/stats?" + "&".join(f"rate=X{i:02d}=1" for i in range(MAX_VALUES + 1)) + "&currency=EUR"):
        status, _, body = server.get(path)
        assert status == 400 and f"more than {MAX_VALUES} different values" in body, (path, body[:300])
    fine = "&".join(f"site=s{i}" for i in range(MAX_VALUES)) + "&" + "&".join(["site=s0"] * 100)
    assert server.json(f"/api/hands?{fine}")["total"] == 0  # 24 different sites, one of them 101 times: allowed


def _response(url: str, raw: bytes) -> tuple[int, dict[str, str]]:
    """The status and headers the server answers ``raw`` bytes with, sent as they are on a socket of its own."""
    import socket

    u = urlparse(url)
    with socket.create_connection((str(u.hostname), int(u.port or 80)), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    return int(head[0].split()[1]), {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}


def test_every_response_carries_the_security_headers(server: Server) -> None:
    """Pages, JSON, scripts, redirects, a foreign Host's 400, a 404, and uvicorn's own 400 for bytes that are no request."""
    from hhtool.web.app import SECURITY_HEADERS

    policy = SECURITY_HEADERS["Content-Security-Policy"]
    script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    assert script_src.split() == ["script-src", "'self'"]  # no inline script, no eval
    key = server.json("/api/hands?limit=1")["hands"][0]["hand_key"]
    port = urlparse(server.url).port
    host = f"Host: 127.0.0.1:{port}\r\n".encode()
    cases = {
        "/": (b"GET / HTTP/1.1\r\n" + host + b"\r\n", 200),
        "/hand/KEY": (f"GET /hand/{key} HTTP/1.1\r\n".encode() + host + b"\r\n", 303),
        "/hands": (b"GET /hands HTTP/1.1\r\n" + host + b"\r\n", 200),
        "/api/hands": (b"GET /api/hands?limit=1 HTTP/1.1\r\n" + host + b"\r\n", 200),
        "/static/replayer.js": (b"GET /static/replayer.js HTTP/1.1\r\n" + host + b"\r\n", 200),
        "/nothing": (b"GET /nothing HTTP/1.1\r\n" + host + b"\r\n", 404),
        "foreign Host": (b"GET /api/hands HTTP/1.1\r\nHost: evil.example\r\n\r\n", 400),
        "POST": (b"POST /api/hands HTTP/1.1\r\n" + host + b"Content-Length: 0\r\n\r\n", 405),
        "no HTTP": (b"garbage\r\n\r\n", 400),
    }
    for label, (raw, want) in cases.items():
        status, headers = _response(server.url, raw)
        assert status == want, (label, status)
        for name, value in SECURITY_HEADERS.items():
            assert headers.get(name.lower()) == value, (label, name, headers)


def test_a_connection_that_sends_no_whole_request_is_closed(tmp_path: Path) -> None:
    """A client that opens a connection and sends nothing, or a request a few bytes at a time, or after an answer
    sends part of another: each closed about ``REQUEST_SECONDS`` after its start, not held for ever."""
    import socket
    import time

    from hhtool.web.connections import REQUEST_SECONDS
    from tests.sample_paths import SAMPLES

    db = tmp_path / "idle.duckdb"
    r = hhtool("import", str(SAMPLES / "000_format_example.txt"), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    s = Server(db)
    try:
        u = urlparse(s.url)
        address = (str(u.hostname), int(u.port or 80))

        def closed_after(sock: socket.socket, start: float, trickle: bytes = b"") -> float:
            """Seconds from ``start`` until the server closes ``sock``, sending ``trickle`` every second meanwhile."""
            sock.settimeout(1.0)
            while time.monotonic() - start < 3 * REQUEST_SECONDS:
                try:
                    if sock.recv(65536) == b"":
                        return time.monotonic() - start
                except TimeoutError:
                    pass
                except ConnectionError:
                    return time.monotonic() - start
                try:
                    if trickle:
                        sock.sendall(trickle)
                except OSError:
                    return time.monotonic() - start
            return float("inf")

        results: dict[str, float] = {}

        def idle() -> None:
            start = time.monotonic()
            with socket.create_connection(address) as sock:
                results["idle"] = closed_after(sock, start)

        def slow() -> None:
            start = time.monotonic()
            with socket.create_connection(address) as sock:
                sock.sendall(b"GET /api/progress HTTP/1.1\r\n")
                results["slow"] = closed_after(sock, start, b"X-A: b\r\n")

        def after_an_answer() -> None:
            with socket.create_connection(address) as sock:
                sock.sendall(f"GET /api/progress HTTP/1.1\r\nHost: 127.0.0.1:{u.port}\r\n\r\n".encode())
                sock.settimeout(10)
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
                start = time.monotonic()
                results["after"] = closed_after(sock, start, b"G")

        threads = [threading.Thread(target=f) for f in (idle, slow, after_an_answer)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(5 * REQUEST_SECONDS)
        assert set(results) == {"idle", "slow", "after"}, results
        for label, seconds in results.items():
            assert REQUEST_SECONDS - 1 < seconds < REQUEST_SECONDS + 5, (label, seconds)
        assert s.json("/api/progress") == {"import": None}  # the server answers as ever
    finally:
        code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def test_sigterm_stops_the_server_as_ctrl_c_does(tmp_path: Path) -> None:
    """``kill PID``: the requests end, ``stopped``, exit code 0, and ``FILE.serve`` removed (docs/serve.md)."""
    import signal

    from tests.sample_paths import SAMPLES

    db = tmp_path / "term.duckdb"
    r = hhtool("import", str(SAMPLES / "000_format_example.txt"), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    s = Server(db)
    marker = db.with_name(db.name + ".serve")
    assert marker.exists() and s.json("/api/hands")["total"] == 1
    s.proc.send_signal(signal.SIGTERM)
    _, err = s.proc.communicate(timeout=30)
    assert s.proc.returncode == 0, (s.proc.returncode, err)
    assert err.rstrip().endswith("stopped") and "Traceback" not in err, err
    assert not marker.exists()
    r = hhtool("query", "--db", str(db), "SELECT count(*) AS n FROM hands")  # the lock went with the server
    assert r.returncode == 0, r.stderr


_CSP_WATCH = ("window.__csp = []; document.addEventListener('securitypolicyviolation', function (e) "
              "{ window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber); });")


@needs_browser
def test_the_pages_run_under_their_content_security_policy(server: Server, browser: Any) -> None:
    """No inline script and no eval allowed, and every page still works: the replayer steps, the graph draws, the progress asks."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    watch = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _CSP_WATCH})["identifier"]
    try:
        (hand,) = server.json("/api/hands?verdict=disputed&limit=1")["hands"]
        for path in ("", "players?sort=net_EUR", "hands", f"hands/{quote(hand['site'], safe='')}/{quote(hand['hand_id'], safe='')}", f"players/{quote(HOSTILE[1], safe='')}", "audit"):
            browser.get(server.url + path)
            if path.startswith("hands/"):
                root = browser.find_element(By.CSS_SELECTOR, ".hhr")
                WebDriverWait(browser, 20).until(lambda d: root.find_elements(By.CSS_SELECTOR, ".hhr-seat"))
                root.find_element(By.CSS_SELECTOR, 'button[data-act="forward"]').click()
                assert root.get_attribute("data-step") == "1"
            if path.startswith("players/"):
                WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#winnings .scatterlayer .points path"))
                assert browser.execute_script("return document.getElementById('winnings').data.length") == 3
            assert browser.execute_script("return window.__csp") == [], path
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": watch})
