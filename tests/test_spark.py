"""The Spark import against the DuckDB import, on the same files: the same tables, the same statistics.

One SparkSession (``local[2]``) for the module.  Input: the samples plus
simulated hands of every profile; DuckDB imports them with
``hhtool import``, Spark with :func:`hhtool.spark.spark_import`, and each
table is compared row for row once ordered, ``hand_key`` (which only a
writer gives) replaced by the ``(site, hand_id)`` it points at.  Then: a
second run over the same files and a new one adds only the new hands, a
conflicting hand is kept as a conflict, and a driver killed midway leaves
the committed state readable and a new run finishes the job.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hhtool.spark.jvm import java_available

if not java_available():
    pytest.skip("Spark needs Java 17 and no java was found (the Makefile installs openjdk-17-jre-headless as root)", allow_module_level=True)

from hhtool.spark import spark_import  # noqa: E402
from hhtool.spark.jvm import session  # noqa: E402
from hhtool.store.db import connect  # noqa: E402
from hhtool.store.importer import import_paths  # noqa: E402
from hhtool.store.parquet import ParquetDataset  # noqa: E402
from hhtool.store.schema import HAND_TABLES, TABLES  # noqa: E402
from tests.sample_paths import SAMPLES  # noqa: E402
from tests.storegen import hand, write_files  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HHTOOL = ROOT / ".venv" / "bin" / "hhtool"
PROFILES = (("classic", "fixed", None), ("stellapoker", "pot", None), ("italian", "no", "wild=7"), ("italian", "fixed", "carte-coperte"))
HANDS_PER_PROFILE = 600


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    s = session("local[2]")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples and simulated hands of every profile (one file each, one with faults: invalid hands and findings).

    Also ``_x.txt``: a name Hadoop's listing hides (``_``), which both imports must read.
    """
    from hhtool.simulate import write_simulation
    from hhtool.simulate.config import make_config

    root = tmp_path_factory.mktemp("spark-in")
    shutil.copytree(SAMPLES, root / "samples")
    (root / "samples" / "_x.txt").write_text(hand("UX-1") + "\n" + hand("UX-2"), encoding="utf-8")
    sim = root / "sim"
    sim.mkdir()
    for k, (rules, structure, options) in enumerate(PROFILES):
        config = make_config(rules=rules, structure=structure, italian_options=options, seed=100 + k, faults=0.05 if k == 0 else 0.0)
        write_simulation(config, HANDS_PER_PROFILE, sim / f"{rules}_{structure}_{k}.txt")
    for m in sim.glob("*.jsonl"):  # the fault manifests are no hand histories
        m.unlink()
    return root


@pytest.fixture(scope="module")
def both(spark: Any, inputs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The inputs imported by DuckDB (``db``) and by Spark (``lake``)."""
    out = tmp_path_factory.mktemp("spark-out")
    db = out / "hands.duckdb"
    import_paths([inputs], db, workers=0)
    lake = out / "lake"
    summary = spark_import([str(inputs)], str(lake), spark=spark)
    assert summary.stored > len(PROFILES) * HANDS_PER_PROFILE * 0.9
    return db, lake


def _ordered(db: Path, table: str) -> list[tuple[Any, ...]]:
    """A table's rows in a canonical order, ``hand_key`` as ``(site, hand_id)``, and without what depends on when it ran."""
    spec = next(t for t in TABLES if t.name == table)
    cols = [c.name for c in spec.columns if c.name not in ("hand_key", "imported_at")]
    select = ", ".join("date_trunc('second', mtime) AS mtime" if c == "mtime" else f"t.{c}" for c in cols)  # Spark sees milliseconds
    if spec in HAND_TABLES:
        sql = f"SELECT h.site, h.hand_id, {select} FROM {table} t JOIN hands h USING (hand_key) ORDER BY ALL"
    else:
        sql = f"SELECT {select} FROM {table} t ORDER BY ALL"
    con = connect(db, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _query(db: Any, sql: str) -> list[tuple[Any, ...]]:
    con = connect(db, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _hand_keys(db: Any) -> list[tuple[Any, ...]]:
    return _query(db, "SELECT site, hand_id, hand_key FROM hands ORDER BY ALL")


def _assert_same_tables(db: Path, lake: Path) -> None:
    for spec in TABLES:
        duck = _ordered(db, spec.name)
        spark_rows = _ordered(ParquetDataset(lake), spec.name)
        assert len(spark_rows) == len(duck), spec.name
        for a, b in zip(duck, spark_rows):
            assert a == b, (spec.name, a, b)
    # and each hand has the key the DuckDB import's single writer gives it (file and line order, after the committed ones)
    assert _hand_keys(ParquetDataset(lake)) == _hand_keys(db)


def test_tables_equal_row_for_row(both: tuple[Path, Path]) -> None:
    db, lake = both
    _assert_same_tables(db, lake)
    con = connect(db, read_only=True)
    try:
        rows = con.execute("SELECT count(*), count(DISTINCT verdict), (SELECT count(*) FROM findings) FROM hands").fetchone()
    finally:
        con.close()
    assert rows is not None and rows[0] > 2000 and rows[1] >= 2 and rows[2] > 0  # the comparison covered findings and verdicts
    # the same files read: _x.txt too (Hadoop's listing would hide it)
    for source in (db, ParquetDataset(lake)):
        assert _query(source, "SELECT count(*) FROM files WHERE ends_with(path, '/samples/_x.txt')") == [(1,)]
        assert _query(source, "SELECT count(*) FROM hands WHERE hand_id LIKE 'UX-%'") == [(2,)]
    # hand_key: as the DuckDB import's single writer numbers them, 1..n in file and line order
    keys = ParquetDataset(lake).connect()
    try:
        got = keys.execute("SELECT min(hand_key), max(hand_key), count(DISTINCT hand_key), count(*) FROM hands").fetchone()
    finally:
        keys.close()
    assert got == (1, rows[0], rows[0], rows[0])


def test_columns_and_types_as_export(both: tuple[Path, Path], tmp_path: Path) -> None:
    import duckdb

    from hhtool.store.query import export_parquet

    db, lake = both
    exported = tmp_path / "export"
    export_parquet(db, exported)

    def describe(root: Path, spec: Any) -> list[tuple[str, str]]:
        if spec.partitioned:
            source = f"read_parquet('{root}/{spec.name}/*/*.parquet', hive_partitioning = true)"
        else:
            source = f"read_parquet('{root}/{spec.name}{'.parquet' if root == exported else '/*.parquet'}')"
        return [(r[0], r[1]) for r in duckdb.connect().execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]

    for spec in TABLES:
        if spec.name in ("meta", "conflicts", "rooms", "aliases", "hand_notes", "hand_tags", "player_notes", "player_tags"):
            # no conflict, no room in this input, no alias, note or tag (a person's, never an import's): Spark writes no
            # file for an empty table (the views still have its columns)
            continue
        assert describe(lake, spec) == describe(exported, spec), spec.name
    # partitions: the same dates
    assert sorted(p.name for p in (lake / "hands").iterdir()) == sorted(p.name for p in (exported / "hands").iterdir())


def test_rooms_replay_and_record_as_in_duckdb(spark: Any, inputs: Path, tmp_path: Path) -> None:
    """With a room for the classic hands' site, Spark stores what the DuckDB import stores: room, digest, verdicts, ``rooms``."""
    from hhtool.game.room import load_rooms

    folder = tmp_path / "rooms"
    folder.mkdir()
    (folder / "vela.toml").write_text(
        '[room]\nname = "Circolo Vela"\nsites = ["Vela"]\nbase = "classic"\n\n[rake]\npercent = 10\ncurrencies = ["EUR"]\n', encoding="utf-8"
    )
    rooms = load_rooms(folder, required=True)
    db, lake = tmp_path / "hands.duckdb", tmp_path / "lake"
    import_paths([inputs], db, workers=0, rooms=rooms)
    summary = spark_import([str(inputs)], str(lake), spark=spark, rooms=rooms)
    assert summary.verdicts.get("disputed", 0) > 0
    governed = _query(db, "SELECT count(*) FROM hands WHERE room = 'Circolo Vela'")[0][0]
    assert governed >= HANDS_PER_PROFILE
    _assert_same_tables(db, lake)
    assert _query(ParquetDataset(lake), "SELECT name, digest FROM rooms") == [("Circolo Vela", rooms.rooms[0].digest)]
    # a second run with new hands of the room's site: no second row of the same rules
    more = tmp_path / "more"
    more.mkdir()
    from hhtool.simulate import write_simulation
    from hhtool.simulate.config import make_config

    write_simulation(make_config(rules="classic", seed=77), 20, more / "more.txt")
    again = spark_import([str(more)], str(lake), spark=spark, rooms=rooms)
    assert again.stored == 20
    assert _query(ParquetDataset(lake), "SELECT count(*), count(DISTINCT room) FROM hands WHERE room IS NOT NULL") == [(governed + 20, 1)]
    assert _query(ParquetDataset(lake), "SELECT count(*) FROM rooms") == [(1,)]


def test_files_are_spread_only_when_they_cannot_keep_every_core_busy() -> None:
    from hhtool.spark.job import must_spread
    from hhtool.store.sources import CHUNK_BYTES

    big = 10 * CHUNK_BYTES
    assert not must_spread([big] * 20, 2)  # many alike: ten a core
    assert not must_spread([big] * 4, 2)
    assert must_spread([big] * 3, 2)  # two on one core, one on the other
    assert must_spread([40 * big, big, big], 4)  # one file holds nearly all
    assert not must_spread([40 * big, big], 1)  # one core: nothing to spread over
    assert not must_spread([CHUNK_BYTES, 10, 20], 8)  # each a single piece: nothing to spread
    assert not must_spread([], 2)


def test_local_files_are_dealt_to_their_tasks_in_the_jvm(spark: Any) -> None:
    """Each task's files make one partition, in order, without a Python worker; the session's settings are left as they were."""
    from pyspark.sql import functions as F

    from hhtool.spark.inputs import local_files

    tasks = [[("big", 30, b"big"), ("d", 1, b"d")], [("caf\\xe9", 20, b"caf\xe9")], [("c", 10, b"c")]]
    per_batch = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    threshold = spark.conf.get("spark.sql.execution.arrow.localRelationThreshold", None)
    df = local_files(spark, tasks)
    assert df.schema.simpleString() == "struct<path:string,modificationTime:timestamp,content:binary,length:bigint,name:binary>"
    assert df.rdd.getNumPartitions() == 3
    rows = df.select(F.spark_partition_id().alias("task"), "path", "length", "name", "modificationTime", "content").collect()
    assert [tuple(r) for r in rows] == [
        (0, "big", 30, bytearray(b"big"), None, None), (0, "d", 1, bytearray(b"d"), None, None),
        (1, "caf\\xe9", 20, bytearray(b"caf\xe9"), None, None), (2, "c", 10, bytearray(b"c"), None, None),
    ]
    lineage = df._jdf.queryExecution().toRdd().toDebugString()  # an RDD or a list of rows from Python: a PythonRDD in it
    assert "PythonRDD" not in lineage and "arrow" in lineage, lineage
    assert spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch") == per_batch
    assert spark.conf.get("spark.sql.execution.arrow.localRelationThreshold", None) == threshold
    empty = local_files(spark, [[]])
    assert empty.schema == df.schema and empty.count() == 0


def test_a_run_that_read_no_hand_decides_nothing_without_a_query(tmp_path: Path) -> None:
    """Every file committed already: no hand to decide, so no Spark query (its stages ran on, cut short, and logged errors)."""
    from hhtool.spark.decide import decide
    from hhtool.spark.summary import SparkSummary

    summary = SparkSummary(out=str(tmp_path), run=2)
    assert decide(None, None, None, {("a.txt", 0): 0}, 10, summary) == {}  # type: ignore[arg-type]
    assert (summary.stored, summary.duplicates, summary.conflicts) == (0, 0, 0)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HHTOOL), *args], capture_output=True, text=True, timeout=600)


def test_stats_query_report_same_on_parquet(both: tuple[Path, Path], tmp_path: Path) -> None:
    db, lake = both
    for args in (["stats"], ["stats", "--format", "json", "--min-hands", "50"], ["stats", "--player", "Alice", "--format", "csv"]):
        a = _cli(*args, "--db", str(db))
        b = _cli(*args, "--parquet", str(lake))
        assert a.returncode == b.returncode and a.stdout == b.stdout, (args, a.stderr, b.stderr)
    sql = "SELECT verdict, count(*) AS n, sum(total_pot) AS pots FROM hands GROUP BY verdict ORDER BY verdict"
    a, b = _cli("query", sql, "--db", str(db)), _cli("query", sql, "--parquet", str(lake))
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout, (a.stderr, b.stderr)
    assert "ok" in a.stdout
    # the views read the dataset and nothing else
    refused = _cli("query", "SELECT * FROM read_csv('/etc/passwd')", "--parquet", str(lake))
    assert refused.returncode == 2 and "read-only" in refused.stderr
    from hhtool.stats.report import build_report

    import re

    def figures(html: str) -> str:
        """The report's figures: plotly names each graph's element with a fresh UUID, and a DOUBLE sum (a win rate
        of zero: 5.8e-14) ends in other bits when the rows come in another order; what is shown is compared whole."""
        html = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", html)
        # a cell's value to 1e-9, its text dropped: a rate summed in another order can sit either side of a
        # rounding boundary (3.575 shown 3.57 or 3.58)
        html = re.sub(r'data-v="([-+0-9.e]+)">[^<]*<', lambda m: f'data-v="{round(float(m.group(1)), 9) + 0.0}"><', html)
        html = re.sub(r'data-v="([-+0-9.e]+)"', lambda m: f'data-v="{round(float(m.group(1)), 9) + 0.0}"', html)
        # the replayers of the disputed hands are the hands themselves, not figures (among hands of one time
        # their order is the store's); the statistics, tables and graphs are compared
        html = re.sub(r'<details class="replay">.*?</details>', "", html, flags=re.S)
        rows = re.findall(r"<tr>.*?</tr>", html)  # rows whose sort keys tie (one player's category in two currencies) in any order
        return "\n".join([re.sub(r"<tr>.*?</tr>", "", html), *sorted(rows)])

    assert figures(build_report(db)) == figures(build_report(ParquetDataset(lake)))


def _count(lake: Path, sql: str) -> Any:
    con = ParquetDataset(lake).connect()
    try:
        row = con.execute(sql).fetchone()
        return row[0] if row else None
    finally:
        con.close()


def test_second_run_adds_only_new_hands_and_keeps_conflicts(spark: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    db = tmp_path / "hands.duckdb"
    first = tmp_path / "first"
    write_files(first, 2, 30, broken_every=10, prefix="R")
    s1 = spark_import([str(first)], str(lake), spark=spark, spread=True)  # the other plan: the pieces shuffled before the parse
    assert (s1.stored, s1.failed) == (54, 6)
    # the same files again, plus a new one with new hands, a conflicting text of a stored id, a repeated broken hand
    more = tmp_path / "more"
    write_files(more, 1, 20, prefix="N")
    other = hand("R-0-0").replace("18:00:00 UTC", "18:05:00 UTC")  # the same id, another valid text: a conflict
    assert other != hand("R-0-0")
    (more / "conflict.txt").write_text(other, encoding="utf-8")
    tracker = spark.sparkContext.statusTracker()
    jobs_before = len(tracker.getJobIdsForGroup(None))
    s2 = spark_import([str(first), str(more)], str(lake), spark=spark, spread=True)
    # every table in one pass: a handful of Spark jobs (read and parse, decide, write; Spark's adaptive plans run a
    # shuffle's stages as jobs of their own), not one write and count a table
    assert len(tracker.getJobIdsForGroup(None)) - jobs_before <= 10
    assert s2.unchanged == 2 and s2.stored == 20, s2
    assert s2.conflicts == 1 and s2.conflicts_new == 1
    assert _count(lake, "SELECT count(*) FROM hands") == 74
    assert _count(lake, "SELECT count(*) FROM failed") == 6
    assert _count(lake, "SELECT count(*) FROM conflicts WHERE hand_id = 'R-0-0'") == 1
    assert _count(lake, "SELECT min(message) FROM failed WHERE raw_text LIKE '%dances on the table%'")  # text and error kept
    # the same again: nothing is added
    jobs_before = len(tracker.getJobIdsForGroup(None))
    s3 = spark_import([str(first), str(more)], str(lake), spark=spark)
    assert (s3.stored, s3.imported, s3.unchanged) == (0, 0, 4)  # first's two files, more's new one and conflict.txt
    assert len(tracker.getJobIdsForGroup(None)) - jobs_before == 1  # the files' reading alone: no hand, nothing to decide or write
    assert _count(lake, "SELECT count(*) FROM hands") == 74
    # and DuckDB, given the same two imports, holds the same tables
    import_paths([first], db, workers=0)
    import_paths([first, more], db, workers=0)
    _assert_same_tables(db, lake)


def test_killed_driver_leaves_committed_state_and_rerun_completes(spark: Any, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    old = tmp_path / "old"
    write_files(old, 1, 20, prefix="O")
    spark_import([str(old)], str(lake), spark=spark)
    new = tmp_path / "new"
    write_files(new, 4, 30, prefix="P")  # four write tasks on local[1], one after the other: the kill falls while they write
    proc = subprocess.Popen(
        [str(HHTOOL), "spark-import", str(old), str(new), "--out", str(lake), "--master", "local[1]"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    staging = lake / "_hhtool" / "staging"
    deadline = time.monotonic() + 600
    try:
        while not any(staging.glob("*/*")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, "the job ended before it wrote anything: nothing to kill"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its JVM, midway through writing the tables
        proc.wait()
    # what readers see: the first run, whole
    assert _count(lake, "SELECT count(*) FROM hands") == 20
    assert len(list((lake / "_hhtool" / "commits").glob("run-*.json"))) == 1
    again = spark_import([str(old), str(new)], str(lake), spark=spark)
    assert again.stored == 120 and again.unchanged == 1
    assert not staging.exists() or not any(staging.iterdir())  # the killed run's staging dropped, the new one committed
    assert _count(lake, "SELECT count(*) FROM hands") == 140
    assert _count(lake, "SELECT count(DISTINCT hand_key) FROM hands") == 140


def test_a_commit_killed_during_its_moves_is_finished_by_the_next_run(spark: Any, tmp_path: Path) -> None:
    """The moves after the commit record: the done ones are skipped, the rest made (their folders too); a file found nowhere is an error."""
    from hhtool.spark.commit import STAGING, DatasetError, Output

    sc = spark.sparkContext
    out = Output(str(tmp_path), sc._jvm, sc._jsc.hadoopConfiguration())
    staged = tmp_path / STAGING / "run-000001"
    moves = [(f"{STAGING}/run-000001/{t}/date=2026-11-{d}/part-0.parquet", f"{t}/date=2026-11-{d}/run-000001-part-0.parquet")
             for t in ("hands", "seats") for d in ("29", "30")]
    for src, _ in moves:
        (tmp_path / src).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / src).write_text(src)
    out.move(moves[:1])  # the killed run had moved the first file
    assert (tmp_path / moves[0][1]).read_text() == moves[0][0]
    out.write_atomic("_hhtool/commits/run-000001.json", '{"run": 1, "moves": %s}' % str([list(m) for m in moves]).replace("'", '"'))
    assert out.recover() == [{"run": 1, "moves": [list(m) for m in moves]}]
    assert [(tmp_path / dst).read_text() for _, dst in moves] == [src for src, _ in moves]
    assert not staged.exists()
    with pytest.raises(DatasetError, match="a committed file is missing"):
        out.move([(f"{STAGING}/run-000002/hands/part-9.parquet", "hands/date=2026-12-01/run-000002-part-9.parquet")])


def test_a_file_name_that_is_not_utf8_is_read_as_the_duckdb_import_reads_it(spark: Any, tmp_path: Path) -> None:
    """``caf\\xe9.txt`` (Latin-1 bytes, not UTF-8) found in a folder and named: read by its own name, stored as DuckDB stores it."""
    folder = tmp_path / "in"
    write_files(folder, 1, 4, prefix="U")
    odd = os.fsencode(folder) + b"/caf\xe9.txt"
    with open(odd, "wb") as f:
        f.write("\n".join(hand(f"V-{i}") for i in range(3)).encode("utf-8"))
    lake, db = tmp_path / "lake", tmp_path / "hands.duckdb"
    s = spark_import([str(folder)], str(lake), spark=spark)
    assert (s.stored, s.files, s.unreadable) == (7, 2, []), s
    import_paths([folder], db, workers=0)
    _assert_same_tables(db, lake)
    shown = f"{folder}/caf\\xe9.txt"  # as the DuckDB import shows and stores it (the byte written \\xe9)
    assert _query(ParquetDataset(lake), "SELECT path FROM files WHERE ends_with(path, 'xe9.txt')") == [(shown,)]
    assert _query(ParquetDataset(lake), "SELECT DISTINCT file FROM hands WHERE hand_id LIKE 'V-%'") == [(shown,)]
    # named on the command line: the same file, its content committed already
    again = spark_import([os.fsdecode(odd)], str(lake), spark=spark)
    assert (again.unchanged, again.unreadable, again.stored) == (1, [], 0), again
    # as a file: URL Spark lists the folder, and Hadoop's listing would drop the name without a word: refused, nothing written
    from hhtool.spark import SparkImportError

    with pytest.raises(SparkImportError, match=r"would pass by .*caf\\xe9\.txt .*without file:"):
        spark_import([f"file:{folder}"], str(tmp_path / "lake2"), spark=spark)
    assert not (tmp_path / "lake2" / "hands").exists()


# any_build: what this test checks, the session's and its JVM's life (hhtool.spark.job and .jvm, PySpark, py4j), is in no
# module setup.py compiles; the only compiled code on its path parses five of tests/storegen.py's hands, which the pure
# run's test_second_run_adds_only_new_hands_and_keeps_conflicts parses through the same spark_import.  Three JVMs: the
# pure run would pay half a minute for the same check.
@pytest.mark.any_build
def test_a_run_stops_the_session_it_made_and_leaves_a_running_one(spark: Any, tmp_path: Path) -> None:
    """A session made for the run is stopped when it returns, and its JVM ends while Python goes on (it does not outlive the
    command, nor wait for Python's exit); a later run in the same process starts a JVM of its own; a running session is left
    running."""
    folder = tmp_path / "in"
    write_files(folder, 1, 5, prefix="S")
    assert spark_import([str(folder)], str(tmp_path / "lake"), master="local[1]").stored == 5  # the module's session runs
    assert spark.range(3).count() == 3
    code = (
        "import sys, threading\n"
        "from pyspark import SparkContext\n"
        "from hhtool.spark import job, spark_import\n"
        "jvms = []\n"
        "stop = job.stop\n"
        "job.stop = lambda session: jvms.append(stop(session)) or jvms[-1]\n"
        "for n in (1, 2):\n"
        "    summary = spark_import([sys.argv[1]], sys.argv[2] + str(n), master='local[1]')\n"
        "    print(summary.stored, SparkContext._active_spark_context is None, SparkContext._gateway is None, jvms[-1].wait(120))\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'hhtool-accumulators-stop':\n"
        "        t.join(30)\n"
        "print(len(set(p.pid for p in jvms)), [t.name for t in threading.enumerate() if t.name == 'hhtool-accumulators-stop'])\n"
    )
    fresh = subprocess.run([sys.executable, "-c", code, str(folder), str(tmp_path / "fresh")], capture_output=True, text=True, timeout=600)
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    lines = fresh.stdout.splitlines()
    assert lines[:2] == ["5 True True 0"] * 2, fresh.stdout  # each JVM exited (0) as the run returned, before Python's exit
    assert lines[2] == "2 []"  # two JVMs, one a run; the accumulator servers shut down
    # nothing on standard error but the JVM's own line for the module Spark's launcher adds: no traceback from the
    # accumulator servers' connections as they end, no note of Spark's on the log level
    said = [line for line in fresh.stderr.splitlines() if line != "WARNING: Using incubator modules: jdk.incubator.vector"]
    assert said == [], fresh.stderr[-2000:]


# any_build: hhtool.spark.jvm's session and stop, PySpark and the JVM, none compiled; no hand is read (the package's
# imports load the compiled modules' files, as every test of the pure run does).
@pytest.mark.any_build
def test_a_stop_that_fails_still_ends_the_jvm_and_frees_the_gateway() -> None:
    """A session whose stop raises (a JVM that died under it) still has its JVM told to end, and the gateway cleared:
    the next session in the process starts a JVM of its own instead of calling a dead one."""
    code = (
        "from pyspark import SparkContext\n"
        "from hhtool.spark import jvm\n"
        "s = jvm.session('local[1]')\n"
        "real = s.stop\n"
        "def failing():\n"
        "    real()\n"
        "    raise RuntimeError('the JVM went away')\n"
        "s.stop = failing\n"
        "first = SparkContext._gateway.proc\n"
        "try:\n"
        "    jvm.stop(s)\n"
        "except RuntimeError as e:\n"
        "    print('raised', e)\n"
        "print(SparkContext._gateway is None, SparkContext._jvm is None, first.wait(120))\n"
        "t = jvm.session('local[1]')\n"
        "print(t.range(4).count(), SparkContext._gateway.proc.pid != first.pid)\n"
        "jvm.stop(t)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["raised the JVM went away", "True True 0", "4 True"], (run.stdout, run.stderr[-2000:])


def test_python_m_entry_and_usage_errors(tmp_path: Path) -> None:
    missing = _cli("spark-import", str(tmp_path / "nothing-here"), "--out", str(tmp_path / "lake"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    assert "log level" not in missing.stderr  # refused before a JVM starts (Spark's banner on standard error)
    bad = subprocess.run([sys.executable, "-m", "hhtool.spark", "--help"], capture_output=True, text=True)
    assert bad.returncode == 0 and "--out" in bad.stdout
    both_sources = _cli("stats", "--db", str(tmp_path / "x.duckdb"), "--parquet", str(tmp_path))
    assert both_sources.returncode == 2 and "not both" in both_sources.stderr
    none = _cli("stats", "--parquet", str(tmp_path / "none"))
    assert none.returncode == 2 and "no Parquet dataset" in none.stderr
