"""Issue 41: the report at a 1,400 px wide window in real headless Chromium, with the longest and most hostile names,
a long file name and long reasons: the page never scrolls sideways, no cell's text is cut, a table wider than
the page scrolls in its own box, and the disputed hands' table (2,401 px before) fits the page by wrapping."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import headless_chromium, needs_browser
from tests.servegen import ARTIFACTS, hhtool
from tests.test_amounts_grouped import LONG, LONG_FILE, make_wide_db

WIDTH = 1400

_MEASURE = r"""
const doc = document.documentElement;
const tables = Array.from(document.querySelectorAll("table")).map(function (t) {
  const box = t.parentElement, section = t.closest("section");
  const cut = Array.from(t.querySelectorAll("td,th")).filter(function (c) { return c.scrollWidth > c.clientWidth + 1; })
    .map(function (c) { return c.textContent.slice(0, 60); });
  return {section: section ? section.id : "", width: t.getBoundingClientRect().width, boxClient: box.clientWidth,
          boxScroll: box.scrollWidth, boxRight: box.getBoundingClientRect().right, overflowX: getComputedStyle(box).overflowX,
          cut: cut, text: t.textContent};
});
return {scroll: doc.scrollWidth, client: doc.clientWidth, tables: tables};
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("widths")
    db = make_wide_db(tmp)
    out = tmp / "report.html"
    r = hhtool("report", "--db", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def measured(report: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"), WIDTH, 1000)
    try:
        driver.get(report.as_uri())
        m: dict[str, Any] = driver.execute_script(_MEASURE)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.execute_script("document.getElementById('audit').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / "report-widths-1400px-audit.png"))
        driver.execute_script("document.getElementById('stats').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / "report-widths-1400px-stats.png"))
        yield m
    finally:
        driver.quit()


@needs_browser
def test_the_page_never_scrolls_sideways(measured: dict[str, Any]) -> None:
    assert measured["client"] <= WIDTH
    assert measured["scroll"] <= measured["client"], measured["scroll"]


@needs_browser
def test_the_longest_names_and_texts_are_in_the_tables(measured: dict[str, Any]) -> None:
    """The data is what the test means: the long names in the statistics, the long file name among the disputed hands."""
    by = {t["section"]: t for t in measured["tables"]}
    assert all(name in by["stats"]["text"] for name in LONG)
    assert LONG_FILE in by["audit"]["text"] and "disputed" in by["audit"]["text"]


@needs_browser
def test_no_cell_is_cut_and_every_table_stays_in_its_box(measured: dict[str, Any]) -> None:
    assert len(measured["tables"]) >= 9
    for t in measured["tables"]:
        assert not t["cut"], (t["section"], t["cut"][:3])  # no ellipsis, no hidden overflow: every cell's text shows whole
        assert t["boxRight"] <= measured["client"] + 0.5, (t["section"], t["boxRight"])  # the box within the page
        if t["boxScroll"] > t["boxClient"]:  # wider than the page: it scrolls in its own box
            assert t["overflowX"] in ("auto", "scroll"), t["section"]


@needs_browser
def test_the_disputed_hands_fit_the_page_by_wrapping(measured: dict[str, Any]) -> None:
    """Its reasons and file names wrap (they made it 2,401 px wide): it needs no sideways scroll at all."""
    (audit,) = [t for t in measured["tables"] if t["section"] == "audit"]
    assert audit["boxScroll"] <= audit["boxClient"], audit["width"]
    assert audit["width"] <= WIDTH
