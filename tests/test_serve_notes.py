"""serve's notes and tags (issue 43): the writes refused without the token, from another origin or Host, or as a GET;
the note box and tag buttons written from real headless Chromium, a hostile note inert there; the study list and ``tag=``.

A real ``hhtool serve`` over a real DuckDB file (:mod:`tests.servegen`).
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import duckdb
import pytest

from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, Server, hhtool, make_db

SHOTS = ARTIFACTS
HOSTILE = "<img src=x onerror=\"document.title='pwned'\">look at the vela <script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, list[tuple[str, str]]]]:
    db = make_db(tmp_path_factory.mktemp("notes"))
    with duckdb.connect(str(db), read_only=True) as con:
        hands = [(str(s), str(h)) for s, h in con.execute("SELECT site, hand_id FROM hands WHERE verdict = 'ok' ORDER BY started_at, hand_key LIMIT 4").fetchall()]
    s = Server(db)
    yield s, hands
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err
    assert _rows(db, "SELECT count(*) FROM hand_notes WHERE note LIKE '%Intruder%'") == [(0,)]


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [tuple(r) for r in con.execute(sql).fetchall()]


def _page(site: str, hand_id: str) -> str:
    return f"/hands/{quote(site, safe='')}/{quote(hand_id, safe='')}"


def _post(s: Server, path: str, fields: dict[str, str], headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    u = urlsplit(s.url)
    c = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
    try:
        c.request("POST", path, body=urlencode(fields).encode("utf-8"), headers=headers)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode("utf-8")
    finally:
        c.close()


def _token(s: Server, path: str) -> str:
    status, _, body = s.get(path)
    assert status == 200
    tokens = set(re.findall(r'<input type="hidden" name="csrf" value="([^"]+)">', body))
    assert len(tokens) == 1
    return str(tokens.pop())


def _form(s: Server) -> dict[str, str]:
    u = urlsplit(s.url)
    return {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"{u.scheme}://{u.netloc}", "Host": u.netloc}


def _hand_note(site: str, hand: str) -> dict[str, str]:
    return {"action": "note", "site": site, "hand_id": hand, "note": "Intruder was here"}


def _hand_tag(site: str, hand: str) -> dict[str, str]:
    return {"action": "tag", "site": site, "hand_id": hand, "tag": "intruder"}


def _player_note(site: str, hand: str) -> dict[str, str]:
    return {"site": "Vela", "player": "alice", "note": "Intruder was here", "back": "/players/alice"}


WRITES = [("/notes/hand", _hand_note), ("/notes/hand", _hand_tag), ("/notes/player", _player_note)]


@pytest.mark.parametrize("write", range(len(WRITES)))
@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"csrf": None}, 403, "token"),
        ({"csrf": "not-the-token"}, 403, "token"),
        ({"Origin": "http://evil.example"}, 403, "own pages"),
        ({"Origin": None}, 403, "names no origin"),
        ({"Host": "evil.example"}, 400, ""),
    ],
)
def test_a_note_or_tag_without_the_token_from_another_origin_or_host_is_refused(
    served: tuple[Server, list[tuple[str, str]]], write: int, change: dict[str, str | None], status: int, words: str
) -> None:
    s, hands = served
    path, make = WRITES[write]
    site, hand = hands[0]
    fields = {"csrf": _token(s, _page(site, hand)), **make(site, hand)}
    headers = _form(s)
    for k, v in change.items():
        target: dict[str, str] = fields if k == "csrf" else headers
        if v is None:
            target.pop(k, None)
        else:
            target[k] = v
    got, _, body = _post(s, path, fields, headers)
    assert got == status and words in body
    page = s.get(_page(site, hand))[2] + s.get("/players/alice")[2]
    assert "Intruder" not in page and "intruder" not in page  # nothing written


def test_a_get_writes_nothing(served: tuple[Server, list[tuple[str, str]]]) -> None:
    s, hands = served
    site, hand = hands[0]
    for path in ("/notes/hand", "/notes/player"):
        assert s.get(f"{path}?action=tag&site={site}&hand_id={hand}&tag=intruder")[0] == 405


def test_notes_and_tags_written_show_in_the_lists_and_the_cli_is_refused_while_served(served: tuple[Server, list[tuple[str, str]]]) -> None:
    s, hands = served
    site, hand = hands[1]
    token = _token(s, _page(site, hand))
    status, headers, _ = _post(s, "/notes/hand", {"csrf": token, "action": "tag", "site": site, "hand_id": hand, "tag": "Review"}, _form(s))
    assert status == 303 and headers["location"] == _page(site, hand) + "#notes"
    status, _, body = _post(s, "/notes/hand", {"csrf": token, "action": "note", "site": site, "hand_id": hand, "note": "x" * 10_001}, _form(s))
    assert status == 400 and "10,000" in body
    status, _, _ = _post(s, "/notes/hand", {"csrf": token, "action": "note", "site": site, "hand_id": "nope", "note": "x"}, _form(s))
    assert status == 404
    # the list by tag: /hands?tag=, the study list of that tag, the API
    listed = s.get("/hands?tag=review")[2]
    assert listed.count('class="hand"') == 1 and f">{hand}</a>" in listed
    assert f">{hand}</a>" in s.get("/study?tag=review")[2]
    assert s.json("/api/hands?tag=review")["total"] == 1
    assert "no hand is tagged" in s.get("/study?tag=nothing")[2].lower()
    # a player's note: on their page, in the grid, beside their seat on a hand's page
    status, headers, _ = _post(s, "/notes/player", {"csrf": token, "site": "Vela", "player": "alice", "note": "<b>calls</b> too much",
                                                    "back": "https://evil.example/"}, _form(s))
    assert status == 303 and headers["location"].startswith("/players/alice")  # never another site
    shown = "&lt;b&gt;calls&lt;/b&gt; too much"
    assert shown in s.get("/players/alice")[2] and shown in s.get("/players")[2]
    alice_hand = _alice_hand(s)
    assert shown in s.get(alice_hand)[2]
    # the CLI cannot write while the server holds the file: refused, with the server's address
    r = hhtool("note", hand, "from the CLI", "--db", str(s.db))
    assert r.returncode == 2 and s.url in r.stderr
    r = hhtool("tags", "--db", str(s.db), "--format", "csv")  # a read: the server answers it
    assert r.returncode == 0 and "review,1" in r.stdout.splitlines()


def _alice_hand(s: Server) -> str:
    body = s.get("/hands?player=alice%40Vela&limit=1")[2]
    (href,) = re.findall(r'<a class="hand" href="([^"]+)"', body)
    return str(href)


@needs_browser
def test_a_note_typed_and_a_tag_clicked_in_a_real_browser_and_a_hostile_note_does_not_run(
    served: tuple[Server, list[tuple[str, str]]], tmp_path: Path
) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import WebDriverWait

    s, hands = served
    site, hand = hands[2]
    driver = headless_chromium(tmp_path / "profile", width=1400, height=1000)
    try:
        driver.get(s.url + _page(site, hand).lstrip("/"))
        box = driver.find_element(By.ID, "note")
        box.clear()
        box.send_keys(HOSTILE)
        driver.find_element(By.ID, "save-note").click()
        WebDriverWait(driver, 20).until(staleness_of(box))  # the 303 back to the page: a new page, its note the one sent
        assert driver.find_element(By.ID, "note").get_attribute("value") == HOSTILE
        driver.find_element(By.CSS_SELECTOR, 'button.tag.off[data-tag="study"]').click()
        WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, 'button.tag.on[data-tag="study"]'))
        assert driver.title != "pwned" and not driver.find_elements(By.CSS_SELECTOR, "#notes img, main img")
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.find_element(By.ID, "notes").location_once_scrolled_into_view
        driver.save_screenshot(str(SHOTS / "serve-hand-notes.png"))
        # the study list: the hand, its note as text, one click from its replayer
        driver.get(s.url + "study")
        items = driver.find_elements(By.CSS_SELECTOR, "#study li.study-hand")
        mine = [li for li in items if hand in li.text]
        assert len(mine) == 1 and "<img src=x" in mine[0].text
        assert driver.title != "pwned" and not driver.find_elements(By.CSS_SELECTOR, "main img")
        driver.save_screenshot(str(SHOTS / "serve-study-list.png"))
        mine[0].find_element(By.CSS_SELECTOR, "a.replay").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#replayer .hhr"))
        assert driver.title != "pwned"
        # a tag taken off by its button; the player's note box
        driver.find_element(By.CSS_SELECTOR, 'button.tag.on[data-tag="study"]').click()
        WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, 'button.tag.off[data-tag="study"]'))
        driver.get(s.url + "players/bob")
        note = driver.find_element(By.CSS_SELECTOR, "form.player-note-form textarea")
        note.clear()
        note.send_keys("folds to a bet on 5th\nbluffs the vela")
        driver.find_element(By.CSS_SELECTOR, "form.player-note-form button").click()
        WebDriverWait(driver, 20).until(staleness_of(note))
        got = driver.find_element(By.CSS_SELECTOR, "form.player-note-form textarea").get_attribute("value")
        assert got == "folds to a bet on 5th\nbluffs the vela"
        driver.find_element(By.ID, "notes").location_once_scrolled_into_view
        driver.save_screenshot(str(SHOTS / "serve-player-note.png"))
        driver.get(s.url + "players")
        assert "bluffs the vela" in driver.find_element(By.ID, "players").text
        driver.save_screenshot(str(SHOTS / "serve-players-notes.png"))
    finally:
        driver.quit()
    assert _rows_of(s, f"SELECT note FROM hand_notes WHERE hand_id = '{hand}'") == [(HOSTILE,)]


def _rows_of(s: Server, sql: str) -> list[tuple[object, ...]]:
    """Read through the server (it holds the file): ``hhtool query`` asks it."""
    r = hhtool("query", "--format", "json", "--raw", sql, "--db", str(s.db))
    assert r.returncode == 0, r.stderr
    import json

    return [tuple(row.values()) for row in json.loads(r.stdout)]
