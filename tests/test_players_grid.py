"""Issue 41: the players grid and the dashboard of ``hhtool serve``, and the report's grid.

On a real database (the samples in €, $, £ and chips, faulty simulated hands, the hostile names) served by the
real ``hhtool serve``: ``/`` is a dashboard (it redirected to ``/hands`` before), ``/players`` a grid of a row per
player sorted on the server by any column, the net per currency (a player without a hand in that money last,
whichever the direction; chips never compared with cents), under the statistics' filters; the grid's figures are
``hhtool stats``' own, whichever table summed them.  In real headless Chromium at 1,400 px, neither ``/players``
nor the report's grid scrolls sideways; their screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from hhtool.stats.compute import Filters, compute, compute_on
from hhtool.stats.grid import Grid, grid_from_result, grid_from_totals
from hhtool.stats.filters import VERDICTS
from hhtool.stats.order import name_key
from hhtool.store.db import connect
from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, HOSTILE, Server, hhtool, make_db

WIDTH = 1400


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("grid"))


@pytest.fixture(scope="module")
def grid(db: Path) -> Grid:
    """The grid of every player, from the statistics summed over the seats (the reference)."""
    con = connect(db, read_only=True)
    try:
        return grid_from_result(compute_on(con, Filters(), from_seats=True))
    finally:
        con.close()


@pytest.fixture(scope="module")
def facts(db: Path, grid: Grid, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the pages are checked against, read before the server holds the file: counts, a filtered grid, the report."""
    out = tmp_path_factory.mktemp("report") / "report.html"
    r = hhtool("report", "--db", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    con = connect(db, read_only=True)
    try:
        return {
            "report": out,
            "classic": grid_from_result(compute_on(con, Filters(profiles=("classic",)), from_seats=True)),
            "hands": con.execute("SELECT count(*) FROM hands").fetchall()[0][0],
            "disputed": con.execute("SELECT count(*) FROM hands WHERE verdict IN ('disputed', 'invalid')").fetchall()[0][0],
            "newest": con.execute("SELECT site, hand_id FROM hands WHERE verdict IN ('disputed', 'invalid') "
                                  "ORDER BY started_at DESC, hand_key DESC LIMIT 1").fetchall()[0],
            "euro": con.execute("SELECT count(*), sum(total_pot) FROM hands WHERE currency = '€'").fetchall()[0],
            "not_played": con.execute("SELECT count(*) FROM hands WHERE verdict IN ('invalid', 'error')").fetchall()[0][0],
            "every_hand": grid_from_result(compute_on(con, Filters(verdicts=VERDICTS), from_seats=True)),
            "carol_vpip": (compute_on(con, Filters(players=("carol",))).ratio("carol", "vpip").opportunities,
                           compute_on(con, Filters(players=("carol",), verdicts=VERDICTS)).ratio("carol", "vpip").opportunities),
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def server(db: Path, grid: Grid, facts: dict[str, Any]) -> Iterator[Server]:
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def _names(body: str) -> list[str]:
    """The players of a grid page, in its order."""
    table = body.split('<table id="players"', 1)[1].split("</table>", 1)[0]
    return [html.unescape(n) for n in re.findall(r'<td class="player name"><a href="/players/[^"]+">([^<]*)</a>', table)]


# ------------------------------------------------------------------ the model


def test_the_grid_from_the_totals_is_the_statistics_own(db: Path, grid: Grid) -> None:
    """``player_totals`` summed by the grid's one query gives the rows of the statistics summed over the seats, filtered too."""
    con = connect(db, derived=True)  # as `hhtool serve` opens it: the derived tables built from the seats
    con.close()
    con = connect(db, read_only=True)
    try:
        assert grid_from_totals(con, Filters()) == grid
        for f in (Filters(profiles=("classic",)), Filters(min_hands=30), Filters(players=(HOSTILE[0], "alice"))):
            assert grid_from_totals(con, f) == grid_from_result(compute_on(con, f, from_seats=True)), f
    finally:
        con.close()
    assert [c.code for c in grid.currencies] == ["EUR", "USD", "GBP", "chips"]
    assert grid == grid_from_result(compute(db))


def test_a_net_column_sorts_its_own_money_and_the_others_last(grid: Grid) -> None:
    for cur in grid.currencies:
        key = f"net_{cur.code}"
        have = sorted((r for r in grid.rows if cur in r.net), key=lambda r: name_key(r.player))
        others = sorted((r.player for r in grid.rows if cur not in r.net), key=name_key)
        assert have and others
        for descending in (True, False):
            got = grid.sorted(key, descending)
            assert [r.player for r in got[len(have):]] == others  # whichever the direction
            nets = [r.net[cur] for r in got[: len(have)]]
            assert nets == sorted(nets, reverse=descending)


def test_a_statistic_sorts_by_its_exact_value_without_opportunity_last(grid: Grid) -> None:
    from hhtool.stats.definitions import STATS
    from hhtool.stats.render import exact_value

    vpip = next(s for s in STATS if s.key == "vpip")
    for descending in (True, False):
        got = grid.sorted("vpip", descending)
        values = [exact_value(vpip, r.counts) for r in got]
        known = [v for v in values if v is not None]
        assert values[: len(known)] == sorted(known, reverse=descending)
        assert all(v is None for v in values[len(known):])
    assert [r.hands for r in grid.sorted("hands")] == sorted((r.hands for r in grid.rows), reverse=True)
    assert [r.player for r in grid.sorted("player", False)] == sorted((r.player for r in grid.rows), key=name_key)


# ------------------------------------------------------------------ /players


def test_players_is_a_grid_with_the_figures_a_player_scans_first(server: Server, grid: Grid) -> None:
    status, _, body = server.get("/players")
    assert status == 200
    heads = re.findall(r'<th data-sort="([^"]+)"', body)
    assert heads == ["player", "hands", "net_EUR", "net_USD", "net_GBP", "net_chips", "bb100", "vpip", "complete", "steal", "af", "wtsd", "wsd"]
    assert _names(body) == [r.player for r in grid.sorted("hands", True)]  # the most hands first
    carol = next(r for r in grid.rows if r.player == "carol")
    row = body.split('<a href="/players/carol">carol</a>', 1)[1].split("</tr>", 1)[0]
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
    columns = grid.columns()[1:]
    assert cells == [carol.cell(c).text for c in columns] + [""]  # the last column: the notes on the player (none)
    assert cells[0] == f"{carol.hands:,}" and cells[1] == "-€51.12" and cells[2] == "-"  # € net in its notation, invalid hands left out; no $ hand


def test_players_says_which_hands_it_left_out_and_counts_them_when_asked(server: Server, facts: dict[str, Any]) -> None:
    """Invalid and error hands are not counted unless asked (docs/stats.md, "Verdicts"), and the page says how many."""
    n = facts["not_played"]
    assert n > 0
    status, _, body = server.get("/players")
    assert status == 200
    note = body.split('id="left-out">', 1)[1].split("</p>", 1)[0]
    assert note.startswith(f"{n:,} hands with the verdict invalid or error are not counted")
    assert 'href="/players?verdicts=all"' in note
    status, _, every = server.get("/players?verdicts=all")
    assert status == 200 and 'id="left-out"' not in every
    carol = next(r for r in facts["every_hand"].rows if r.player == "carol")
    row = every.split('<a href="/players/carol">carol</a>', 1)[1].split("</tr>", 1)[0]
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
    assert cells[0] == f"{carol.hands:,}" and cells[1] == "-€40.57"  # every hand of hers, the invalid ones too


def test_players_sorts_on_the_server_by_any_column(server: Server, grid: Grid) -> None:
    for key in ("vpip", "wsd", "af", "bb100", "hands", "net_USD", "net_chips", "player"):
        for order in ("asc", "desc"):
            status, _, body = server.get(f"/players?sort={key}&order={order}")
            assert status == 200, (key, body[-400:])
            assert _names(body) == [r.player for r in grid.sorted(key, order == "desc")], (key, order)
            assert f'data-sort="{key}" ' in body and 'aria-sort="' + ("descending" if order == "desc" else "ascending") + '"' in body


def test_the_dollar_net_is_never_compared_with_chips_or_euros(server: Server, grid: Grid) -> None:
    status, _, body = server.get("/players?sort=net_USD&order=desc")
    names = _names(body)
    dollars = [r for r in grid.rows if any(c.code == "USD" for c in r.net)]
    assert names[: len(dollars)] == [r.player for r in sorted(dollars, key=lambda r: -next(v for c, v in r.net.items() if c.code == "USD"))]
    assert names[0] == "Bruno" and names[len(dollars) - 1] == "Piero"  # $98.00 first, -$100.00 last of the dollars
    # then every player without a dollar hand, by name: carol's 4,057 cents and Sofia's 4,600 chips are not dollars
    assert names[len(dollars):] == sorted((r.player for r in grid.rows if r not in dollars), key=name_key)


def test_players_takes_the_statistics_filters_and_a_name(server: Server, facts: dict[str, Any]) -> None:
    classic = facts["classic"]
    status, _, body = server.get("/players?profile=classic&sort=player&order=asc")
    assert status == 200 and _names(body) == [r.player for r in classic.sorted("player", False)]
    status, _, body = server.get("/players?min_hands=100")
    assert set(_names(body)) == {"alice", "bob", "carol", "dave"}
    status, _, body = server.get("/players?name=" + quote("SCRIPT"))
    assert _names(body) == [HOSTILE[0]] and "whose name contains" in body
    status, _, body = server.get("/players?name=zzzz")
    assert status == 200 and 'id="none"' in body


@pytest.mark.parametrize(("path", "status", "words"), [
    ("/players?sort=bogus", 400, "sort &#39;bogus&#39;: use one of player, hands, net_EUR"),
    ("/players?order=sideways", 400, "order &#39;sideways&#39;"),
    ("/players?colour=red", 400, "unknown parameter"),
    ("/players?player=nobody", 404, "no player"),
    ("/players?from=yesterday", 400, "from"),
    ("/?x=1", 400, "unknown parameter"),
])
def test_bad_parameters_are_refused_with_a_message(server: Server, path: str, status: int, words: str) -> None:
    got, _, body = server.get(path)
    assert got == status and words in body, (path, got, body[-500:])


def test_hostile_names_are_escaped_in_the_grid_and_the_dashboard(server: Server) -> None:
    for path in ("/players", "/players?sort=net_EUR&order=asc", "/"):
        _, _, body = server.get(path)
        assert "<script>alert(1)" not in body
        if path != "/":
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "&#39;; DROP TABLE hands; --" in body
    _, _, body = server.get("/players?sort=player&order=asc")
    assert f'href="/players/{quote(HOSTILE[0], safe="")}"' in body


# ------------------------------------------------------------------ /


def test_the_dashboard_shows_the_database_at_a_glance(server: Server, facts: dict[str, Any], grid: Grid) -> None:
    hands, disputed, newest, euro = facts["hands"], facts["disputed"], facts["newest"], facts["euro"]
    status, _, body = server.get("/")
    assert status == 200  # not a redirect any more
    assert f'<dd id="hands-count">{hands:,}</dd>' in body and f'<dd id="players-count">{len(grid.rows):,}</dd>' in body
    results = body.split('id="monies"', 1)[1].split("</table>", 1)[0]
    monies = re.findall(r"<tr><td class=\"l\">([^<]+)</td><td>([\d,]+)</td>", results)
    assert [m for m, _ in monies] == ["€", "$", "£", "chips"]  # a row per money, never added together
    assert monies[0][1] == f"{euro[0]:,}"
    from hhtool.history.currency import currency_of, format_money

    assert format_money(int(euro[1]), currency_of("€", "cent")) in results
    eur = grid.currencies[0]
    best = max((r for r in grid.rows if eur in r.net), key=lambda r: r.net[eur])
    assert f">{html.escape(best.player)}</a></td><td>{format_money(best.net[eur], eur)}</td>" in results
    disputes = body.split('id="disputes"', 1)[1]
    assert f'<span class="total">{disputed:,}</span>' in disputes
    from hhtool.web.hands import hand_url

    assert f'href="{hand_url(*newest)}"' in disputes  # the newest first, linked to its page
    assert 'id="latest-sessions"' in body and "No live import" in body


def test_the_dashboard_shows_the_live_import(tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    watch = tmp_path / "in"
    watch.mkdir()
    r = hhtool("simulate", "--hands", "5", "--rules", "classic", "--players", "3", "--seed", "2", "--out", str(watch / "a.txt"))
    assert r.returncode == 0, r.stderr
    s = Server(db, "--watch", str(watch))
    try:
        import time

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _, _, body = s.get("/")
            if '<dd id="hands-count">5</dd>' in body:
                break
            time.sleep(0.3)
        live = body.split('id="live"', 1)[1].split("</section>", 1)[0]
        assert '<dd id="hands-count">5</dd>' in body and str(watch) in live and "hands stored since the start</dt><dd>5</dd>" in live
    finally:
        assert s.stop()[0] == 0


# ------------------------------------------------------------------ in a real browser, 1,400 px

_WIDE = "return {scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth};"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"), WIDTH, 1000)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


@needs_browser
def test_players_and_the_dashboard_fit_1400_px(server: Server, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    for path, shot in (("players?sort=net_EUR&order=desc", "grid-players"), ("", "grid-dashboard")):
        browser.get(server.url + path)
        m = browser.execute_script(_WIDE)
        assert m["client"] <= WIDTH and m["scroll"] <= m["client"], (path, m)
        text = browser.find_element(By.TAG_NAME, "body").text
        assert HOSTILE[0] in text or path == ""
        browser.save_screenshot(str(ARTIFACTS / f"{shot}.png"))


@needs_browser
def test_the_report_grid_fits_1400_px_and_sorts_in_the_page(facts: dict[str, Any], browser: Any, grid: Grid) -> None:
    from selenium.webdriver.common.by import By

    out = facts["report"]
    browser.get(out.as_uri())  # from file://, nothing fetched
    m = browser.execute_script(_WIDE)
    assert m["scroll"] <= m["client"] <= WIDTH, m
    section = browser.find_element(By.ID, "players")
    table = section.find_element(By.TAG_NAME, "table")
    box = browser.execute_script("const b = arguments[0].parentElement; return [b.scrollWidth, b.clientWidth];", table)
    assert box[0] <= box[1], box  # the grid itself needs no sideways scroll
    heads = [th.text.strip() for th in table.find_elements(By.TAG_NAME, "th")]
    assert heads[:6] == ["player", "hands", "net €", "net $", "net £", "net chips"] and heads[6:] == ["BB/100", "VPIP", "compl.", "steal", "AF", "WTSD", "W$SD"]

    def names() -> list[str]:
        return [tr.find_elements(By.TAG_NAME, "td")[0].text for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]

    assert names() == [r.player for r in grid.sorted("hands", True)]
    browser.execute_script("arguments[0].scrollIntoView()", section)
    browser.save_screenshot(str(ARTIFACTS / "grid-report.png"))
    table.find_elements(By.TAG_NAME, "th")[3].click()  # the $ net: the dollars by value, every other player after them
    got = names()
    dollars = [r for r in grid.sorted("net_USD", True) if any(c.code == "USD" for c in r.net)]
    assert got[: len(dollars)] == [r.player for r in dollars]
    assert set(got[len(dollars):]) == {r.player for r in grid.rows} - {r.player for r in dollars}


def test_a_figures_hands_are_the_hands_it_counts(server: Server, facts: dict[str, Any]) -> None:
    """A player's figure counts ok and disputed hands by default: the list behind it is those hands, not every verdict."""
    counted, every = facts["carol_vpip"]
    assert every > counted > 0  # some of her hands are invalid: the test can tell
    status, _, body = server.get("/players/carol")
    assert status == 200
    row = body.split('<tr data-stat="vpip">', 1)[1].split("</tr>", 1)[0]
    link = html.unescape(re.search(r'<a class="opportunities" href="([^"]+)"', row).group(1))  # type: ignore[union-attr]
    assert "verdicts=ok%2Cdisputed" in link
    status, _, hands = server.get(link)
    assert status == 200
    assert f'<span class="total">{counted:,}</span>' in hands
