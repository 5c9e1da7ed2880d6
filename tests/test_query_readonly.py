"""``hhtool query`` is read-only in fact: statements that write, or read anything but the database's tables, are refused.

Two fences, each tested on its own: the statement allow-list
(:func:`hhtool.store.query.read_only_statements`), which refuses before the
database is opened, and the read-only connection's settings
(:func:`hhtool.store.db.connect`), which refuse files, extensions, other
databases and settings whatever statement reaches them.  The statements
are the ones that wrote or read through ``hhtool query`` before (issue 20),
run by ``hhtool query`` (in the test's process, and some by a real process)
on a real imported database.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from hhtool.store.query import QueryError, ReadOnlyQueryError, read_only_statements, run_query
from tests.inprocess import hhtool
from tests.sample_paths import GOOD, ROOT
from tests.test_cli_import import _rows


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ro") / "h.duckdb"
    summary = import_paths(GOOD, path, workers=0)
    assert summary.stored == 12
    return path


def _hands(db: Path) -> object:
    return _rows(db, "SELECT count(*) FROM hands")[0][0]


def _query(db: Path, sql: str, home: Path, *options: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool query`` in this process (:mod:`tests.inprocess`), or with ``process`` a real ``hhtool`` process."""
    # HOME elsewhere: DuckDB's extension and secret folders (~/.duckdb) would appear there if it reached for them
    args = ["query", "--db", str(db), *options, "--", sql]
    if not process:
        return hhtool(*args, env={"HOME": str(home)})
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def _refused(r: subprocess.CompletedProcess[str], words: str) -> None:
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hhtool: hhtool query is read-only: "), r.stderr
    assert re.search(words, lines[0]), lines[0]


def test_the_statements_that_wrote_or_read_are_refused(db: Path, tmp_path: Path) -> None:
    """Each statement of the issue: exit 2 with what it would do, and what it names does not appear or change.

    Each runs in this process; the one that emptied the database and a file
    read run again as real ``hhtool`` processes.
    """
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t AS SELECT range AS x FROM range(5)")
    con.close()
    out = tmp_path / "written.csv"
    folder = tmp_path / "exported"
    home = tmp_path / "home"
    home.mkdir()
    before = _hands(db)
    cases = [
        (f"COPY (SELECT 'chosen content') TO '{out}'", r"COPY \.\.\. TO writes a file"),
        (f"COPY hands TO '{out}' (FORMAT csv)", r"COPY \.\.\. TO writes a file"),
        (f"EXPORT DATABASE '{folder}'", r"EXPORT DATABASE writes a folder"),
        (f"ATTACH '{other}' AS o (READ_WRITE); DELETE FROM o.t", r"ATTACH opens another database"),
        # the sequence that emptied the query's own database (313 hands -> 0)
        (f"ATTACH '{other}' AS o (READ_WRITE); USE o; DETACH h; ATTACH '{db}' AS h (READ_WRITE); DELETE FROM h.hands", r"ATTACH opens another database"),
        ("USE memory; DETACH h", r"USE changes which database is read"),
        ("INSTALL httpfs", r"INSTALL adds an extension to DuckDB \(INSTALL downloads it from the network\)"),
        ("LOAD httpfs", r"LOAD adds an extension"),
        ("SELECT * FROM read_text('/etc/shadow')", r"reads the database's tables, not files.*Cannot access file \"/etc/shadow\""),
        ("SELECT * FROM glob('/etc/*')", r"reads the database's tables, not files.*/etc/\*"),
        ("SELECT * FROM read_csv('/etc/passwd', sep = ':')", r"not files.*/etc/passwd"),
        (f"SELECT 1; COPY (SELECT 1) TO '{out}'", r"COPY \.\.\. TO writes a file"),  # nothing runs, not even the SELECT
        (f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{out}'", r"EXPLAIN of a statement it does not run \(COPY"),
        ("SET enable_external_access = true", r"SET changes DuckDB's settings, which hhtool keeps locked"),
        ("DELETE FROM hands", r"DELETE changes the database's rows"),
    ]
    for sql, words in cases:
        _refused(_query(db, sql, home), words)
    for sql, words in (cases[4], cases[8]):
        _refused(_query(db, sql, home, process=True), words)
    assert not out.exists() and not folder.exists()
    assert not (home / ".duckdb").exists()  # no extension folder made, no download started
    assert _hands(db) == before == 12
    assert _rows(other, "SELECT count(*) FROM t") == [(5,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "other.duckdb"]


def test_every_example_query_of_the_docs_still_runs(db: Path, tmp_path: Path) -> None:
    """docs/schema.md's example queries, one by one, through `hhtool query` (in this process): exit 0 and rows."""
    text = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    block = text.split("## Example queries", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    queries = [q.strip() for q in block.split(";") if q.strip()]
    assert len(queries) >= 3
    expected = [_rows(db, q) for q in queries]
    assert expected[0]  # the verdicts: rows
    for q, rows in zip(queries, expected):
        r = _query(db, q, tmp_path, "--format", "json")
        assert r.returncode == 0 and r.stderr == "", (q, r.stderr)
        got = sorted(tuple(str(v) for v in d.values()) for d in json.loads(r.stdout))  # a sum is a 128-bit integer: a string in JSON
        assert got == sorted(tuple(str(v) for v in x) for x in rows), q


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT verdict, count(*) AS n FROM hands GROUP BY verdict",
        "WITH v AS (SELECT verdict FROM hands) SELECT count(*) FROM v",
        "VALUES (1, 'a')",
        "FROM hands SELECT hand_id LIMIT 1",
        "TABLE meta",
        "DESCRIBE hands",
        "SHOW TABLES",
        "SUMMARIZE seats",
        "EXPLAIN SELECT * FROM hands",
        "EXPLAIN ANALYZE SELECT count(*) FROM hands",
        "PRAGMA table_info('hands')",
        "PRAGMA show_tables",
        "CALL pragma_database_size()",
        "PIVOT hands ON verdict USING count(*) GROUP BY site",
        "UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b INTO NAME k VALUE v",
        "-- a comment first\nSELECT 1 AS one",
        "SELECT 1 AS a; SELECT 2 AS b",
    ],
)
def test_reading_statements_run(db: Path, sql: str) -> None:
    df = run_query(db, sql)
    assert df.height >= 1


def test_several_reading_statements_give_the_last_one_and_an_error_in_any_is_told(db: Path) -> None:
    assert run_query(db, "SELECT 1 AS a; SELECT count(*) AS n FROM hands").to_dicts() == [{"n": 12}]
    with pytest.raises(QueryError, match="nosuch"):
        run_query(db, "SELECT * FROM nosuch; SELECT 1")
    assert run_query(db, "").height == 0


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("CREATE TEMP TABLE t AS SELECT 1", "CREATE changes the database's tables"),
        ("CREATE TEMP MACRO f(x) AS x + 1", "CREATE changes the database's tables"),
        ("DROP TABLE hands", "DROP changes the database's tables"),
        ("ALTER TABLE hands ADD COLUMN x INT", "ALTER changes the database's tables"),
        ("INSERT INTO meta VALUES ('a', 'b')", "INSERT changes the database's rows"),
        ("UPDATE hands SET verdict = 'ok'", "UPDATE changes the database's rows"),
        ("DETACH h", "DETACH closes a database"),
        ("COPY FROM DATABASE h TO other", "COPY FROM DATABASE writes another database"),
        ("COPY hands FROM '/etc/passwd'", r"COPY \.\.\. TO writes a file \(and COPY \.\.\. FROM reads one\)"),
        ("FORCE INSTALL httpfs", "FORCE adds an extension"),
        ("UPDATE EXTENSIONS", "UPDATE EXTENSIONS is not a statement it runs"),
        ("RESET threads", "RESET changes DuckDB's settings"),
        ("SET VARIABLE x = 1", "SET changes DuckDB's settings"),
        ("PRAGMA threads = 1", "PRAGMA changes DuckDB's settings"),
        ("PRAGMA enable_profiling", "PRAGMA enable_profiling is not one that only reads"),
        ("BEGIN TRANSACTION", "BEGIN TRANSACTION is not a statement it runs"),
        ("VACUUM", "VACUUM is not a statement it runs"),
        # DuckDB parses CHECKPOINT as a CALL of checkpoint(): refused by name, in each of its forms
        ("CHECKPOINT", r"CHECKPOINT writes the database file \(it moves DuckDB's log into it\)"),
        ("CHECKPOINT; VACUUM", "CHECKPOINT writes the database file"),
        ("-- a comment\nFORCE CHECKPOINT", "FORCE CHECKPOINT writes the database file"),
        ("CHECKPOINT h", "CHECKPOINT H writes the database file"),
        ("CALL checkpoint()", r"CALL checkpoint\(\) writes the database file"),
        ('CALL /* x */ main."Force_Checkpoint"(\'h\')', r"CALL force_checkpoint\(\) writes the database file"),
        ("CALL truncate_duckdb_logs()", r"CALL truncate_duckdb_logs\(\) empties DuckDB's log"),
        ("PREPARE p AS SELECT 1", "PREPARE P is not a statement it runs"),
        ("EXPLAIN (FORMAT json) INSERT INTO meta VALUES ('a', 'b')", r"EXPLAIN of a statement it does not run \(INSERT"),
        ("/* hidden */ USE memory", "USE changes which database is read"),
    ],
)
def test_the_allow_list_refuses_before_the_database_is_opened(tmp_path: Path, sql: str, words: str) -> None:
    """Refused by the parse alone: no database is needed (none exists here)."""
    with pytest.raises(ReadOnlyQueryError, match=f"^hhtool query is read-only: {words}"):
        read_only_statements(sql)
    with pytest.raises(ReadOnlyQueryError):
        run_query(tmp_path / "none.duckdb", sql)


def test_a_syntax_error_is_a_query_error() -> None:
    with pytest.raises(QueryError, match="syntax error") as info:
        read_only_statements("SELEC 1")
    assert not isinstance(info.value, ReadOnlyQueryError)


def test_the_read_only_connection_refuses_on_its_own(db: Path, tmp_path: Path) -> None:
    """Without the allow-list, the connection's settings refuse every statement of the issue just as well."""
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    out = tmp_path / "x.csv"
    statements = [
        f"COPY (SELECT 1) TO '{out}'",
        f"EXPORT DATABASE '{tmp_path / 'exported'}'",
        f"ATTACH '{other}' AS o (READ_WRITE)",
        f"ATTACH '{tmp_path / 'new.duckdb'}' AS n",
        "ATTACH ':memory:' AS m",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_blob('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM read_parquet('/etc/x.parquet')",
        "SELECT * FROM sniff_csv('/etc/passwd')",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "SET allowed_directories = ['/']",
        "SET memory_limit = '1TB'",
        "CALL enable_logging(storage = 'file', storage_path = '/tmp')",
        "CREATE TABLE t (x INT)",
    ]
    con = connect(db, read_only=True)
    try:
        for s in statements:
            with pytest.raises(duckdb.Error):
                con.execute(s)
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(12,)]  # its own database: read as ever
        for s in statements:  # none of the attempts unlocked anything for the statements after it
            with pytest.raises(duckdb.Error):
                con.execute(s)
    finally:
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.duckdb"]


def test_export_writes_its_folder_and_nowhere_else(db: Path, tmp_path: Path) -> None:
    """The export's connection is locked down too, its own folder the one place it may write."""
    from hhtool.store.query import export_parquet

    out = tmp_path / "pq"
    counts = export_parquet(db, out)
    assert counts["hands"] == 12 and (out / "files.parquet").is_file()
    con = connect(db, read_only=True, write_to=out)
    try:
        con.execute(f"COPY meta TO '{out / 'meta.parquet'}' (FORMAT PARQUET)")
        for target in (tmp_path / "elsewhere.parquet", out / ".." / "up.parquet"):
            with pytest.raises(duckdb.PermissionException):
                con.execute(f"COPY meta TO '{target}' (FORMAT PARQUET)")
    finally:
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pq"]


def test_a_mistake_that_quotes_a_files_trouble_is_the_querys_own(db: Path) -> None:
    """A binder error that quotes "permission denied" or "Corrupt database file" is the SQL's mistake, not the file's."""
    with pytest.raises(QueryError) as info:
        run_query(db, 'SELECT "permission denied", "Corrupt database file: no space left" FROM hands')
    assert type(info.value) is QueryError and "Referenced column" in str(info.value)
