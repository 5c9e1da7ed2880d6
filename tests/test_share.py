"""``hhtool share``: a hand as one self-contained HTML file or as forum text, anonymised on request.

The anonymised output is checked two ways: grepped for every string it
removed (names, site, table, hand id, date and time, a chat line that
names them), and compared with the output of the same hand whose names,
site, table, id and time are all different, some of them the game's own
words (a player named ``Vela``, ``Ks``, ``10``, ``pot``): the two files must
be byte for byte the same, so nothing of what was removed can be in either.
The shared file is opened in real headless Chromium from a ``file://`` URL
with the network off and stepped to the showdown with its buttons.
"""

from __future__ import annotations

import json
import re
import shutil
from contextlib import chdir
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from hhtool.history.parse import parse_text
from hhtool.history.write import write_hand
from hhtool.replayer.forum import forum_text
from hhtool.textsafe import columns
from hhtool.replayer.page import share_html
from hhtool.replayer.share import ShareError, share, share_json
from tests.browser import needs_browser
from tests.inprocess import hhtool
from tests.sample_paths import GOOD, ROOT, SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
ARTIFACTS = ROOT / "test-artifacts" / "share"
SCRIPT = "</script><script>alert(1)</script>"
ESCAPE = "\x1b]0;owned\x07\x1b[2J"
BIDI = "evil\u202eoof"


def variant(
    names: dict[str, str],
    *,
    site: str = "Vela",
    table: str = "Vela 1",
    hand_id: str = "C-1001",
    started: datetime | None = None,
    chat: str | None = None,
    text: str = EXAMPLE,
) -> str:
    """The format example with its players, site, table, id and time changed (through the writer: no substring touched), and a chat line."""
    hand = parse_text(text)

    def ren(e: Any) -> Any:
        name = getattr(e, "player", None)
        return replace(e, player=names[name]) if name in names else e

    header = replace(hand.header, site=site, hand_id=hand_id, started=started or hand.header.started)
    hand = replace(
        hand,
        header=header,
        table=replace(hand.table, name=table),
        seats=tuple(ren(s) for s in hand.seats),
        events=tuple(ren(e) for e in hand.events),
        summary=replace(hand.summary, outcomes=tuple(ren(o) for o in hand.summary.outcomes)),
    )
    out = write_hand(hand)
    if chat is not None:
        carol = names.get("carol", "carol")
        out = out.replace(f"{carol}: folds\n", f'{carol}: folds\n{carol} said, "{chat}"\n', 1)
    return out


def outputs(text: str, **kwargs: Any) -> tuple[str, str]:
    """The HTML file and the forum text of ``text`` shared with ``kwargs``."""
    shared = share(text, **kwargs)
    return share_html(shared), forum_text(shared)


DISTINCT = {"alice": "Zorblax", "bob": "Quentin Tarantula", "carol": "Mxyzptlk", "dave": "Wobbegong"}
WHEN = datetime(2031, 7, 19, 4, 5, 6, tzinfo=timezone.utc)


def test_the_anonymised_file_and_text_hold_no_removed_string() -> None:
    text = variant(DISTINCT, site="Zyxsite", table="Wombat Lounge", hand_id="QX-77731", started=WHEN, chat="gg Zorblax, Zyxsite rules")
    shared = share(text, anonymise=True)
    removed = set(shared.removed)
    assert set(DISTINCT.values()) | {"Zyxsite", "Wombat Lounge", "QX-77731", "2031/07/19", "2031-07-19", "04:05:06"} <= removed
    html, forum = share_html(shared), forum_text(shared)
    for out in (html, forum):
        for gone in [*removed, "Zorblax", "Zyxsite", "gg ", "2031", "04:05", "Lounge", "77731"]:
            assert gone not in out, gone
    assert shared.steps.replay.verdict == "ok"
    assert [p["name"] for p in json.loads(_data(html))["seat_table"][:4]] == ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]
    # the same hand not anonymised names them all
    plain = share_html(share(text))
    assert all(s in plain for s in ("Zorblax", "Zyxsite", "Wombat Lounge", "QX-77731"))


def test_the_anonymised_output_does_not_depend_on_what_it_removes() -> None:
    """Two hands that differ only in names, site, table, id, time and chat give the same bytes: nothing removed survives.

    The second hand's players are named like the game's own words: the site
    (``Vela``, which is also the vela card's line), a card (``Ks``, the vela
    card itself), a number that is in amounts (``10``, in €10.90) and a word
    of the sentences (``pot``): each is replaced where it is a name, and the
    vela, the card and the amounts stay as they were.
    """
    plain = variant({"alice": "ann", "bob": "ben", "carol": "cat", "dave": "dan"}, chat="hello")
    tricky = variant(
        {"alice": "Vela", "bob": "Ks", "carol": "10", "dave": "pot"}, site="Ks", table="10", hand_id="Z-9", started=WHEN, chat="Vela Ks 10 pot"
    )
    a, b = outputs(plain, anonymise=True), outputs(tricky, anonymise=True)
    assert a == b
    html, forum = b
    assert "Vela [Ks]" in html and "€10.90" in html and "*** VELA *** K♠, pot €9.40" in forum
    assert re.findall(r"Vela(?! \[Ks\])", html) == []  # the summary's vela line is the only Vela: no name, no site
    assert "Seat 2 collects €10.90 from the pot" in forum and "pot €11.40" in forum


def test_the_own_viewer_is_the_hero_and_keeps_the_name() -> None:
    text = next(h for h in _hands(SAMPLES / "010_classic_own_view_three_hands.txt") if "C-2002" in h)
    shared = share(text, anonymise=True)
    assert shared.hero == "alice"
    html, forum = share_html(shared), forum_text(shared)
    for out in (html, forum):
        assert "alice" in out
        for gone in ("bob", "carol", "Vela 2", "C-2002", "2026", "19:02"):
            assert gone not in out, gone
    # the opponents' hole cards are backs until shown; the viewer's are known
    assert "  Seat 3: (??) J♣\n" in forum and "  alice: (T♦) J♥\n" in forum
    # --hero names another, --no-hero nobody
    assert share(text, anonymise=True, hero="bob").hero == "bob"
    assert "alice" not in forum_text(share(text, anonymise=True, no_hero=True))
    with pytest.raises(ShareError, match="no player 'zed'"):
        share(text, anonymise=True, hero="zed")


def test_a_hero_named_like_a_seat_takes_no_other_players_label() -> None:
    """No history can seat a ``Seat 3`` (its line would read as a seat line), but a label is never given twice whatever the names."""
    from hhtool.replayer.share import anonymised_hand

    hand = parse_text(EXAMPLE)
    hand = replace(hand, seats=tuple(replace(s, player="Seat 3") if s.player == "alice" else s for s in hand.seats))
    _, names, labels = anonymised_hand(hand, "Seat 3")
    assert names == {"bob": "Seat 2", "carol": "Seat #3", "dave": "Seat 4", "alice": "Player 1"}  # alice: in the events only, here
    assert sorted(labels.values()) == sorted(names.values())


def test_hostile_names_are_inert_in_html_and_text() -> None:
    text = variant({"alice": SCRIPT, "bob": ESCAPE, "carol": BIDI})
    options: list[dict[str, Any]] = [{}, {"anonymise": True, "hero": ESCAPE}]
    for kwargs in options:
        html, forum = outputs(text, **kwargs)
        assert SCRIPT not in html and "<script>alert" not in html
        assert html.count("</script>") == 2  # the data element's and the replayer's own
        for raw in ("\x1b", "\x07", "\u202e"):
            assert raw not in html and raw not in forum
        assert "\\x1b]0;owned\\x07\\x1b[2J" in forum
    html, forum = outputs(text)
    assert "\\u202e" in forum and SCRIPT in forum  # text is text: the name as written, its controls shown


def test_text_lines_fit_80_columns() -> None:
    long_name = "ｗｉｄｅ名前" * 8 + "x" * 120  # East Asian wide characters, then a word wider than a line
    hands = [h for p in GOOD for h in _hands(p)] + [variant({"alice": long_name, "bob": "b" * 200})]
    for text in hands:
        for anonymise in (False, True):
            forum = forum_text(share(text, anonymise=anonymise))
            widths = [columns(line) for line in forum.splitlines()]
            assert max(widths) <= 80, (text[:60], max(widths))
    forum = forum_text(share(hands[-1]))
    assert "".join(line.strip() for line in forum.splitlines() if "ｗｉｄｅ" in line or line.strip().startswith("x")).count("x") >= 120


def test_the_forum_text_of_the_format_example() -> None:
    forum = forum_text(share(EXAMPLE))
    head = forum.split("\n\n")[0].splitlines()
    assert head == [
        "Telesina classic Fixed Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20",
        "Vela hand #C-1001 - table 'Vela 1' - 2026/11/29 18:00:00 UTC",
        "4 players, 6-max; the button is seat 4",
    ]
    for line in ("Antes of €0.10: alice, bob, carol, dave", "  alice: (Q♣) Q♠ 9♣ J♣ J♦", "alice raises €1.00 to €2.00",
                 "*** SHOWDOWN *** pot €11.40", "main pot €11.40, rake €0.50: bob €10.90", "hhtool's audit: ok"):
        assert f"\n{line}\n" in forum, line


def test_an_anonymised_hand_audits_as_its_original(tmp_path: Path) -> None:
    """Every hand of a simulated corpus with faults anonymises to the same verdict and findings as the original."""
    corpus = tmp_path / "faulty.txt"
    r = hhtool("simulate", "--hands", "60", "--faults", "0.5", "--seed", "11", "--jobs", "1", "--out", str(corpus))
    assert r.returncode == 0, r.stderr
    verdicts = set()
    for text in _hands(corpus):
        original = share(text)
        shared = share(text, anonymise=True)  # raises ShareError if it would audit otherwise
        assert shared.steps.replay.verdict == original.steps.replay.verdict
        assert [f.code for f in shared.steps.replay.findings] == [f.code for f in original.steps.replay.findings]
        verdicts.add(shared.steps.replay.verdict)
    assert verdicts == {"ok", "disputed", "invalid"}


def test_cli_writes_the_file_and_the_text(tmp_path: Path) -> None:
    out = tmp_path / "hand.html"
    with chdir(ROOT):
        r = hhtool("share", "sample_histories/000_format_example.txt", "--out", str(out))
        assert r.returncode == 0, r.stderr
        assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        r = hhtool("share", "sample_histories/010_classic_own_view_three_hands.txt", "--hand", "C-2003", "--format", "text", "--anonymise")
        assert r.returncode == 0 and "(hero)" in r.stdout and "bob" not in r.stdout
        text_out = tmp_path / "hand.txt"
        r = hhtool("share", "sample_histories/", "--hand", "I-3001", "--site", "Tavolo", "--format", "text", "--out", str(text_out))
        assert r.returncode == 0 and text_out.read_text(encoding="utf-8").startswith("Telesina italian")


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["sample_histories/000_format_example.txt", "--hand", "NOPE", "--format", "text"], 2, "no hand 'NOPE'"),
        (["sample_histories/010_classic_own_view_three_hands.txt", "--format", "text"], 2, "holds 3 hands"),
        (["sample_histories/000_format_example.txt"], 2, "--out FILE"),
        (["sample_histories/000_format_example.txt", "--format", "text", "--anonymise", "--hero", "zed"], 2, "no player 'zed'"),
        (["sample_histories/000_format_example.txt", "--format", "text", "--hero", "bob"], 2, "add --anonymise"),
        (["sample_histories/000_format_example.txt", "--format", "text", "--db", "x.duckdb"], 2, "not both"),
        (["no/such/file.txt", "--format", "text"], 2, "no/such/file.txt"),
        (["--format", "text"], 2, "which hand?"),
        (["sample_histories/000_format_example.txt", "--format", "pdf"], 2, "pdf"),
        (["sample_histories/broken/unknown_action.txt", "--format", "text"], 1, "cannot be read"),
    ],
)
def test_cli_exit_codes(args: list[str], code: int, said: str) -> None:
    with chdir(ROOT):
        r = hhtool("share", *args)
    assert r.returncode == code, (r.stdout, r.stderr)
    assert said in r.stderr + r.stdout


def test_a_stored_hand_is_shared_from_the_database(tmp_path: Path) -> None:
    from hhtool.api import import_paths, share_hand

    src = tmp_path / "hh"
    src.mkdir()
    shutil.copy(SAMPLES / "000_format_example.txt", src / "a.txt")
    (src / "b.txt").write_text(variant({}, site="Other"), encoding="utf-8")  # the same id at another site
    db = tmp_path / "h.duckdb"
    import_paths([str(src)], db, workers=0)
    r = hhtool("share", "--db", str(db), "--hand", "C-1001", "--format", "text")
    assert r.returncode == 2 and "2 sites hold a hand 'C-1001' (Other, Vela): choose one with --site NAME" in r.stderr
    r = hhtool("share", "--db", str(db), "--hand", "C-1001", "--site", "Vela", "--format", "text", "--anonymise")
    assert r.returncode == 0, r.stderr
    assert r.stdout == forum_text(share(EXAMPLE, anonymise=True))
    assert share_hand(db=db, hand_id="C-1001", site="Vela") == share_hand(SAMPLES / "000_format_example.txt")
    r = hhtool("share", "--db", str(db), "--hand", "C-9", "--format", "text")
    assert r.returncode == 2 and "no hand 'C-9'" in r.stderr
    r = hhtool("share", "--db", str(db), "--hand", "C-1001", "--site", "Vela", "--rooms", str(tmp_path), "--format", "text")
    assert r.returncode == 2 and "--rooms is for a FILE" in r.stderr


def test_the_file_fetches_nothing() -> None:
    html = share_html(share(EXAMPLE, anonymise=True))
    assert not re.search(r"\b(?:src|href|srcset|action|poster)\s*=", html, re.I)
    assert not re.search(r"url\(|@import|https?://(?!www\.w3)", html.replace('http-equiv="Content-Security-Policy"', ""), re.I)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None and "default-src 'none'" in policy.group(1) and "unsafe" not in policy.group(1)


SHOWN = """
const root = document.querySelector('.hhr');
return {step: root.dataset.step, say: root.querySelector('.hhr-say').innerText,
        title: root.querySelector('.hhr-title').innerText, sub: root.querySelector('.hhr-sub').innerText,
        street: [...root.querySelectorAll('.hhr-street.on')].map(b => b.dataset.street),
        names: [...root.querySelectorAll('.hhr-name')].map(n => n.title),
        table: getComputedStyle(root.querySelector('.hhr-table')).position,
        resources: performance.getEntriesByType('resource').length};
"""


@needs_browser
def test_the_shared_file_steps_to_the_showdown_offline_in_chromium(tmp_path: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    from tests.browser import headless_chromium

    text = variant({"alice": SCRIPT, "bob": "bob", "carol": "carol", "dave": "dave"})
    shared = share(text, anonymise=True, hero=SCRIPT)
    page = tmp_path / "hand.html"
    page.write_text(share_html(shared), encoding="utf-8")
    data = share_json(shared)  # what the page embeds: the names shown as their labels
    showdown = next(s["index"] for s in data["steps"] if s["kind"] == "showdown")
    driver = headless_chromium(tmp_path / "profile", 1280, 900)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
        driver.get(page.as_uri())
        got = driver.execute_script(SHOWN)
        assert got["step"] == "0" and got["table"] == "relative"  # the script ran and the style applied, under the page's policy
        assert got["title"] == "Telesina hand" and got["sub"] == "classic"
        assert got["names"] == [SCRIPT, "Seat 2", "Seat 3", "Seat 4"]
        forward = driver.find_element(By.CSS_SELECTOR, 'button[data-act="forward"]')
        for i in range(1, showdown + 1):
            forward.click()
            assert driver.execute_script(SHOWN)["say"] == data["steps"][i]["sentence"], i
        got = driver.execute_script(SHOWN)
        assert got["step"] == str(showdown) and got["street"] == ["showdown"] and got["say"] == "the showdown"
        forward.click()
        assert driver.execute_script(SHOWN)["say"] == "Seat 2 shows J♠ J♥ 8♦ Q♥ Q♦ (two pair, Queens and Jacks)"
        assert driver.execute_script(SHOWN)["resources"] == 0  # nothing was fetched
        try:
            driver.switch_to.alert
            raise AssertionError("an alert opened")
        except NoAlertPresentException:
            pass
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "share.png"))
    finally:
        driver.quit()


def _data(html: str) -> str:
    return html.split('class="hhr-data">', 1)[1].split("</script>", 1)[0]


def _hands(path: Path) -> list[str]:
    """Each hand's text of a sample file."""
    import warnings

    from hhtool.history.reader import Cp1252Warning, split_chunks

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Cp1252Warning)
        items = list(split_chunks([path.read_bytes()], str(path)))
    return [item[1] + "\n" for item in items if isinstance(item, tuple) and isinstance(item[1], str)]


def test_docs_share_md_shows_what_the_command_prints() -> None:
    """docs/share.md: its ``>>>`` examples run, and its forum text is the command's, line for line (``...`` marks a cut)."""
    import doctest

    doc = (ROOT / "docs" / "share.md").read_text(encoding="utf-8")
    with chdir(ROOT):
        parser = doctest.DocTestParser()
        fenced = re.sub(r"^```.*$", "", doc, flags=re.M)  # a fence ends an example's expected output
        test = parser.get_doctest(fenced, {}, "share.md", str(ROOT / "docs" / "share.md"), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0 and runner.tries >= 3
        block = doc.split("$ hhtool share sample_histories/000_format_example.txt --format text\n", 1)[1].split("```", 1)[0]
        r = hhtool("share", "sample_histories/000_format_example.txt", "--format", "text")
    parts = [p.strip("\n") for p in block.split("...\n")]
    assert len(parts) == 2 and r.stdout.startswith(parts[0] + "\n") and r.stdout.endswith(parts[1] + "\n")
