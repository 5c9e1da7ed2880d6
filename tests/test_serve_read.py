"""Reading while serving: ``stats``, ``query``, ``report`` and ``export`` on a database a real ``hhtool serve`` holds
give what they give without it, through the server (docs/serve.md, "Reading while serving"); only the local CLI,
with the token of ``FILE.serve``, may ask, and a query stays read-only."""

from __future__ import annotations

import http.client
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pytest

from tests.servegen import ROOT, Server, hhtool, make_db

STATS: list[tuple[str, ...]] = [
    ("stats", "--format", "table"),
    ("stats", "--format", "csv"),
    ("stats", "--format", "json"),
    ("stats", "--format", "json", "--min-hands", "20", "--from", "2000-01-01", "--currency", "EUR", "--rate", "USD=0.9"),
    ("stats", "--player", "bob"),
]
QUERIES: list[tuple[str, ...]] = [
    ("query", "SELECT * FROM seats ORDER BY ALL", "--format", "table"),
    ("query", "SELECT hand_id, started_at, verdict, total_pot FROM hands ORDER BY ALL", "--format", "csv"),
    ("query", "SELECT player, count(*) AS n, list(hand_key ORDER BY hand_key) AS keys FROM seats GROUP BY player ORDER BY player", "--format", "json"),
]
REFUSED: list[tuple[str, ...]] = [
    ("stats", "--player", "bobx"),  # unknown player: 2
    ("query", "DELETE FROM hands"),  # would write: 2
    ("query", "SELECT * FROM read_csv('/etc/hostname')"),  # a file: 2, DuckDB's refusal
    ("query", "SELECT * FROM nope"),  # DuckDB's error: 2
    ("report", "--from", "2099-01-01"),  # no hand: 1, no file
]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _run(args: tuple[str, ...], db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return hhtool(*args, "--db", str(db), *extra)


def _report(db: Path, out: Path, *extra: str) -> str:
    r = hhtool("report", "--db", str(db), "--out", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return UUID.sub("ID", out.read_text(encoding="utf-8"))  # plotly names each graph's <div> by a new uuid4, server or not


def _tables(folder: Path) -> dict[str, tuple[list[tuple[str, str, str]], list[str]]]:
    """Each Parquet file under ``folder``: its Parquet schema (names, physical and logical types) and its rows, sorted."""
    con = duckdb.connect()
    out = {}
    try:
        for f in sorted(folder.rglob("*.parquet")):
            schema = [(str(n), str(t), str(lt)) for n, t, lt in con.execute("SELECT name, type, logical_type FROM parquet_schema(?)", [str(f)]).fetchall()]
            rows = sorted(repr(r) for r in con.execute("SELECT * FROM read_parquet(?, hive_partitioning = false)", [str(f)]).fetchall())
            out[str(f.relative_to(folder))] = (schema, rows)
    finally:
        con.close()
    return out


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The database, and every command's output on it with no server."""
    tmp = tmp_path_factory.mktemp("serve_read")
    db = make_db(tmp)
    got: dict[str, object] = {"db": db, "tmp": tmp}
    for args in STATS + QUERIES + REFUSED[:4]:
        r = _run(args, db)
        got[repr(args)] = (r.returncode, r.stdout, r.stderr)
    r = hhtool("report", "--db", str(db), "--out", str(tmp / "none.html"), "--from", "2099-01-01")
    got["report-none"] = (r.returncode, r.stdout, r.stderr)
    got["report"] = _report(db, tmp / "local.html")
    got["report-player"] = _report(db, tmp / "local-bob.html", "--player", "bob", "--session-gap", "5")
    r = hhtool("export", "--db", str(db), "--parquet", str(tmp / "local-pq"))
    assert r.returncode == 0, r.stderr
    got["export"] = r.stdout.replace(str(tmp / "local-pq"), "OUT")
    got["tables"] = _tables(tmp / "local-pq")
    return got


@pytest.fixture(scope="module")
def server(local: dict[str, object]) -> Iterator[Server]:
    db = local["db"]
    assert isinstance(db, Path)
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def test_the_marker_holds_a_token_for_its_owner_only(server: Server) -> None:
    marker = server.db.with_name(server.db.name + ".serve")
    assert stat.S_IMODE(os.stat(marker).st_mode) == 0o600
    doc = json.loads(marker.read_text(encoding="utf-8"))
    assert doc["pid"] == server.proc.pid and len(doc["token"]) >= 40


@pytest.mark.parametrize("args", STATS + QUERIES, ids=lambda a: " ".join(a)[:60])
def test_stats_and_query_print_the_same_bytes(server: Server, local: dict[str, object], args: tuple[str, ...]) -> None:
    r = _run(args, server.db)
    assert (r.returncode, r.stdout, r.stderr) == local[repr(args)]
    assert r.returncode == 0 and r.stdout


@pytest.mark.parametrize("args", REFUSED[:4], ids=lambda a: " ".join(a)[:60])
def test_refusals_keep_their_words_and_exit_codes(server: Server, local: dict[str, object], args: tuple[str, ...]) -> None:
    r = _run(args, server.db)
    assert (r.returncode, r.stdout, r.stderr) == local[repr(args)]
    assert r.returncode == 2 and r.stderr.startswith("hhtool: ")


def test_report_is_the_same_file(server: Server, local: dict[str, object]) -> None:
    tmp = local["tmp"]
    assert isinstance(tmp, Path)
    assert _report(server.db, tmp / "served.html") == local["report"]
    assert _report(server.db, tmp / "served-bob.html", "--player", "bob", "--session-gap", "5") == local["report-player"]
    out = tmp / "served-none.html"
    r = hhtool("report", "--db", str(server.db), "--out", str(out), "--from", "2099-01-01")
    assert (r.returncode, r.stdout, r.stderr.replace("served-none", "none")) == local["report-none"]
    assert r.returncode == 1 and not out.exists()


def test_export_writes_the_same_tables(server: Server, local: dict[str, object]) -> None:
    tmp = local["tmp"]
    assert isinstance(tmp, Path)
    out = tmp / "served-pq"
    r = hhtool("export", "--db", str(server.db), "--parquet", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.replace(str(out), "OUT") == local["export"]
    assert _tables(out) == local["tables"]  # the same files, each with the same Parquet schema and rows


def test_import_is_still_refused(server: Server) -> None:
    r = hhtool("import", "sample_histories/000_format_example.txt", "--db", str(server.db))
    assert r.returncode == 2 and f"is held by `hhtool serve` (process {server.proc.pid}) at {server.url}" in r.stderr


def _post(server: Server, path: str, doc: object, headers: dict[str, str]) -> tuple[int, dict[str, object]]:
    u = urlparse(server.url)
    con = http.client.HTTPConnection(str(u.hostname), u.port, timeout=30)
    try:
        con.request("POST", path, body=json.dumps(doc).encode(), headers=headers)
        r = con.getresponse()
        body = r.read()
        return r.status, json.loads(body) if r.headers.get("Content-Type", "").startswith("application/json") else {"body": body.decode()}
    finally:
        con.close()


def test_only_the_token_holder_of_this_machine_may_ask(server: Server) -> None:
    token = json.loads(server.db.with_name(server.db.name + ".serve").read_text(encoding="utf-8"))["token"]
    query = {"sql": "SELECT count(*) FROM hands", "format": "csv"}
    status, doc = _post(server, "/api/cli/query", query, {})
    assert status == 403 and "token" in str(doc["error"])
    status, _ = _post(server, "/api/cli/query", query, {"X-Hhtool-Token": token[:-1] + ("A" if token[-1] != "A" else "B")})
    assert status == 403
    status, _ = _post(server, "/api/cli/export", {}, {"X-Hhtool-Token": ""})
    assert status == 403
    status, _ = _post(server, "/api/cli/query", query, {"X-Hhtool-Token": token, "Host": "evil.example"})
    assert status == 400  # a foreign Host: refused before any route (DNS rebinding)
    status, doc = _post(server, "/api/cli/query", query, {"X-Hhtool-Token": token})
    assert status == 200 and str(doc["body"]).startswith("count_star()\n")


@pytest.mark.parametrize("sql", ["DELETE FROM hands", "SELECT * FROM checkpoint()", "SELECT * FROM enable_profiling()",
                                 "SELECT * FROM query('DROP TABLE seats')", "SELECT * FROM read_text('/etc/hostname')",
                                 "COPY hands TO '/tmp/x.csv'", "SET enable_external_access = true"])
def test_the_server_refuses_a_query_that_would_write(server: Server, sql: str) -> None:
    """Sent straight to the server, past the CLI's own check: the same fence, the same words as ``hhtool query``."""
    token = json.loads(server.db.with_name(server.db.name + ".serve").read_text(encoding="utf-8"))["token"]
    status, doc = _post(server, "/api/cli/query", {"sql": sql, "format": "table"}, {"X-Hhtool-Token": token})
    assert status == 422 and doc["kind"] == "ReadOnlyQueryError", doc
    assert str(doc["error"]).startswith("hhtool query is read-only: ")
    status, doc = _post(server, "/api/cli/query", {"sql": "SELECT count(*) AS n FROM seats", "format": "csv"}, {"X-Hhtool-Token": token})
    assert status == 200 and int(str(doc["body"]).split()[1]) > 0  # the tables are all there


def test_a_server_that_does_not_answer_is_named(tmp_path: Path, local: dict[str, object]) -> None:
    """A process holds the file and its ``FILE.serve`` names an address where nothing listens: said, exit 2."""
    db = tmp_path / "held.duckdb"
    src = local["db"]
    assert isinstance(src, Path)
    db.write_bytes(src.read_bytes())
    hold = (
        "import duckdb, json, os, sys, time\n"
        f"c = duckdb.connect({str(db)!r})\n"
        f"open({str(db) + '.serve'!r}, 'w').write(json.dumps({{'url': 'http://127.0.0.1:9/', 'pid': os.getpid(), 'token': 'x'}}))\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        r = hhtool("stats", "--db", str(db))
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert f"is held by `hhtool serve` (process {proc.pid}) at http://127.0.0.1:9/, which does not answer" in r.stderr
    finally:
        proc.kill()
        proc.wait()
