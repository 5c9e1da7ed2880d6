"""Statistics and report benchmark: every statistic for every player, and the HTML report.

Run: ``python bench/stats.py [--hands 1000000] [--base 100000] [--repeat 3]``.  Never a test.

The database, built once and cached under ``bench/.cache/`` (git-ignored):

* up to ``--base`` hands (100,000): simulated by ``hhtool simulate`` (the
  input generator of ``bench/import.py``: classic, stellapoker, italian;
  fixed, pot and no limit) and stored by ``hhtool import``, as a user would;
* more than that (the million of issue 7): **copies** of the ``--base``
  database, made inside DuckDB (:func:`replicate`), because importing a
  million hands at the import's current rate takes about 25 minutes.
  Copy ``k`` (0 is the original) has every row of every hand table with
  ``hand_key`` shifted by ``k`` times the base's largest key, the hand id
  prefixed ``r<k>-`` (also in the header line of ``raw_text``) and the
  start time, with the date in the header, ``k`` times 14 days later, so
  copies never overlap in time (sessions and date filters see ten
  separate stretches).  Players keep their names: each plays ten times as
  many hands.  So a million hands here is ten copies of 100,000 simulated
  ones: the same distribution of profiles, players and outcomes, not a
  million independent deals.

Then, timed ``--repeat`` times each: :func:`hhtool.stats.compute` (every
statistic, every player) and :func:`hhtool.stats.report.write_report`
(the whole HTML report).  Goals (issue 7): under 5 s and under 15 s on
one million hands.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.stats import compute  # noqa: E402
from hhtool.stats.report import write_report  # noqa: E402
from hhtool.store.schema import HAND_TABLES, HANDS, META, SCHEMA_VERSION  # noqa: E402

CACHE = ROOT / "bench" / ".cache"
SHIFT_DAYS = 14  # each copy starts this many days after the one before (the simulated hands span about 8)


def imported(hands: int) -> tuple[Path, float]:
    """``hands`` simulated hands, imported: the cached database and the seconds it took (0 when cached)."""
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    db = CACHE / f"stats-{hands}-v{SCHEMA_VERSION}.duckdb"
    if db.exists():
        return db, 0.0
    start = time.perf_counter()
    folder, _ = mod.make_input(hands, max(2, min(20, hands // 10000)))
    tmp = db.with_suffix(".tmp.duckdb")
    tmp.unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "hhtool.cli", "import", str(folder), "--db", str(tmp)], cwd=ROOT, check=False)
    tmp.rename(db)
    return db, time.perf_counter() - start


def replicate(source: Path, target: Path, copies: int) -> None:
    """``copies`` copies of every hand of ``source`` in a new database ``target`` (see the module's docstring)."""
    from hhtool.store.db import connect
    from hhtool.store.totals import ensure_derived

    tmp = target.with_suffix(".tmp.duckdb")
    tmp.unlink(missing_ok=True)
    con = connect(tmp)  # creates the schema
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("ATTACH ? AS src (READ_ONLY)", [str(source)])
        step = con.execute("SELECT max(hand_key) FROM src.hands").fetchall()[0][0]
        header = r"^(\S+ Hand #)[^:]+(:[^\n]* - )(\d{4}/\d{2}/\d{2})"
        for k in range(copies):
            for table in (HANDS, *HAND_TABLES):
                cols = []
                for c in table.names:
                    if c == "hand_key":
                        cols.append(f"hand_key + {k * step}")
                    elif c == "hand_id" and k:
                        cols.append(f"'r{k}-' || hand_id")
                    elif c == "started_at":
                        cols.append(f"started_at + INTERVAL {k * SHIFT_DAYS} DAY")
                    elif c == "raw_text" and k:
                        new_date = (
                            f"strftime(strptime(regexp_extract(raw_text, '{header}', 3), '%Y/%m/%d') "
                            f"+ INTERVAL {k * SHIFT_DAYS} DAY, '%Y/%m/%d')"
                        )
                        cols.append(f"regexp_replace(raw_text, '{header}', '\\1r{k}-' || hand_id || '\\2' || {new_date})")
                    else:
                        cols.append(c)
                con.execute(f"INSERT INTO {table.name} SELECT {', '.join(cols)} FROM src.{table.name}")
        con.execute(f"INSERT OR REPLACE INTO {META.name} SELECT * FROM src.{META.name} WHERE key <> 'schema_version'")
        con.execute("DETACH src")
        ensure_derived(con)  # the hands were copied in SQL, not by the import's writer: their players' totals and hands made here
        con.execute("CHECKPOINT")
    finally:
        con.close()
    tmp.rename(target)


def _with_totals(db: Path) -> str:
    """The players' totals and hands of a cached database made by an earlier hhtool, built once (opened for writing); what was done."""
    from hhtool.store.db import connect
    from hhtool.store.totals import DERIVED, current

    con = connect(db, read_only=True)
    try:
        if all(current(con, t) for t in DERIVED):
            return ""
    finally:
        con.close()
    start = time.perf_counter()
    connect(db).close()  # builds them (hhtool.store.totals.ensure_derived)
    return f"; its players' totals and hands built in {time.perf_counter() - start:.1f} s"


def database(hands: int, base: int) -> tuple[Path, str]:
    """The benchmark database of ``hands`` hands, and how it was made (with its build time when built now)."""
    if hands <= base:
        db, seconds = imported(hands)
        made = f"{hands:,} simulated hands imported" + (f" in {seconds:.0f} s" if seconds else " (cached)")
        return db, made + _with_totals(db)
    if hands % base:
        raise SystemExit(f"--hands {hands} must be a multiple of --base {base}")
    copies = hands // base
    src, import_s = imported(base)
    db = CACHE / f"stats-{hands}-from-{base}-v{SCHEMA_VERSION}.duckdb"
    made = f"{copies} copies of {base:,} simulated hands (bench/stats.py replicate)"
    if db.exists():
        return db, made + " (cached)" + _with_totals(db)
    start = time.perf_counter()
    replicate(src, db, copies)
    rep_s = time.perf_counter() - start
    imp = f"import {import_s:.0f} s + " if import_s else "import cached + "
    return db, made + f", built in {imp}copies {rep_s:.0f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--base", type=int, default=100_000, help="hands simulated and imported; more are copies of these")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each (the best and the spread are printed)")
    args = ap.parse_args()
    db, made = database(args.hands, args.base)
    print(f"database: {db.name} ({db.stat().st_size / 2**20:,.0f} MB), {made}")
    runs: dict[str, list[tuple[float, float]]] = {"stats": [], "report": []}
    out = db.with_suffix(".html")
    for _ in range(args.repeat):
        for name in runs:
            load = os.getloadavg()[0]
            wall, cpu = time.perf_counter(), os.times()
            if name == "stats":
                result = compute(db)
            else:
                write_report(db, out)
            after = os.times()
            runs[name].append((time.perf_counter() - wall, after.user - cpu.user + after.system - cpu.system))
            print(f"  {name}: {runs[name][-1][0]:.2f} s wall, {runs[name][-1][1]:.2f} s CPU (load before: {load:.1f})", flush=True)
    n_hands = int(result.table["hands"].sum()) if result.table.height else 0
    print(f"{result.table.height} players, {n_hands:,} player-hands; {os.cpu_count()} cores")

    def spread(xs: list[tuple[float, float]]) -> str:
        walls = [w for w, _ in xs]
        return f"best {min(walls):.2f} s, worst {max(walls):.2f} s over {len(xs)} runs (CPU {min(c for _, c in xs):.1f}-{max(c for _, c in xs):.1f} s)"

    print(f"every statistic, every player: {spread(runs['stats'])} (goal < 5 s on 1,000,000 hands)")
    print(f"the HTML report: {spread(runs['report'])}, {out.stat().st_size / 1e6:.1f} MB (goal < 15 s on 1,000,000 hands)")


if __name__ == "__main__":
    main()
