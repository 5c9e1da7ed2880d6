"""serve's one write, the accounts a person owns: a POST with the page's token, from the same origin, else refused (issue 41).

Each refusal is tried on a real server over a real DuckDB file; the
write that passes is seen on the players grid and in the file afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, Server, csrf_token, form_headers, make_db, post_form


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, list[str]]]:
    db = make_db(tmp_path_factory.mktemp("writes"))
    with duckdb.connect(str(db), read_only=True) as con:  # two accounts of the samples, made one person's
        accounts = [f"{name}@{site}" for name, site in con.execute(
            "SELECT DISTINCT s.player, h.site FROM seats s JOIN hands h USING (hand_key) WHERE s.dealt_in "
            "AND s.player IN ('alice', 'bob') AND h.site = 'Vela' ORDER BY 1"
        ).fetchall()]
    assert accounts == ["alice@Vela", "bob@Vela"]
    s = Server(db)
    yield s, accounts
    shown = len(re.findall(r'<td class="l name">[^<]*@Vela</td>', s.get("/players")[2]))
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err
    with duckdb.connect(str(db), read_only=True) as con:  # what the page showed is in the file: written, and kept
        assert con.execute("SELECT count(*) FROM aliases").fetchall()[0][0] == shown


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"csrf": None}, 403, "token"),
        ({"csrf": "not-the-token"}, 403, "token"),
        ({"Origin": "http://evil.example"}, 403, "own pages"),
        ({"Origin": None}, 403, "names no origin"),
        ({"Origin": "null"}, 403, "own pages"),
        ({"Content-Type": "text/plain"}, 403, "form"),
        ({"Host": "evil.example"}, 400, ""),
    ],
)
def test_a_write_without_the_token_from_another_origin_or_host_is_refused(
    served: tuple[Server, list[str]], change: dict[str, str | None], status: int, words: str
) -> None:
    s, accounts = served
    fields = {"csrf": csrf_token(s), "action": "add", "person": "Intruder", "accounts": "\n".join(accounts)}
    headers = form_headers(s)
    for k, v in change.items():
        target: dict[str, str] = fields if k == "csrf" else headers
        if v is None:
            target.pop(k, None)
        else:
            target[k] = v
    got, _, body = post_form(s, "/aliases", fields, headers)
    assert got == status and words in body
    assert "Intruder" not in s.get("/players")[2]  # nothing written


def test_only_a_post_writes(served: tuple[Server, list[str]]) -> None:
    s, _ = served
    status, _, _ = s.get("/aliases")
    assert status == 405


def test_a_write_from_the_page_makes_the_person_and_takes_accounts_out(served: tuple[Server, list[str]]) -> None:
    s, accounts = served
    person = "Me <b>x</b>"  # a hostile name: text on the page, never markup
    status, headers, _ = post_form(s, "/aliases", {"csrf": csrf_token(s), "action": "add", "person": person, "accounts": "\n".join(accounts)}, form_headers(s))
    assert status == 303 and headers["location"] == "/players#aliases"
    status, _, body = s.get("/players")
    assert status == 200
    assert "Me &lt;b&gt;x&lt;/b&gt;" in body and "<b>x</b>" not in body
    listed = body.split('<table id="alias-list">', 1)[1].split("</table>", 1)[0]
    assert all(a.replace("<", "&lt;").replace(">", "&gt;") in listed or a in listed for a in accounts)
    # a refusal of the rules is a 400 with hhtool alias's words: an account that is already the person's elsewhere
    status, _, body = post_form(s, "/aliases", {"csrf": csrf_token(s), "action": "add", "person": "Other", "accounts": accounts[0]}, form_headers(s))
    assert status == 400 and "already" in body
    status, _, _ = post_form(s, "/aliases", {"csrf": csrf_token(s), "action": "remove", "accounts": accounts[-1]}, form_headers(s))
    assert status == 303
    listed = s.get("/players")[2].split('<table id="alias-list">', 1)[1].split("</table>", 1)[0]
    assert listed.split("<tbody>", 1)[1].count("<tr>") == len(accounts) - 1


@needs_browser
def test_the_form_writes_from_a_real_browser(served: tuple[Server, list[str]], tmp_path: Path) -> None:
    """Real headless Chromium fills the page's form and sends it: its Origin and the page's token pass, the person shows."""
    from selenium.webdriver.common.by import By

    s, _ = served
    driver = headless_chromium(tmp_path / "profile")
    try:
        driver.get(s.url + "players")
        form = driver.find_element(By.ID, "alias-form")
        form.find_element(By.NAME, "person").send_keys("Browser person")
        form.find_element(By.NAME, "accounts").send_keys("carol@Vela")
        form.find_element(By.CSS_SELECTOR, 'button[value="add"]').click()
        from selenium.webdriver.support.expected_conditions import staleness_of
        from selenium.webdriver.support.ui import WebDriverWait

        # the 303 back to the grid: wait for the new page (the form's page may have a list already, of another test's
        # person: waiting for the list alone could read it as the page goes)
        WebDriverWait(driver, 20).until(staleness_of(form))
        listed = WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "alias-list"))[0].text
        assert "Browser person" in listed and "carol@Vela" in listed
        ARTIFACTS.mkdir(exist_ok=True)
        driver.find_element(By.ID, "aliases").location_once_scrolled_into_view
        driver.save_screenshot(str(ARTIFACTS / "serve-aliases.png"))
    finally:
        driver.quit()
