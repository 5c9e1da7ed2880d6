"""``--verdicts``: invalid and error hands are left out of the figures by default, and the output says how many (issue 41).

docs/stats.md, "Verdicts": an invalid hand broke the rules, so its money
cannot be trusted; the default counts ok and disputed hands, and the text
says how many hands it left out and how to count them.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.simulate import make_config, simulate_text
from hhtool.stats import Filters, compute
from hhtool.store.importer import import_paths


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("verdicts")
    (tmp / "hh").mkdir()
    config = make_config(rules="classic", structure="fixed", players=5, seed=7, faults=0.4)
    text, _ = simulate_text(config, 120)
    (tmp / "hh" / "f.txt").write_text(text, encoding="utf-8")
    db = tmp / "f.duckdb"
    import_paths([str(tmp / "hh")], db, workers=0)
    return db


def _verdicts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {str(v): int(n) for v, n in con.execute("SELECT verdict, count(*) FROM hands GROUP BY 1").fetchall()}
    finally:
        con.close()


def test_default_leaves_invalid_hands_out_and_says_so(faulty: Path) -> None:
    counts = _verdicts(faulty)
    bad = counts.get("invalid", 0) + counts.get("error", 0)
    assert counts.get("invalid", 0) > 0 and counts.get("ok", 0) > 0
    runner = CliRunner()
    text = runner.invoke(app, ["stats", "--db", str(faulty)])
    assert text.exit_code == 0, text.output
    assert f"{bad:,} hands left out by --verdicts (invalid, error):\n`--verdicts all` counts them\n" in text.stdout
    every = runner.invoke(app, ["stats", "--db", str(faulty), "--verdicts", "all"])
    assert every.exit_code == 0 and "left out" not in every.stdout
    doc = json.loads(runner.invoke(app, ["stats", "--db", str(faulty), "--format", "json"]).stdout)
    assert doc["verdicts"] == {"counted": ["ok", "disputed"], "left_out": bad}
    all_doc = json.loads(runner.invoke(app, ["stats", "--db", str(faulty), "--format", "json", "--verdicts", "ok,disputed,invalid,error"]).stdout)
    assert all_doc["verdicts"]["left_out"] == 0
    # the figures: each player's hands are those of the counted verdicts
    default, everything = compute(faulty), compute(faulty, Filters(verdicts=("ok", "disputed", "invalid", "error")))
    counted = sum(int(default.row(p)["hands"]) for p in default.players())
    total = sum(int(everything.row(p)["hands"]) for p in everything.players())
    con = duckdb.connect(str(faulty), read_only=True)
    try:
        (want,) = con.execute(
            "SELECT count(*) FROM seats s JOIN hands h USING (hand_key) WHERE s.dealt_in AND h.verdict IN ('ok', 'disputed')"
        ).fetchall()[0]
        (want_all,) = con.execute("SELECT count(*) FROM seats WHERE dealt_in").fetchall()[0]
    finally:
        con.close()
    assert (counted, total) == (want, want_all) and counted < total
    errors = compute(faulty, Filters(verdicts=("error",)))  # a verdict alone, through the totals' verdict dimension
    invalid = compute(faulty, Filters(verdicts=("invalid",)))
    alone = sum(int(r.row(p)["hands"]) for r in (invalid, errors) for p in r.players())
    assert alone == total - counted

def test_a_verdict_that_is_none_is_a_usage_error(faulty: Path) -> None:
    out = CliRunner().invoke(app, ["stats", "--db", str(faulty), "--verdicts", "fine"])
    assert out.exit_code == 2
