"""Statistics and report benchmark: every statistic for every player, and the HTML report.

Run: ``python bench/stats.py [--hands 1000000]``.  Never a test.

The database is built once by ``hhtool simulate`` and ``hhtool import`` (the
input generator of ``bench/import.py``) and cached under ``bench/.cache/``;
building a million hands takes a while (the import's own rate, see
docs/performance.md), so smaller sizes are accepted and reported as such.
Then, timed: :func:`hhtool.stats.compute` (every statistic, every player)
and :func:`hhtool.stats.report.write_report` (the whole HTML report).
Goals (issue 7): under 5 s and under 15 s on one million hands.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.stats import compute  # noqa: E402
from hhtool.stats.report import write_report  # noqa: E402


def database(hands: int) -> Path:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    files = max(2, min(20, hands // 10000))
    folder, _ = mod.make_input(hands, files)
    db = ROOT / "bench" / ".cache" / f"stats-{hands}.duckdb"
    if not db.exists():
        subprocess.run([sys.executable, "-m", "hhtool.cli", "import", str(folder), "--db", str(db)], cwd=ROOT, check=False)
    return db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1_000_000)
    args = ap.parse_args()
    db = database(args.hands)
    start = time.perf_counter()
    result = compute(db)
    stats_s = time.perf_counter() - start
    n_hands = int(result.table["hands"].sum()) if result.table.height else 0
    out = db.with_suffix(".html")
    start = time.perf_counter()
    write_report(db, out)
    report_s = time.perf_counter() - start
    print(f"database: {db.name}, {args.hands:,} hands simulated, {result.table.height} players, {n_hands:,} player-hands")
    print(f"every statistic, every player: {stats_s:.2f} s (goal < 5 s on 1,000,000 hands)")
    print(f"the HTML report: {report_s:.2f} s, {out.stat().st_size / 1e6:.1f} MB (goal < 15 s on 1,000,000 hands)")


if __name__ == "__main__":
    main()
