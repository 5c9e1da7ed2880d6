"""Size bounds through real processes: ``hhtool parse``, ``audit`` and ``import`` on lines of megabytes, with their peak memory.

Each command runs under a small Python parent that waits for it and reports
``RUSAGE_CHILDREN``'s peak resident set: the largest of the command and its
import workers.  Before the bounds, a 5 MB line cost ``parse`` 2.1 GB and a
line of 64 MiB without a line end cost the import 1.2 GB (128 MiB crashed
it); the bounds asserted here are what the program itself needs, whatever
the size of the line.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import duckdb

from hhtool.history.bounds import MAX_LINE_CHARS
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8").strip("\n")
_MEASURED = (
    "import json, resource, subprocess, sys\n"
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
    "print(json.dumps([p.returncode, p.stdout, p.stderr, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n"
)


def hhtool(*args: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in MB of the command and its workers)."""
    r = subprocess.run(
        [sys.executable, "-c", _MEASURED, sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, timeout=320
    )
    assert r.returncode == 0, r.stderr
    code, out, err, kb = json.loads(r.stdout)
    return code, out, err, kb // 1024


def hand(hand_id: str) -> str:
    return EXAMPLE.replace("C-1001", hand_id)


def endless(path: Path) -> int:
    """Two good hands, then a header and 128 MiB without a line end; returns the header's line."""
    head = hand("G-1") + "\n\n" + hand("G-2") + "\n\n" + hand("G-3").split("\n")[0] + "\n"
    block = b"x" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) if path.suffix == ".gz" else path.open("wb") as f:
        f.write(head.encode())
        for _ in range(128):
            f.write(block)
    return head.count("\n")


def test_parse_a_5_mb_line_between_good_hands(tmp_path: Path) -> None:
    bad = hand("G-2").split("\n")
    bad.insert(12, "Dealt to alice " + "[" * 5_000_000)
    path = tmp_path / "h.txt"
    path.write_text(hand("G-1") + "\n\n" + "\n".join(bad) + "\n\n" + hand("G-3") + "\n", encoding="utf-8")
    code, out, err, mb = hhtool("parse", str(path))
    line = len(hand("G-1").split("\n")) + 1 + 13
    assert code == 1, err
    assert "1 file(s), 2 hand(s) parsed, 1 failed" in out
    assert f"{path}:{line}:4097: parse: the line is 5,000,015 characters long; the longest accepted is 4,096" in out
    assert "[hand G-2]" in out and "Traceback" not in err
    assert mb < 150, mb  # the Lark fallback on the whole line took 2.1 GB


def test_import_a_gz_with_128_mib_without_a_line_end(tmp_path: Path) -> None:
    # a .gz, not a .zip: a zip member that expands more than 200 times is taken for a zip bomb and not read (test_bounds_archive.py)
    path = tmp_path / "endless.txt.gz"
    header_line = endless(path)
    assert path.stat().st_size < 1 << 20  # compressed, it is small
    db = tmp_path / "h.duckdb"
    code, out, err, mb = hhtool("import", str(path), "--db", str(db), "--workers", "1")  # the chunk and its Unread go to a worker
    assert code == 1, err
    assert "Traceback" not in err and "1 failed" in out
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert sorted(r[0] for r in con.execute("SELECT hand_id FROM hands").fetchall()) == ["G-1", "G-2"]
        ((hand_id, line, first, message, raw),) = con.execute("SELECT hand_id, line, first_line, message, raw_text FROM failed").fetchall()
    finally:
        con.close()
    assert (hand_id, line, first) == ("G-3", header_line + 1, header_line)
    assert message.startswith(f"the line is {128 << 20:,} characters long; the longest accepted is 4,096")
    assert raw == hand("G-3").split("\n")[0] + "\n" + "x" * MAX_LINE_CHARS + "\n"
    assert mb < 400, mb  # 64 MiB took 1.2 GB; 128 MiB ran DuckDB out of memory


def test_audit_128_mib_without_a_line_end(tmp_path: Path) -> None:
    path = tmp_path / "endless.txt"
    header_line = endless(path)
    code, out, err, mb = hhtool("audit", str(path))
    assert code == 1, err
    assert "Traceback" not in err
    assert f"{path}:{header_line + 1}:4097: parse: the line is {128 << 20:,} characters long" in out
    assert "3 hand(s) audited: 2 ok, 1 unparsed" in out
    assert mb < 150, mb
