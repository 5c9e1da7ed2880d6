"""serve's notes and tags (issue 43): the writes refused without the token, from another origin or Host, or as a GET;
the note box and tag buttons written from real headless Chromium, a hostile note inert there; the study list and ``tag=``.

A real ``hhtool serve`` over a real DuckDB file (:mod:`tests.servegen`).
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import duckdb
import pytest

from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, Server, csrf_token, form_headers, hhtool, make_db, post_form

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


def _hand_note(site: str, hand: str) -> dict[str, str]:
    return {"action": "note", "site": site, "hand_id": hand, "note": "Intruder was here"}


def _hand_tag(site: str, hand: str) -> dict[str, str]:
    return {"action": "tag", "site": site, "hand_id": hand, "tag": "intruder"}


def _player_note(site: str, hand: str) -> dict[str, str]:
    return {"site": "Vela", "player": "alice", "note": "Intruder was here", "back": "/players/alice"}


def _player_tag(site: str, hand: str) -> dict[str, str]:
    return {"action": "tag", "site": "Vela", "player": "alice", "tag": "intruder", "back": "/players/alice"}


WRITES = [("/notes/hand", _hand_note), ("/notes/hand", _hand_tag), ("/notes/player", _player_note), ("/notes/player", _player_tag)]


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
    fields = {"csrf": csrf_token(s, _page(site, hand)), **make(site, hand)}
    headers = form_headers(s)
    for k, v in change.items():
        target: dict[str, str] = fields if k == "csrf" else headers
        if v is None:
            target.pop(k, None)
        else:
            target[k] = v
    got, _, body = post_form(s, path, fields, headers)
    assert got == status and words in body
    page = s.get(_page(site, hand))[2] + s.get("/players/alice")[2] + s.get("/players")[2]
    assert "Intruder" not in page and "intruder" not in page  # nothing written


def test_a_get_writes_nothing(served: tuple[Server, list[tuple[str, str]]]) -> None:
    s, hands = served
    site, hand = hands[0]
    for path in ("/notes/hand", "/notes/player"):
        assert s.get(f"{path}?action=tag&site={site}&hand_id={hand}&tag=intruder")[0] == 405


def test_notes_and_tags_written_show_in_the_lists_and_the_cli_is_refused_while_served(served: tuple[Server, list[tuple[str, str]]]) -> None:
    s, hands = served
    site, hand = hands[1]
    token = csrf_token(s, _page(site, hand))
    status, headers, _ = post_form(s, "/notes/hand", {"csrf": token, "action": "tag", "site": site, "hand_id": hand, "tag": "Review"}, form_headers(s))
    assert status == 303 and headers["location"] == _page(site, hand) + "#notes"
    status, _, body = post_form(s, "/notes/hand", {"csrf": token, "action": "note", "site": site, "hand_id": hand, "note": "x" * 10_001}, form_headers(s))
    assert status == 400 and "10,000" in body
    status, _, _ = post_form(s, "/notes/hand", {"csrf": token, "action": "note", "site": site, "hand_id": "nope", "note": "x"}, form_headers(s))
    assert status == 404
    # the list by tag: /hands?tag=, the study list of that tag, the API
    listed = s.get("/hands?tag=review")[2]
    assert listed.count('class="hand"') == 1 and f">{hand}</a>" in listed
    assert f">{hand}</a>" in s.get("/study?tag=review")[2]
    assert s.json("/api/hands?tag=review")["total"] == 1
    assert "no hand is tagged" in s.get("/study?tag=nothing")[2].lower()
    # a player's note: on their page, in the grid, beside their seat on a hand's page
    status, headers, _ = post_form(s, "/notes/player", {"csrf": token, "site": "Vela", "player": "alice", "note": "<b>calls</b> too much",
                                                    "back": "https://evil.example/"}, form_headers(s))
    assert status == 303 and headers["location"].startswith("/players/alice")  # never another site
    shown = "&lt;b&gt;calls&lt;/b&gt; too much"
    assert shown in s.get("/players/alice")[2] and shown in s.get("/players")[2]
    alice_hand = _alice_hand(s)
    assert shown in s.get(alice_hand)[2]
    r = hhtool("tags", "--db", str(s.db), "--format", "csv")  # a read: the server answers it
    assert r.returncode == 0 and "review,1,0" in r.stdout.splitlines()
    # a player's tag from its page's buttons: beside its note everywhere, and the grid's filter
    status, _, _ = post_form(s, "/notes/player", {"csrf": token, "action": "tag", "site": "Vela", "player": "alice", "tag": "Calling-Station",
                                              "back": "/players/alice"}, form_headers(s))
    assert status == 303
    chip = '<span class="tagname">calling-station</span>'
    assert 'data-tag="calling-station"' in s.get("/players/alice")[2] and chip in s.get(alice_hand)[2]
    grid = s.get("/players?player_tag=calling-station")[2]
    assert re.findall(r'<td class="player name"><a href="[^"]+">([^<]+)</a>', grid) == ["alice"] and ">calling-station</a>" in grid
    status, _, _ = post_form(s, "/notes/player", {"csrf": token, "action": "untag", "site": "Vela", "player": "alice", "tag": "calling-station",
                                              "back": "/players/alice"}, form_headers(s))
    assert status == 303 and "calling-station" not in s.get("/players")[2]
    assert s.get("/players?player_tag=not%20a%20tag")[0] == 400


def test_the_cli_writes_through_the_server_that_holds_the_database(served: tuple[Server, list[tuple[str, str]]]) -> None:
    """``hhtool note``, ``tag`` and ``alias`` while serving: written by the server, the output and exit codes of the file's."""
    s, hands = served
    site, hand = hands[3]
    r = hhtool("note", hand, "from the CLI <b>", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, f"{site} hand {hand}: note written (16 characters)\n"), r.stderr
    r = hhtool("note", hand, "--append", "and again", "--db", str(s.db))
    assert r.returncode == 0, r.stderr
    r = hhtool("tag", hand, "Cli-Tag", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, f"{site} hand {hand}: tagged cli-tag\ntags: cli-tag\n"), r.stderr
    r = hhtool("note", hand, "--db", str(s.db))  # a print of the note goes through the server too
    assert (r.returncode, r.stdout) == (0, "tags: cli-tag\nfrom the CLI <b>\nand again\n")
    page = s.get(_page(site, hand))[2]
    assert "from the CLI &lt;b&gt;\nand again</textarea>" in page and 'data-tag="cli-tag"' in page
    r = hhtool("note", "--player", "bob@Vela", "folds to aggression", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, "bob@Vela: note written (19 characters)\n"), r.stderr
    r = hhtool("tag", "--player", "bob@Vela", "nit", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, "bob@Vela: tagged nit\ntags: nit\n"), r.stderr
    bob = s.get("/players/bob")[2]
    assert "folds to aggression" in bob and 'class="tag on" data-tag="nit"' in bob
    grid = s.get("/players?player_tag=nit")[2]
    assert re.findall(r'<td class="player name"><a href="[^"]+">([^<]+)</a>', grid) == ["bob"] and "folds to aggression" in grid
    r = hhtool("alias", "add", "Roberto", "bob@Vela", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, "Roberto: 1 account added (bob@Vela)\n"), r.stderr
    assert "Roberto" in s.get("/players")[2]
    r = hhtool("alias", "list", "--format", "csv", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, "person,site,player,account\nRoberto,Vela,bob,bob@Vela\n")
    r = hhtool("alias", "remove", "bob@Vela", "--db", str(s.db))
    assert (r.returncode, r.stdout) == (0, "bob@Vela: no longer Roberto's\n"), r.stderr
    # the library's refusals: the same words and exit code as on the file, nothing written
    r = hhtool("note", "NO-SUCH-HAND", "text", "--db", str(s.db))
    assert r.returncode == 2 and "no hand 'NO-SUCH-HAND'" in r.stderr
    r = hhtool("tag", "--player", "nobody@Vela", "x", "--db", str(s.db))
    assert r.returncode == 2 and "no account 'nobody@Vela'" in r.stderr
    r = hhtool("note", hand, "x" * 10_001, "--db", str(s.db))
    assert r.returncode == 2 and "10,000" in r.stderr
    r = hhtool("alias", "add", "bob@Vela", "alice@Vela", "--db", str(s.db))
    assert r.returncode == 2
    assert _rows_of(s, f"SELECT note FROM hand_notes WHERE hand_id = '{hand}'") == [("from the CLI <b>\nand again",)]


def _cli_write(s: Server, headers: dict[str, str], doc: dict[str, object]) -> tuple[int, str]:
    import json

    u = urlsplit(s.url)
    c = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
    try:
        c.request("POST", "/api/cli/write", body=json.dumps(doc).encode("utf-8"), headers={"Content-Type": "application/json", **headers})
        r = c.getresponse()
        return r.status, r.read().decode("utf-8")
    finally:
        c.close()


def test_the_cli_write_route_refuses_without_the_token_or_with_a_foreign_host(served: tuple[Server, list[tuple[str, str]]]) -> None:
    import json

    s, hands = served
    site, hand = hands[0]
    token = str(json.loads(s.db.with_name(s.db.name + ".serve").read_text(encoding="utf-8"))["token"])
    args: dict[str, object] = {"hand": hand, "tags": ["intruder"], "site": site, "player": None, "remove": False, "raw": False}
    doc: dict[str, object] = {"command": "tag", "args": args}
    for headers, status in (({}, 403), ({"X-Hhtool-Token": "not-the-token"}, 403), ({"X-Hhtool-Token": token, "Host": "evil.example"}, 400),
                            ({"X-Hhtool-Token": token, "Host": "evil.example:80"}, 400)):
        got, body = _cli_write(s, headers, doc)
        assert got == status, (headers, got, body)
    # a GET writes nothing; a command it does not know, or arguments not its own, are refused before anything runs
    assert s.get(f"/api/cli/write?command=tag&hand={hand}")[0] == 405
    assert _cli_write(s, {"X-Hhtool-Token": token}, {"command": "query", "args": {}})[0] == 400
    assert _cli_write(s, {"X-Hhtool-Token": token}, {"command": "tag", "args": {**args, "tags": "intruder"}})[0] == 400
    assert _cli_write(s, {"X-Hhtool-Token": token}, {"command": "tag", "args": {**args, "sql": "DROP TABLE hands"}})[0] == 400
    assert "intruder" not in s.get(_page(site, hand))[2]
    # with the token and a loopback Host: written (the CLI's own request)
    got, body = _cli_write(s, {"X-Hhtool-Token": token}, {"command": "tag", "args": {**args, "tags": ["by-hand"]}})
    assert got == 200 and body == f"{site} hand {hand}: tagged by-hand\ntags: by-hand\n"
    got, body = _cli_write(s, {"X-Hhtool-Token": token}, {"command": "tag", "args": {**args, "tags": ["by-hand"], "remove": True}})
    assert got == 200


def test_a_cli_request_names_this_machine_as_its_host() -> None:
    """The route's own check of ``Host`` (beside the app's TrustedHostMiddleware, which a server on another address has not)."""
    from hhtool.web.cli_api import _local_host

    for host in ("127.0.0.1:8765", "localhost:1", "[::1]:8765", "localhost", "192.168.1.5:8765"):
        assert _local_host(host, "192.168.1.5"), host
    for bad in (None, "", "evil.example", "evil.example:8765", "127.0.0.1.evil.example", "192.168.1.6:8765", "[::1"):
        assert not _local_host(bad, "192.168.1.5"), bad


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
        # a tag on the player: typed (Enter), then a button that takes it off; another account's tag offered as a button
        field = driver.find_element(By.CSS_SELECTOR, ".player-tags input.new-player-tag")
        field.send_keys("Fish\n")
        WebDriverWait(driver, 20).until(staleness_of(field))
        driver.find_element(By.CSS_SELECTOR, '.player-tags button.tag.on[data-tag="fish"]').click()
        WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, '.player-tags button.tag.on[data-tag="fish"]'))
        assert _cli_ok("tag", "--player", "carol@Vela", "fish", "--db", str(s.db))
        driver.refresh()
        driver.find_element(By.CSS_SELECTOR, '.player-tags button.tag.off[data-tag="fish"]').click()
        WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, '.player-tags button.tag.on[data-tag="fish"]'))
        assert _cli_ok("tag", "--player", "carol@Vela", "--remove", "--db", str(s.db))
        driver.find_element(By.ID, "notes").location_once_scrolled_into_view
        driver.save_screenshot(str(SHOTS / "serve-player-note.png"))
        driver.get(s.url + "players?player_tag=fish")
        assert "bluffs the vela" in driver.find_element(By.ID, "players").text
        assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#players td.player")] == ["bob"]
        assert "fish" in [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#players a.tagname")]
        driver.save_screenshot(str(SHOTS / "serve-players-notes.png"))
    finally:
        driver.quit()
    assert _rows_of(s, f"SELECT note FROM hand_notes WHERE hand_id = '{hand}'") == [(HOSTILE,)]


def _cli_ok(*args: str) -> bool:
    r = hhtool(*args)
    assert r.returncode == 0, r.stderr
    return True


def _rows_of(s: Server, sql: str) -> list[tuple[object, ...]]:
    """Read through the server (it holds the file): ``hhtool query`` asks it."""
    r = hhtool("query", "--format", "json", "--raw", sql, "--db", str(s.db))
    assert r.returncode == 0, r.stderr
    import json

    return [tuple(row.values()) for row in json.loads(r.stdout)]
