"""``hhtool import``, ``query``, ``export``: run the commands, then assert on the database they left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from tests.sample_paths import GOOD, ROOT, SAMPLES
from tests.storegen import write_files

runner = CliRunner()


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_import_samples_then_again(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    result = runner.invoke(app, ["import", str(SAMPLES), "--db", str(db)])
    assert result.exit_code == 1, result.output  # the broken samples failed: exit 1
    assert "failed" in result.output and "verdicts of the hands stored" in result.output
    stored = _rows(db, "SELECT count(*) FROM hands")[0][0]
    failed = _rows(db, "SELECT count(*) FROM failed WHERE raw_text <> '' AND message <> ''")[0][0]
    assert stored == 13 and failed == 9
    result = runner.invoke(app, ["import", str(SAMPLES), "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output  # nothing new, nothing failed
    summary = json.loads(result.output)
    assert (summary["unchanged"], summary["stored"], summary["failed"]) == (summary["files"] - 2, 0, 0)
    assert sorted(Path(p).name for p in summary["not_histories"]) == ["README.md", "empty.txt"]
    assert _rows(db, "SELECT count(*) FROM hands")[0][0] == stored


def test_import_good_samples_exit_0_and_db_from_env(tmp_path: Path) -> None:
    db = tmp_path / "env.duckdb"
    result = runner.invoke(app, ["import", *map(str, GOOD)], env={"HHTOOL_DB": str(db)})
    assert result.exit_code == 0, result.output
    assert _rows(db, "SELECT count(*), count(*) FILTER (verdict = 'ok') FROM hands") == [(12, 12)]


def test_import_usage_errors(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", str(tmp_path / "missing.txt"), "--db", str(tmp_path / "h.duckdb")])
    assert result.exit_code == 2 and "no such file" in result.output


def test_query_formats_and_out(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    runner.invoke(app, ["import", *map(str, GOOD), "--db", str(db)])
    sql = "SELECT hand_id, total_pot FROM hands WHERE hand_id IN ('C-1001', 'S-5001') ORDER BY hand_id"
    table = runner.invoke(app, ["query", sql, "--db", str(db)])
    assert table.exit_code == 0 and "| C-1001" in table.output and "1140" in table.output
    csv = runner.invoke(app, ["query", sql, "--db", str(db), "--format", "csv"])
    assert csv.output.splitlines() == ["hand_id,total_pot", "C-1001,1140", f"S-5001,{_rows(db, 'SELECT total_pot FROM hands WHERE hand_id = ' + repr('S-5001'))[0][0]}"]
    out = tmp_path / "q.json"
    js = runner.invoke(app, ["query", sql, "--db", str(db), "--format", "json", "--out", str(out)])
    assert js.exit_code == 0 and json.loads(out.read_text())[0] == {"hand_id": "C-1001", "total_pot": 1140}
    bad = runner.invoke(app, ["query", "SELECT * FROM nope", "--db", str(db)])
    assert bad.exit_code == 2 and "nope" in bad.output
    assert runner.invoke(app, ["query", "SELECT 1", "--db", str(db), "--format", "xml"]).exit_code == 2
    # read-only: writing is refused
    assert runner.invoke(app, ["query", "DELETE FROM hands", "--db", str(db)]).exit_code == 2
    assert _rows(db, "SELECT count(*) FROM hands")[0][0] == 12
    missing = runner.invoke(app, ["query", "SELECT 1", "--db", str(tmp_path / "none.duckdb")])
    assert missing.exit_code == 2 and "no database" in missing.output


def test_query_sql_may_start_with_a_comment_or_come_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQL is the user's whatever it starts with: a ``--`` comment is not an option; --file FILE and --file - read it."""
    db = tmp_path / "h.duckdb"
    runner.invoke(app, ["import", str(GOOD[0]), "--db", str(db)])
    sql = "-- hands per verdict\nSELECT verdict, count(*) AS n FROM hands GROUP BY verdict"
    for args in (
        [sql, "--db", str(db), "--format", "csv"],  # first
        ["--db", str(db), sql, "--format", "csv"],  # between options
        ["--db", str(db), "--format", "csv", "--", sql],  # after --
    ):
        result = runner.invoke(app, ["query", *args])
        assert result.exit_code == 0, result.output
        assert result.output.splitlines() == ["verdict,n", "ok,1"]
    script = tmp_path / "q.sql"
    script.write_text("\ufeff" + sql + "\n", encoding="utf-8")
    assert runner.invoke(app, ["query", "--file", str(script), "--db", str(db), "--format", "csv"]).output.splitlines() == ["verdict,n", "ok,1"]
    piped = runner.invoke(app, ["query", "--file", "-", "--db", str(db), "--format", "csv"], input=sql)
    assert piped.exit_code == 0 and piped.output.splitlines() == ["verdict,n", "ok,1"]
    # an option's value is never taken for the SQL, and a mistyped option is still refused by its name
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["query", "--out", "-- odd name.csv", sql, "--db", str(db), "--format", "csv"]).exit_code == 0
    assert (tmp_path / "-- odd name.csv").read_text().splitlines() == ["verdict,n", "ok,1"]
    typo = runner.invoke(app, ["query", "--fromat", "csv", "SELECT 1", "--db", str(db)])
    assert typo.exit_code == 2 and "--fromat" in typo.output
    both = runner.invoke(app, ["query", "SELECT 1", "--file", str(script), "--db", str(db)])
    assert both.exit_code == 2 and "not both" in both.output
    assert runner.invoke(app, ["query", "--db", str(db)]).exit_code == 2
    unreadable = runner.invoke(app, ["query", "--file", str(tmp_path / "none.sql"), "--db", str(db)])
    assert unreadable.exit_code == 2 and "cannot read" in unreadable.output


def test_export_parquet_reads_back(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    runner.invoke(app, ["import", *map(str, GOOD), "--db", str(db)])
    result = runner.invoke(app, ["export", "--parquet", str(tmp_path / "pq"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    back = duckdb.execute(
        f"SELECT date, count(*) FROM read_parquet('{tmp_path}/pq/hands/*/*.parquet', hive_partitioning = true) GROUP BY date ORDER BY date"
    ).fetchall()
    assert sum(n for _, n in back) == 12 and all(str(d).startswith("2026-11-") for d, _ in back)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "hhtool.cli", *args]


def test_second_writer_gets_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    con = duckdb.connect(str(db))  # this process holds the file
    try:
        r = subprocess.run(_cli("import", str(GOOD[0]), "--db", str(db)), capture_output=True, text=True, cwd=ROOT, timeout=60)
    finally:
        con.close()
    assert r.returncode == 2
    assert "in use by another process" in r.stderr and "Traceback" not in r.stderr


def _wait_for_commits(db: Path, proc: subprocess.Popen[Any], wal_bytes: int) -> None:
    wal = db.with_name(db.name + ".wal")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if wal.exists() and wal.stat().st_size >= wal_bytes:
            return
        time.sleep(0.02)
    raise AssertionError(f"the import did not commit in time (exit {proc.poll()})")


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def test_import_killed_with_sigkill_then_rerun_is_exact(tmp_path: Path) -> None:
    src = tmp_path / "in"
    good, bad = write_files(src, files=8, hands_per_file=150, broken_every=50)
    db = tmp_path / "h.duckdb"
    cmd = _cli("import", str(src), "--db", str(db), "--batch", "100")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_commits(db, proc, 1_000_000)  # a few batches are in the write-ahead log
        workers = _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert workers  # the import ran in worker processes ...
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)  # ... which do not outlive the writer
    # consistent after the kill: part of the hands, and every file marked done has all its hands
    partial = _rows(db, "SELECT count(*) FROM hands")[0][0]
    assert 0 < partial < good, partial  # type: ignore[operator]
    incomplete = _rows(
        db,
        "SELECT f.path FROM files f LEFT JOIN (SELECT file, count(*) n FROM hands GROUP BY file) h ON h.file = f.path "
        "LEFT JOIN (SELECT file, count(*) n FROM failed GROUP BY file) x ON x.file = f.path "
        "WHERE coalesce(h.n, 0) + coalesce(x.n, 0) <> f.hands",
    )
    assert incomplete == []
    rerun = subprocess.run(cmd + ["--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 1, rerun.stderr  # the broken hands: exit 1
    summary = json.loads(rerun.stdout)
    assert summary["stored"] + partial == good
    assert _rows(db, "SELECT count(*), count(DISTINCT (site, hand_id)), count(DISTINCT hand_key) FROM hands") == [(good, good, good)]
    expected = {f"K-{f}-{i}" for f in range(8) for i in range(150) if i % 50 != 49}
    assert {r[0] for r in _rows(db, "SELECT hand_id FROM hands")} == expected
    assert _rows(db, "SELECT count(*), count(DISTINCT raw_hash) FROM failed") == [(bad, bad)]
    assert _rows(db, "SELECT count(*), sum(hands) FROM files") == [(8, good + bad)]
    # child rows exactly once per hand
    assert _rows(db, "SELECT count(*) FROM (SELECT hand_key, seq FROM actions GROUP BY ALL HAVING count(*) > 1)") == [(0,)]
    assert _rows(db, "SELECT count(DISTINCT hand_key), count(*) FROM seats") == [(good, 4 * good)]


def _interrupt_and_rerun(tmp_path: Path, files: int, signals: int) -> int:
    """Import ``files`` files, press Ctrl-C ``signals`` times (50 ms apart) after a few commits: exit 130 with
    the summary and no traceback; a rerun finishes the job exactly.  Returns the hands the interrupted run stored."""
    src = tmp_path / "in"
    good, _ = write_files(src, files=files, hands_per_file=150)
    db = tmp_path / "h.duckdb"
    cmd = _cli("import", str(src), "--db", str(db), "--batch", "100")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_commits(db, proc, 1_000_000)
    for k in range(signals):
        if k:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in out and "Traceback" not in err
    partial = _rows(db, "SELECT count(*) FROM hands")[0][0]
    assert isinstance(partial, int)
    assert 0 < partial < good
    rerun = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert _rows(db, "SELECT count(*), count(DISTINCT hand_id) FROM hands") == [(good, good)]
    return partial


def test_import_interrupted_with_ctrl_c(tmp_path: Path) -> None:
    _interrupt_and_rerun(tmp_path, files=4, signals=1)


def test_import_interrupted_with_ctrl_c_twice(tmp_path: Path) -> None:
    """A second Ctrl-C interrupts the writer's transaction in progress (it rolls back) and never raises in the
    middle of stopping the workers; the writer's thread ends before the database is closed."""
    _interrupt_and_rerun(tmp_path, files=16, signals=2)


def test_a_named_file_with_no_hand_is_named_and_exits_1_as_parse_does(tmp_path: Path) -> None:
    """A file named by mistake (a Makefile): named on standard error, exit 1, the other files imported; again, unchanged, the same."""
    from tests.inprocess import hhtool

    makefile = tmp_path / "Makefile"
    makefile.write_text("all:\n\thhtool import histories/\n", encoding="utf-8")
    shown = os.path.realpath(makefile)
    db = tmp_path / "h.duckdb"
    for _ in range(2):  # the second time its content is known: skipped as unchanged, and still no hand
        r = hhtool("import", str(GOOD[0]), str(makefile), "--db", str(db), "--workers", "0")
        assert r.returncode == 1, r.stdout + r.stderr
        assert f"hhtool: {shown}: no hand in it" in r.stderr.splitlines(), r.stderr
        p = hhtool("parse", str(GOOD[0]), str(makefile))
        assert p.returncode == 1 and f"hhtool: {makefile}: no hand in it" in p.stderr.splitlines(), p.stderr
    assert _rows(db, "SELECT count(*) FROM hands") == [(1,)]
    js = hhtool("import", str(makefile), "--db", str(db), "--workers", "0", "--json")
    assert js.returncode == 1 and json.loads(js.stdout)["no_hand"] == [shown], js.stdout + js.stderr


def test_a_named_file_already_imported_is_unchanged_not_empty(tmp_path: Path) -> None:
    """Skipped because its hands are in already: no hand read this time, and nothing wrong (exit 0)."""
    from tests.inprocess import hhtool

    db = tmp_path / "h.duckdb"
    args = ("import", str(GOOD[0]), "--db", str(db), "--workers", "0", "--json")
    assert hhtool(*args).returncode == 0
    again = hhtool(*args)
    assert again.returncode == 0 and again.stderr == "", again.stdout + again.stderr
    summary = json.loads(again.stdout)
    assert (summary["unchanged"], summary["hands"], summary["no_hand"]) == (1, 0, [])


def test_inputs_with_no_hand_at_all_exit_1_as_parse_does(tmp_path: Path) -> None:
    """An empty folder, a folder of notes: no hand in the inputs, said, exit 1 -- each time, as ``parse`` does."""
    from tests.inprocess import hhtool

    empty = tmp_path / "empty"
    empty.mkdir()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.md").write_text("# my histories\n", encoding="utf-8")
    db = tmp_path / "h.duckdb"
    for folder, words in ((empty, "no hand in the inputs (no file found)"), (notes, "no hand in the inputs (1 file(s) read)")):
        for _ in range(2):
            r = hhtool("import", str(folder), "--db", str(db), "--workers", "0")
            assert r.returncode == 1 and f"hhtool: {words}" in r.stderr.splitlines(), (folder, r.stdout, r.stderr)
        p = hhtool("parse", str(folder))
        assert p.returncode == 1 and f"hhtool: {words}" in p.stderr.splitlines(), (folder, p.stderr)
    assert _rows(db, "SELECT count(*) FROM files") == [(0,)]
