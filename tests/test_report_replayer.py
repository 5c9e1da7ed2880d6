"""The replayer in ``hhtool report``, through a real headless Chromium driven by Selenium.

A disputed hand whose players are named ``<script>alert(1)</script>`` and
``'; DROP TABLE hands; --`` is imported with the samples and a second
disputed hand by the real ``hhtool`` processes; the report's replayer is
stepped to the finding with the button and with the arrow key, the page
checked at every step (the pot, a stack, the highlighted line, the
finding), a street jumped to and a step taken back.  Screenshots of the
start, each street, the finding and each jump are kept under
``test-artifacts/replayer/``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hhtool.replay.steps import HandSteps, steps_from_text
from tests.browser import CHROMEDRIVER, CHROMIUM, MISSING, headless_chromium
from tests.sample_paths import GOOD, SAMPLES
from tests.test_web_replayer import unpacked

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "replayer"
HHTOOL = Path(sys.executable).with_name("hhtool")
SCRIPT, SQL = "<script>alert(1)</script>", "'; DROP TABLE hands; --"


def disputed_text() -> str:
    """The format example paid to alice instead of bob (a wrong_winner), alice named SCRIPT and bob SQL."""
    text = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
    text = text.replace("C-1001", "X-1").replace("bob collected €10.90 from pot", "alice collected €10.90 from pot")
    text = text.replace("and lost with two pair", "and won (€10.90) with two pair").replace(
        "and won (€10.90) with two pair, Queens and Jacks\nSeat 3", "and lost with two pair, Queens and Jacks\nSeat 3"
    )
    return re.sub(r"\bbob\b", SQL, re.sub(r"\balice\b", SCRIPT, text))


def second_disputed() -> str:
    """The side-pot sample with the main pot paid to Luca instead of Sofia."""
    text = (SAMPLES / "030_italian_no_limit_side_pots.txt").read_text(encoding="utf-8")
    return text.replace("I-3001", "X-2").replace("Sofia collected 6,100 from main pot", "Luca collected 6,100 from main pot")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HHTOOL), *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, HandSteps]:
    tmp = tmp_path_factory.mktemp("replayer")
    src = tmp / "hh"
    src.mkdir()
    for p in GOOD:
        shutil.copy(p, src / p.name)
    (src / "x1.txt").write_text(disputed_text(), encoding="utf-8")
    (src / "x2.txt").write_text(second_disputed(), encoding="utf-8")
    db = tmp / "r.duckdb"
    res = run("import", "--db", str(db), str(src))
    assert res.returncode == 0 and "2 disputed" in res.stdout, res.stdout + res.stderr
    out = tmp / "report.html"
    res = run("report", "--db", str(db), "--out", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    text = (src / "x1.txt").read_text(encoding="utf-8")
    return out, steps_from_text(text)


def test_the_report_embeds_a_replayer_for_each_disputed_hand(report: tuple[Path, HandSteps]) -> None:
    out, steps = report
    html = out.read_text(encoding="utf-8")
    assert html.count('<div class="hhr"') == 2
    assert "a replayer for the 2 most recent of the 2 disputed or invalid hands" in html
    assert SCRIPT not in html and "http://" not in html.split("<script type=\"text/javascript\">", 1)[0]
    embedded = [json.loads(m) for m in re.findall(r'class="hhr-data">(.*?)</script>', html)]
    assert [d["hand_id"] for d in embedded] == ["X-1", "X-2"] or [d["hand_id"] for d in embedded] == ["X-2", "X-1"]
    x1 = next(d for d in embedded if d["hand_id"] == "X-1")
    assert unpacked(x1) == json.loads(json.dumps(steps.to_json()))
    assert x1["verdict"] == "disputed"


SHOWN = """
const root = arguments[0], one = css => root.querySelector(css);
const stacks = {};
for (const seat of root.querySelectorAll('.hhr-seat')) stacks[seat.dataset.name] = seat.querySelector('.hhr-stack').innerText;
const line = one('.hhr-line.current');
return {step: root.dataset.step, stepno: one('.hhr-stepno').innerText, pot: one('.hhr-pot').innerText, stacks: stacks,
        line: line.dataset.line, line_text: line.innerText, say: one('.hhr-say').innerText,
        findings: [...root.querySelectorAll('.hhr-finding')].map(f => f.innerText)};
"""


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)
def test_step_to_the_finding_in_a_real_browser(report: tuple[Path, HandSteps], tmp_path: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out, hs = report
    data = hs.to_json()
    target = next(s for s in data["steps"] if s["findings"])
    assert target["findings"][0]["code"] == "wrong_winner" and target["kind"] == "collect"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):  # the screenshots of this run only
        old.unlink()
    driver = headless_chromium(tmp_path / "profile")
    try:
        driver.get(out.as_uri())
        details = [d for d in driver.find_elements(By.CSS_SELECTOR, "details.replay") if "X-1" in d.text]
        assert len(details) == 1
        other = next(d for d in driver.find_elements(By.CSS_SELECTOR, "details.replay") if "X-2" in d.text)
        details[0].find_element(By.TAG_NAME, "summary").click()
        root = details[0].find_element(By.CSS_SELECTOR, ".hhr")
        other_root = other.find_element(By.CSS_SELECTOR, ".hhr")

        def q(css: str) -> Any:
            return root.find_element(By.CSS_SELECTOR, css)

        def stack_of(name: str) -> str:
            return str(shown()["stacks"][name])

        def shown() -> dict[str, Any]:
            """What the replayer shows, read in one round trip to the browser (a dozen element look-ups a step took a second)."""
            return driver.execute_script(SHOWN, root)  # type: ignore[no-any-return]

        # every step is checked; the screenshots are of the states a reader looks at (the start, the streets, the
        # finding, the jumps), not of every step: an element screenshot of the report's page costs about 0.15 s
        shots = {0, target["index"], *(s["step"] for s in data["streets"])}

        def check(i: int, shot: str | None) -> None:
            step = data["steps"][i]
            got = shown()
            seat = next(p for p in step["seats"] if p["name"] == SCRIPT)
            assert got == {
                "step": str(i),
                "stepno": f"step {i + 1} of {len(data['steps'])}",
                "pot": f"pot {step['pot']['text']}",
                "stacks": {**got["stacks"], SCRIPT: seat["stack"]["text"]},
                "line": str(step["line"]),
                "line_text": got["line_text"],
                "say": step["sentence"],
                "findings": [f"{f['code']} ({f['severity']}) line {f['line']}: {f['message']}" for f in step["findings"]],
            }, i
            assert got["line_text"].endswith(step["text"]), (i, got["line_text"])
            if shot is not None:
                driver.execute_script("arguments[0].scrollIntoView()", root)  # all of it in the window, its finding too
                root.screenshot(str(ARTIFACTS / f"{shot}.png"))  # the replayer itself

        check(0, "button-00")
        for i in range(1, target["index"] + 1):
            q('button[data-act="forward"]').click()
            check(i, f"button-{i:02d}" if i in shots else None)
        # the finding, as a floor manager reads it: the pot paid to the hostile-named player
        assert target["pot"]["text"] == "€0.50"
        assert stack_of(SCRIPT) == "€25.80"  # €20.00 less the €5.10 put in, plus the €10.90 the history paid
        finding = shown()["findings"][0]
        assert finding == f"wrong_winner (error) line 50: the rules award the pot to {SQL}; the history pays {SCRIPT} (RULES.md §7)"
        assert "current" in q(f'.hhr-line[data-line="{target["line"]}"]').get_attribute("class")
        assert other_root.get_attribute("data-step") == "0"  # the other replayer did not move

        q('button[data-act="first"]').click()
        check(0, "keys-00")
        for i in range(1, target["index"] + 1):
            root.send_keys(Keys.ARROW_RIGHT)
            check(i, f"keys-{i:02d}" if i == target["index"] else None)
        assert other_root.get_attribute("data-step") == "0"

        third = next(s["step"] for s in data["streets"] if s["street"] == "3rd")
        q('button[data-street="3rd"]').click()
        check(third, "street-3rd")
        assert q(".hhr-line.current").text.endswith("*** 3rd STREET ***")
        q('button[data-act="back"]').click()
        check(third - 1, "street-3rd-back")
        root.send_keys(Keys.ARROW_LEFT)
        check(third - 2, "street-3rd-back-key")

        # the hostile names are text: visible, and nothing ran
        names = [n.text for n in root.find_elements(By.CSS_SELECTOR, ".hhr-name")]
        assert any(SCRIPT in n for n in names) and any(SQL in n for n in names)
        try:
            driver.switch_to.alert
            raise AssertionError("an alert opened")
        except NoAlertPresentException:
            pass
        assert not driver.execute_script("return [...document.scripts].some(s => s.textContent.trim() === 'alert(1)')")

        driver.set_window_size(800, 1000)
        q('button[data-act="last"]').click()
        check(len(data["steps"]) - 1, "last-800px")
        assert q(".hhr-say").text.startswith("verdict: disputed. The pot was paid to")
        q('button[data-act="back"]').click()
        check(len(data["steps"]) - 2, "result-800px")
        result = q(".hhr-result").text
        assert result.startswith(f"main pot €11.40, rake €0.50: {SQL} €10.90\nboth hold two pair, Queens and Jacks, and {SQL}'s Q♥ beats")
        width = driver.execute_script("return arguments[0].getBoundingClientRect().width", root)
        assert width <= 800
    finally:
        driver.quit()
