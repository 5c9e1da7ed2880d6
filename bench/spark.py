"""Spark import benchmark: ``hhtool spark-import`` on local[1] and local[2] against ``hhtool import`` on the same cores.  Never a test.

Run: ``python bench/spark.py [--hands 200000] [--files 20]``.

Input: ``--files`` files of simulated hands (``bench/import.py``'s cache,
the profiles and structures cycling).  In one run, each as a subprocess
on a new output:

* ``hhtool import DIR --workers 1`` and ``--workers 2`` (DuckDB);
* ``python -m hhtool.spark DIR --master local[1]`` and ``local[2]``.

Printed: hands/s of each, end to end (the process's wall time: for
Spark, the JVM's start included) and, for Spark, of the job alone (the
summary's ``seconds``, from the session to the commit); the rate per core
against DuckDB's (goal >= 60 %) and local[2] against local[1] (goal >=
1.7 x); and the load average before and after, since other work on the
machine takes cores from both.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _input(hands: int, files: int) -> Path:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder, _source = module.make_input(hands, files)
    return Path(folder)


def _timed(cmd: list[str]) -> tuple[float, dict[str, Any]]:
    t0 = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    line = [x for x in done.stdout.splitlines() if x.startswith("{")][-1]
    return wall, json.loads(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--files", type=int, default=20)
    args = ap.parse_args()
    folder = _input(args.hands, args.files)
    load_before = os.getloadavg()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="hhtool-bench-spark-") as tmp:
        for workers in (1, 2):
            db = Path(tmp) / f"duck{workers}.duckdb"
            wall, s = _timed([str(BIN / "hhtool"), "import", str(folder), "--db", str(db), "--workers", str(workers), "--json"])
            results[f"duckdb workers={workers}"] = {"hands": s["hands"], "wall": wall, "rate": s["hands"] / wall}
        for cores in (1, 2):
            out = Path(tmp) / f"lake{cores}"
            wall, s = _timed([sys.executable, "-m", "hhtool.spark", str(folder), "--out", str(out), "--master", f"local[{cores}]", "--json"])
            results[f"spark local[{cores}]"] = {
                "hands": s["hands"], "wall": wall, "rate": s["hands"] / wall, "job": s["seconds"], "job_rate": s["hands"] / s["seconds"],
            }
    load_after = os.getloadavg()
    print(f"{args.hands:,} simulated hands in {args.files} files; {os.cpu_count()} cores; load average before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    for name, r in results.items():
        job = f", job alone {r['job']:.1f} s ({r['job_rate']:,.0f} hands/s)" if "job" in r else ""
        print(f"  {name:<20} {r['hands']:>9,} hands  {r['wall']:7.1f} s  {r['rate']:8,.0f} hands/s end to end{job}")
    duck1 = results["duckdb workers=1"]["rate"]
    s1, s2 = results["spark local[1]"], results["spark local[2]"]
    print(f"  Spark per core / DuckDB per core: {s1['rate'] / duck1:.0%} end to end, {s1['job_rate'] / duck1:.0%} job alone (goal >= 60 %)")
    print(f"  local[2] / local[1]: {s2['rate'] / s1['rate']:.2f} x end to end, {s2['job_rate'] / s1['job_rate']:.2f} x job alone (goal >= 1.7 x)")
    print(json.dumps({"hands": args.hands, "load_before": load_before, "load_after": load_after, "results": results}))


if __name__ == "__main__":
    main()
