"""The replayer's text pane in a real headless Chromium: a line number of any width sits on its line (issue 41).

A hand far down its file (``first_line`` 10,000 and more, as in a long
session's file) is drawn by the replayer as the report draws it (the
fragment with its assets inline) and as ``serve`` does (the assets as
files beside the page); in each, every line's number and the start of
its text share one line box: the number's top is the text's top, the
text starts right of the number, the number is not clipped, and a short
line is one line high.  Five digits used to wrap the text below its
number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hhtool.replay.steps import steps_from_text
from hhtool.replayer.html import asset, replayer_html
from tests.browser import CHROMEDRIVER, CHROMIUM, MISSING, headless_chromium
from tests.sample_paths import SAMPLES

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)

FIRST_LINES = (1, 12_345, 99_990, 1_234_567)  # one and two digits; five; five turning six within the hand; seven

MEASURE = """
const out = [];
for (const line of arguments[0].querySelectorAll('.hhr-line')) {
  const no = line.querySelector('.hhr-no'), text = no.nextSibling;
  const n = no.getBoundingClientRect(), row = line.getBoundingClientRect();
  let t = null;
  if (text && text.textContent.trim()) {
    const r = document.createRange();
    r.setStart(text, 0); r.setEnd(text, 1);
    const first = r.getClientRects()[0];
    t = {top: first.top, left: first.left};
  }
  out.push({line: line.dataset.line, no: no.textContent, no_top: n.top, no_right: n.right, no_clipped: no.scrollWidth > no.clientWidth + 0.5,
            no_height: n.height, row_height: row.height, text: t, chars: text ? text.textContent.length : 0,
            one: parseFloat(getComputedStyle(line).lineHeight)});
}
return out;
"""


def hand_text() -> str:
    """The format example: one hand, its lines long and short."""
    return (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8").rstrip("\n") + "\n"


def page(tmp: Path, first: int, *, inline: bool) -> Path:
    steps = steps_from_text(hand_text(), first_line=first)
    if inline:  # the report: one file, the assets inline
        body = replayer_html(steps)
        head = ""
    else:  # serve's hand page: the same fragment, the assets as files
        body = replayer_html(steps, assets=False)
        for name in ("replayer.css", "replayer.js"):
            (tmp / name).write_text(asset(name), encoding="utf-8")
        head = '<link rel="stylesheet" href="replayer.css"><script src="replayer.js" defer></script>'
    out = tmp / f"hand-{first}-{'inline' if inline else 'files'}.html"
    out.write_text(f"<!doctype html><html><head><meta charset=utf-8>{head}</head><body>{body}</body></html>", encoding="utf-8")
    return out


def check_lines(rows: list[dict[str, Any]], first: int, lines: int) -> None:
    assert [int(r["line"]) for r in rows] == list(range(first, first + lines))
    assert all(r["no"] == r["line"] for r in rows)
    rights = {round(r["no_right"], 1) for r in rows}
    assert len(rights) == 1, rights  # one gutter: the numbers right-aligned in it
    for r in rows:
        assert not r["no_clipped"], r
        assert r["no_height"] <= r["one"] + 1, r  # the number itself on one line
        if r["text"] is None:
            continue
        assert abs(r["text"]["top"] - r["no_top"]) < r["one"] / 2, r  # the text starts on the number's line (a wrap is a whole line lower)
        assert r["text"]["left"] >= r["no_right"] - 0.5, r  # right of the number, not over it
        if r["chars"] <= 30:  # a short line is one line high
            assert r["row_height"] < 1.5 * r["one"], r


@pytest.mark.parametrize("inline", [True, False], ids=["report", "serve"])
@pytest.mark.parametrize("first", FIRST_LINES)
def test_line_numbers_of_any_width_stay_on_their_line(tmp_path: Path, first: int, inline: bool) -> None:
    from selenium.webdriver.common.by import By

    lines = hand_text().removesuffix("\n").count("\n") + 1
    path = page(tmp_path, first, inline=inline)
    driver = headless_chromium(tmp_path / "profile")
    try:
        for width in (1400, 800):  # side by side, and one above the other
            driver.set_window_size(width, 1000)
            driver.get(path.as_uri())
            root = driver.find_element(By.CSS_SELECTOR, ".hhr")
            rows = driver.execute_script(MEASURE, root)
            check_lines(rows, first, lines)
    finally:
        driver.quit()
