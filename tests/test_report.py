"""The HTML report: self-contained, escaped, and rendered by a real headless Chromium."""

from __future__ import annotations

import itertools
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.stats.points import MAX_POINTS
from hhtool.stats.report import SECTIONS
from hhtool.stats.report_data import big_bet_lines
from hhtool.store.importer import import_paths
from tests.storegen import TEMPLATE, hand

XSS = "<script>alert(1)</script>"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or "") if p and Path(p).exists()), None)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    src = tmp / "hh"
    src.mkdir()
    # the example hand with carol renamed; a copy of it; and one the audit disputes (bob's win paid to alice).
    xss = TEMPLATE.replace("carol", XSS)
    disputed = hand("D-1").replace("bob collected €10.90 from pot", "alice collected €10.90 from pot")
    disputed = disputed.replace("and lost with two pair", "and won (€10.90) with two pair").replace(
        "and won (€10.90) with two pair, Queens and Jacks\nSeat 3", "and lost with two pair, Queens and Jacks\nSeat 3"
    )
    (src / "a.txt").write_text("\n".join([xss, hand("R-2"), disputed]), encoding="utf-8")
    db = tmp / "r.duckdb"
    import_paths([str(src)], db, workers=0)
    out = tmp / "report.html"
    res = CliRunner().invoke(app, ["report", "--db", str(db), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_self_contained_and_escaped(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    for _, heading in SECTIONS:
        assert f"<h2>{heading}</h2>" in text
    assert XSS not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&amp;lt;script" not in text  # escaped once, not twice
    # no network: no external script or stylesheet
    assert not re.search(r"<script[^>]+src=", text)
    # the disputed hand is listed with its reason
    audit = text[text.index('<section id="audit">') :]
    assert "D-1" in audit and "disputed" in audit


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium); .ci/run installs it")
def test_opens_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report.png"
    base = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr", "--v=0",
        "--virtual-time-budget=5000",
    ]
    dom = subprocess.run(
        base + [f"--user-data-dir={tmp_path / 'p1'}", "--dump-dom", report.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    for _, heading in SECTIONS:
        assert f"<h2>{heading}</h2>" in dom.stdout
    assert "main-svg" in dom.stdout  # plotly ran and drew its figures
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.stdout
    assert XSS not in dom.stdout
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not [line for line in console if re.search(r"error|uncaught", line, re.I)], console
    snap = subprocess.run(
        base + [f"--user-data-dir={tmp_path / 'p2'}", "--window-size=1280,4000", f"--screenshot={shot}", report.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert snap.returncode == 0, snap.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 10_000


def test_winnings_lines_keep_the_extremes_and_the_big_hands() -> None:
    """A line of 50,000 hands keeps MAX_POINTS points at most: the first and the last, the deepest point and the
    one big loss (the hand and the one before it), each line its own."""
    import polars as pl

    n = 50_000
    rng = random.Random(7)
    steps = [rng.choice((-1.0, 1.0)) for _ in range(n)]
    steps[31_337] = -900.0
    d = pl.DataFrame({"big_bets": steps, "allin_big_bets": steps, "went_to_showdown": [i % 3 == 0 for i in range(n)]})
    lines = {name: (x, y) for name, x, y in big_bet_lines(d)}
    assert set(lines) == {"showdown", "non-showdown", "net", "all-in adjusted"}
    total = list(itertools.accumulate(steps))
    x, y = lines["net"]
    assert len(x) <= MAX_POINTS and x[0] == 1 and x[-1] == n and y[-1] == total[-1]
    assert min(y) == min(total) and max(y) == max(total)
    assert {31_337, 31_338} <= set(x)  # hand numbers from 1: the big loss and the point before it
    assert all(y[i] == total[x[i] - 1] for i in range(len(x)))  # exact totals at the hands kept
    assert big_bet_lines(d.head(5))[2] == ("net", [1, 2, 3, 4, 5], total[:5])

