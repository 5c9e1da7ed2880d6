"""The replayer opens at the step of a line: ``/hands/SITE/HAND_ID#line=N`` (docs/replayer.md, "Opening at a line").

The integrity dossier links each decision this way.  On the real ``hhtool serve`` in real headless Chromium,
the format example's hand opens at the first step of the line asked (the line lit in the text, the step's
sentence shown), a line that is no step at the step before it, a line outside the hand at the first step;
another ``#line=`` on the same page moves it.  Before, every address opened at the first step.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hhtool.replay.steps import HandSteps, steps_from_text
from tests.browser import headless_chromium, needs_browser
from tests.sample_paths import SAMPLES
from tests.servegen import Server, hhtool

EXAMPLE = SAMPLES / "000_format_example.txt"

SHOWN = """
const root = document.querySelector('.hhr');
const line = root.querySelector('.hhr-line.current');
return {step: root.dataset.step, line: line ? line.dataset.line : null, say: root.querySelector('.hhr-say').innerText,
        top: root.getBoundingClientRect().top};
"""


@pytest.fixture(scope="module")
def steps() -> HandSteps:
    return steps_from_text(EXAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("line")
    db = tmp / "line.duckdb"
    r = hhtool("import", str(EXAMPLE), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = headless_chromium(tmp_path_factory.mktemp("profile"), 1400, 1000)
    try:
        yield driver
    finally:
        driver.quit()


@needs_browser
def test_an_address_with_a_line_opens_the_replayer_at_its_step(server: Server, browser: Any, steps: HandSteps) -> None:
    def open_at(fragment: str) -> dict[str, Any]:
        browser.get("about:blank")  # a new load each time, not a fragment change of the same page
        browser.get(server.url + "hands/Vela/C-1001" + fragment)
        return browser.execute_script(SHOWN)  # type: ignore[no-any-return]

    by_line: dict[int, Any] = {}
    for s in steps.steps:
        by_line.setdefault(s.line, s)
    bet = by_line[35]
    assert bet.sentence == "alice bets €1.00"
    got = open_at("#line=35")
    assert got["step"] == str(bet.index) and got["line"] == "35" and got["say"] == bet.sentence
    assert 0 <= got["top"] < 50 < open_at("")["top"]  # scrolled to the replayer (as far as the page's end allows)

    # each action line: its own step
    for s in steps.steps:
        if s.kind == "action" and s.line in (16, 28, 42, 45):
            got = open_at(f"#line={s.line}")
            assert (got["step"], got["line"], got["say"]) == (str(s.index), str(s.line), s.sentence)

    # a line that is no step (the table line of the header): the nearest step before it, the start
    assert 2 not in by_line
    assert open_at("#line=2")["step"] == "0"
    # outside the hand, or no line: the first step, as before
    assert open_at("#line=999")["step"] == "0"
    assert open_at("#other")["step"] == "0"
    assert open_at("")["step"] == "0"


@needs_browser
def test_a_new_line_on_the_same_page_moves_the_replayer(server: Server, browser: Any, steps: HandSteps) -> None:
    browser.get("about:blank")
    browser.get(server.url + "hands/Vela/C-1001#line=16")
    first = browser.execute_script(SHOWN)
    assert first["line"] == "16" and first["say"] == "alice brings in for €0.20"
    browser.execute_script("window.location.hash = 'line=41'")
    got = browser.execute_script(SHOWN)
    want = next(s for s in steps.steps if s.line == 41)
    assert (got["step"], got["line"], got["say"]) == (str(want.index), "41", want.sentence)
