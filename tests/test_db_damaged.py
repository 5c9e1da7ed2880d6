"""Damaged, foreign and unwritable databases: a clear one-line message and exit 2 from every command, never a traceback.

Real files throughout: a real imported database cut to half its size or
overwritten with garbage in the middle, DuckDB files made by "another
program", a real file size limit (``RLIMIT_FSIZE``) and, where this
machine allows, a real full file system (a small tmpfs) and a real
read-only folder (capabilities dropped, since root writes through modes).
Each command runs in the test's process (:mod:`tests.inprocess`), and the
first of each case again as a real ``hhtool`` process, which must say the
same; what needs a process of its own (a file size limit, dropped
capabilities) runs only as one.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import duckdb
import pytest

from hhtool.store.importer import import_paths
from tests.inprocess import hhtool
from tests.sample_paths import GOOD, ROOT
from tests.storegen import write_files
from tests.test_cli_import import _rows

COMMANDS: list[list[str]] = [
    ["query", "SELECT count(*) FROM hands"],
    ["query", "SELECT sum(length(raw_text)) FROM hands"],
    ["stats"],
    ["report", "--out", "{tmp}/report.html"],
    ["export", "--parquet", "{tmp}/parquet"],
    ["import", str(GOOD[0]), "--workers", "0"],
]


def _run(
    args: Sequence[str], preexec: Callable[[], None] | None = None, prefix: Sequence[str] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=300, preexec_fn=preexec, env=env
    )


def _clean_failure(r: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The exit code, no traceback, and one line on stderr, returned."""
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Error:" not in r.stderr.split("DuckDB says", 1)[0], r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hhtool: "), r.stderr
    return lines[0]


def _every_command(db: Path, tmp: Path) -> list[tuple[list[str], subprocess.CompletedProcess[str]]]:
    """Each of :data:`COMMANDS` on ``db``, in this process; the first again as a real process, with the same outcome."""
    out = []
    for command in COMMANDS:
        args = [a.replace("{tmp}", str(tmp)) for a in command]
        out.append((args, hhtool(args[0], "--db", str(db), *args[1:])))
    args, first = out[0]
    real = _run([args[0], "--db", str(db), *args[1:]])
    assert (real.returncode, real.stdout, real.stderr) == (first.returncode, first.stdout, first.stderr), (real, first)
    return out


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real database of 300 hands (eleven of DuckDB's 256 KB blocks): copied by each test that damages it."""
    folder = tmp_path_factory.mktemp("imported")
    write_files(folder / "in", 3, 100)
    db = folder / "h.duckdb"
    assert import_paths([folder / "in"], db, workers=0).stored == 300
    return db


def test_a_database_cut_to_half_its_size(imported: Path, tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    shutil.copy(imported, db)
    with open(db, "r+b") as f:
        f.truncate(db.stat().st_size // 2)
    for args, r in _every_command(db, tmp_path):
        line = _clean_failure(r)
        assert f"the database {db} is damaged (DuckDB says: " in line, (args, line)
        assert line.endswith("restore it from a copy or import again into a new one"), line
    assert not (tmp_path / "report.html").exists()


def test_garbage_in_the_middle_of_a_database(imported: Path, tmp_path: Path) -> None:
    """The middle third overwritten: what reads it is told the file is damaged; what does not may still work."""
    db = tmp_path / "h.duckdb"
    shutil.copy(imported, db)
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.seek(size // 3)
        f.write(random.Random(20).randbytes(size // 3))
    damaged = 0
    for args, r in _every_command(db, tmp_path):
        if r.returncode == 0 and args[0] != "export":
            continue  # a statement that never reads a damaged block (DuckDB reads blocks as they are needed)
        line = _clean_failure(r)
        assert f"the database {db} is damaged (DuckDB says: " in line, (args, line)
        damaged += 1
    assert damaged >= 2  # the texts' sum and the export read every block of their tables


def _make(db: Path, *statements: str) -> None:
    con = duckdb.connect(str(db))
    for s in statements:
        con.execute(s)
    con.close()


FOREIGN: dict[str, tuple[tuple[str, ...], str]] = {
    "unrelated": (
        ("CREATE TABLE customers (id INT, name VARCHAR)", "INSERT INTO customers VALUES (1, 'Ada')", "CREATE TABLE orders (id INT)"),
        "is not an hhtool database (it has tables customers, orders and no hhtool schema version)",
    ),
    "foreign hands": (
        ("CREATE TABLE hands (id INT, who VARCHAR)", "INSERT INTO hands VALUES (1, 'Ada')"),
        "is not an hhtool database (it has table hands and no hhtool schema version)",
    ),
    "meta of other columns": (
        ("CREATE TABLE meta (a INT, b INT)", "INSERT INTO meta VALUES (1, 2)"),
        "is not an hhtool database (it has table meta and no hhtool schema version)",
    ),
    "meta of other keys": (
        ("CREATE TABLE meta (key VARCHAR, value VARCHAR)", "INSERT INTO meta VALUES ('owner', 'Ada')", "CREATE VIEW v AS SELECT 1"),
        "is not an hhtool database (it has table meta and view v and no hhtool schema version)",
    ),
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_another_programs_duckdb_file_is_refused_and_left_as_it_was(tmp_path: Path, case: str) -> None:
    """Import never adds hhtool's tables beside someone else's: refused before a row is read or written."""
    statements, words = FOREIGN[case]
    db = tmp_path / "theirs.duckdb"
    _make(db, *statements)
    before = _sha(db)
    for args, r in _every_command(db, tmp_path):
        line = _clean_failure(r)
        assert line == f"hhtool: the database {db} {words}", (args, line)
    assert _sha(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.duckdb"]  # no .wal, no report, no export folder


def test_hhtools_version_with_a_foreign_table_is_refused(imported: Path, tmp_path: Path) -> None:
    """hhtool's meta, someone else's hands: the columns are checked, not only the version."""
    db = tmp_path / "h.duckdb"
    shutil.copy(imported, db)
    _make(db, "DROP TABLE hands", "CREATE TABLE hands (id INT, who VARCHAR)")
    for args, r in _every_command(db, tmp_path):
        line = _clean_failure(r)
        assert f"the database {db} is not an hhtool database: its table hands has the columns id, who, not hhtool's (hand_key, site" in line, line


def test_a_file_that_is_not_duckdb_at_all(tmp_path: Path) -> None:
    db = tmp_path / "notes.duckdb"
    db.write_text("my poker notes\n", encoding="utf-8")
    for args, r in _every_command(db, tmp_path):
        line = _clean_failure(r)
        assert f"the database {db} is not an hhtool database (it is not a DuckDB file, or its first blocks are damaged" in line, line
    assert db.read_text(encoding="utf-8") == "my poker notes\n"


def _sqlite(path: Path) -> None:
    """A real SQLite database (the standard library's), with a table named like hhtool's."""
    import sqlite3

    con = sqlite3.connect(path)
    con.execute("CREATE TABLE hands (id INTEGER, who TEXT)")
    con.execute("INSERT INTO hands VALUES (1, 'Ada')")
    con.commit()
    con.close()


def _parquet(path: Path) -> None:
    import polars as pl

    pl.DataFrame({"hand_id": ["C-1001"], "pot": [1140]}).write_parquet(path)


NOT_DUCKDB: dict[str, tuple[str, Callable[[Path], object], str]] = {
    "sqlite": ("theirs.sqlite", _sqlite, "it is a SQLite database, not a DuckDB file"),
    "parquet": ("hands.parquet", _parquet, "it is a Parquet file, not a DuckDB file"),
    "random bytes": ("noise.duckdb", lambda p: p.write_bytes(random.Random(7).randbytes(70_000)), "it is not a DuckDB file, or its first blocks are damaged"),
    "empty": ("empty.duckdb", lambda p: p.write_bytes(b""), "it is an empty file, not a DuckDB file"),
}


@pytest.mark.parametrize("kind", sorted(NOT_DUCKDB))
def test_a_file_of_another_kind_is_refused_unread_by_duckdb(tmp_path: Path, kind: str) -> None:
    """What is not a DuckDB file never reaches DuckDB: refused by its first bytes, left as it was, nothing made beside it.

    DuckDB opens a SQLite file through its ``sqlite_scanner`` extension
    (fetched from the network, and loaded when installed, autoloading off
    or not) and a Parquet file as an empty database held in memory (an
    import into it would be lost).
    """
    name, make, words = NOT_DUCKDB[kind]
    db = tmp_path / name
    make(db)
    before = _sha(db)
    for args, r in _every_command(db, tmp_path):
        line = _clean_failure(r)
        assert line == f"hhtool: the database {db} is not an hhtool database ({words})", (args, line)
    assert _sha(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no .wal, no report, no export folder


def test_a_sqlite_database_fetches_no_extension_and_writes_nothing_in_home(tmp_path: Path) -> None:
    """Real processes with an empty home: every command that opens ``--db`` refuses the file in words, and home stays empty.

    DuckDB fetches an extension into ``~/.duckdb/extensions/`` (made
    first); without a network the attempt fails after a while, with a
    message naming the extension: neither may happen.
    """
    home = tmp_path / "home"
    home.mkdir()
    db = tmp_path / "theirs.sqlite"
    _sqlite(db)
    before = _sha(db)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "HHTOOL_DB")} | {"HOME": str(home)}
    for args in (
        ["import", str(GOOD[0]), "--workers", "0"],
        ["stats"],
        ["query", "SELECT count(*) FROM hands"],
        ["serve", "--port", "0", "--workers", "0"],
    ):
        r = _run([args[0], "--db", str(db), *args[1:]], env=env)
        line = _clean_failure(r)
        assert line == f"hhtool: the database {db} is not an hhtool database (it is a SQLite database, not a DuckDB file)", (args, line)
        assert "extension" not in r.stdout + r.stderr, (args, r.stderr)
    assert list(home.iterdir()) == []  # no ~/.duckdb
    assert _sha(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["home", "theirs.sqlite"]


def test_every_connection_has_extensions_off_from_its_first_statement(imported: Path, tmp_path: Path) -> None:
    """The database's connection, writing or reading, and a Parquet dataset's: no extension fetched or loaded, no secret kept in home."""
    from hhtool.store.db import connect
    from hhtool.store.parquet import ParquetDataset

    db = tmp_path / "h.duckdb"
    shutil.copy(imported, db)
    assert hhtool("export", "--db", str(db), "--parquet", str(tmp_path / "pq")).returncode == 0
    names = ("autoinstall_known_extensions", "autoload_known_extensions", "allow_community_extensions", "allow_persistent_secrets")
    for source, read_only in ((db, False), (db, True), (ParquetDataset(tmp_path / "pq"), True)):
        con = connect(source, read_only=read_only)
        try:
            got = con.execute(f"SELECT name, value FROM duckdb_settings() WHERE name IN {names} ORDER BY name").fetchall()
            assert got == sorted((n, "false") for n in names), (source, read_only, got)
        finally:
            con.close()


def test_an_empty_duckdb_file_is_filled_by_an_import_and_refused_before(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    duckdb.connect(str(db)).close()
    line = _clean_failure(_run(["query", "--db", str(db), "SELECT 1"]))
    assert line == f"hhtool: the database {db} is empty (no hhtool tables yet): import hand histories into it first"
    r = _run(["import", str(GOOD[0]), "--db", str(db), "--workers", "0"])
    assert r.returncode == 0, r.stderr
    assert _rows(db, "SELECT value FROM meta") == [("2",)]


def test_tables_made_before_an_earlier_hhtool_was_stopped_are_completed(tmp_path: Path) -> None:
    """An earlier hhtool made the tables one statement at a time: a file with some of them, empty and no version, is finished."""
    from hhtool.store.schema import ddl

    db = tmp_path / "h.duckdb"
    _make(db, *ddl(compression=False)[:3])
    r = _run(["import", str(GOOD[0]), "--db", str(db), "--workers", "0"])
    assert r.returncode == 0, r.stderr
    assert _rows(db, "SELECT count(*) FROM hands") == [(1,)]


# ------------------------------------------------------------------ full disk


def _import_cmd(inp: Path, db: Path, workers: int) -> list[str]:
    return ["import", str(inp), "--db", str(db), "--workers", str(workers), "--batch", "50", "--json"]


def _consistent_then_finished(inp: Path, db: Path, hands: int, workers: int) -> None:
    """After the failed import: the database opens, what it holds is whole batches; the same import then finishes exactly once."""
    r = hhtool("query", "--db", str(db), "--format", "json", "SELECT count(*) AS n, count(DISTINCT hand_id) AS d FROM hands")
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)[0]
    kept = row["n"]
    assert kept == row["d"] and kept < hands and kept % 50 == 0
    again = hhtool(*_import_cmd(inp, db, workers))
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert (summary["stored"], summary["duplicates"]) == (hands - kept, kept)
    assert _rows(db, "SELECT count(*), count(DISTINCT hand_id), (SELECT count(*) FROM files) FROM hands") == [(hands, hands, 1)]


def test_a_file_size_limit_stops_the_import_cleanly_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    """RLIMIT_FSIZE, SIGXFSZ ignored: DuckDB's writes get EFBIG, as on a full disk; the batches committed before stay."""
    write_files(tmp_path / "in", 1, 600)
    inp = tmp_path / "in" / "hh_000.txt"
    db = tmp_path / "h.duckdb"
    limit = 1 << 20

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    line = _clean_failure(_run(_import_cmd(inp, db, 0), preexec=limited))
    assert line.startswith(f"hhtool: cannot write the database {db}: the file has reached the largest size this process may write (File too large)"), line
    assert line.endswith("what was committed before is kept: free some space and run the same import again to finish it")
    _consistent_then_finished(inp, db, 600, 0)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB file system (tmpfs), or a skip where this machine may not mount one."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"this machine does not let root mount a tmpfs: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_stops_the_import_cleanly_and_a_rerun_after_freeing_space_finishes_it(tmp_path: Path, small_tmpfs: Path) -> None:
    """ENOSPC from a real full file system, met by the writer's own thread (workers on): the same words, the same recovery."""
    write_files(tmp_path / "in", 1, 600)
    inp = tmp_path / "in" / "hh_000.txt"
    db = small_tmpfs / "h.duckdb"
    line = _clean_failure(_run(_import_cmd(inp, db, 1)))
    assert line.startswith(f"hhtool: cannot write the database {db}: no space left on the device (DuckDB says: "), line
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_tmpfs)], check=True)  # space freed
    _consistent_then_finished(inp, db, 600, 1)


# ------------------------------------------------------------------ read-only folder


def _without_write_rights() -> list[str]:
    """A prefix that runs a command unable to write through file modes: root loses its capabilities; others have none."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root, a read-only folder needs setpriv(1) (util-linux) to drop the capabilities that write through it")
    return [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]


def test_a_read_only_folder(imported: Path, tmp_path: Path) -> None:
    prefix = _without_write_rights()
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "h.duckdb"
    shutil.copy(imported, db)
    before = _sha(db)
    folder.chmod(0o555)
    try:
        for target in (db, folder / "new.duckdb"):
            line = _clean_failure(_run(["import", str(GOOD[0]), "--db", str(target), "--workers", "0"], prefix=prefix))
            assert line.startswith(f"hhtool: cannot write the database {target}: the folder {folder} is not writable"), line
        line = _clean_failure(_run(["import", str(GOOD[0]), "--db", str(folder / "sub" / "new.duckdb"), "--workers", "0"], prefix=prefix))
        assert line.startswith(f"hhtool: cannot write the database {folder / 'sub' / 'new.duckdb'}: cannot make the folder {folder / 'sub'}: permission denied"), line
        r = _run(["query", "--db", str(db), "--format", "json", "SELECT count(*) AS n FROM hands"], prefix=prefix)
        assert r.returncode == 0 and json.loads(r.stdout) == [{"n": 300}], r.stderr  # reading needs no write
    finally:
        folder.chmod(0o755)
    assert _sha(db) == before and sorted(p.name for p in folder.iterdir()) == ["h.duckdb"]


def test_a_read_only_database_file(imported: Path, tmp_path: Path) -> None:
    prefix = _without_write_rights()
    db = tmp_path / "h.duckdb"
    shutil.copy(imported, db)
    db.chmod(0o444)
    line = _clean_failure(_run(["import", str(GOOD[0]), "--db", str(db), "--workers", "0"], prefix=prefix))
    assert line == f"hhtool: cannot write the database {db}: the file is read-only to you; give another --db, or make it writable"
    assert _rows(db, "SELECT count(*) FROM hands") == [(300,)]


def test_duckdb_out_of_memory_while_importing_is_told_in_words(tmp_path: Path) -> None:
    """DuckDB's own memory limit, too small for it: a DatabaseWriteError in words, and the file left for the same import to finish."""
    from hhtool.store.db import DatabaseWriteError

    write_files(tmp_path / "in", 1, 300)
    db = tmp_path / "h.duckdb"
    with pytest.raises(DatabaseWriteError, match=r"DuckDB ran out of memory \(DuckDB says: Out of Memory Error"):
        import_paths([tmp_path / "in"], db, workers=0, memory_limit="1MB")
    assert import_paths([tmp_path / "in"], db, workers=0).stored == 300
    assert _rows(db, "SELECT count(*), count(DISTINCT hand_id), (SELECT count(*) FROM files) FROM hands") == [(300, 300, 1)]
