"""Hand-history strings on a terminal and in a spreadsheet: the rule, the renderers, the commands.

The unit tests pin :mod:`hhtool.textsafe` character by character; the rest
imports a hand history whose players are named with terminal escapes and
spreadsheet formulas and runs the commands on it (in the test's process,
:mod:`tests.inprocess`, the bytes as the terminal or the spreadsheet would
get them); two of them run as real processes under a pseudo-terminal, what
only a process shows.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history.errors import ErrorRecord, HandParseError
from hhtool.store.query import render
from hhtool.textsafe import ESCAPES, csv_cell, csv_text, dumps, json_text, term, term_lines
from tests.inprocess import hhtool
from tests.sample_paths import ROOT, SAMPLES

HHTOOL = [sys.executable, "-m", "hhtool.cli"]

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
OTHER = ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
UNSAFE = [*C0, "\x7f", *C1, *OTHER]


def _has_unsafe(text: str) -> list[str]:
    """The unsafe code points ``text`` holds raw (surrogates included)."""
    return sorted({ch for ch in text if ch in ESCAPES or 0xD800 <= ord(ch) <= 0xDFFF})


# ------------------------------------------------------------------ the rule


def test_every_c0_control_is_escaped_visibly() -> None:
    named = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
    for ch in C0:
        assert term(ch) == named.get(ch, f"\\x{ord(ch):02x}")
        assert term(f"a{ch}b") == f"a{term(ch)}b"


def test_del_and_every_c1_control_are_escaped() -> None:
    assert term("\x7f") == "\\x7f"
    for ch in C1:
        assert term(ch) == f"\\x{ord(ch):02x}"
    assert term("\x9b31mred") == "\\x9b31mred"  # the one-byte CSI


def test_separators_bidi_controls_and_surrogates_are_escaped() -> None:
    for ch in OTHER:
        assert term(ch) == f"\\u{ord(ch):04x}"
    assert term("\ud83d") == "\\ud83d"  # a lone surrogate: from a file name that is not UTF-8


def test_escapes_table_is_what_term_does() -> None:
    assert sorted(ESCAPES) == sorted(UNSAFE)
    for ch, shown in ESCAPES.items():
        assert term(ch) == shown and _has_unsafe(shown) == []


def test_the_escapes_of_the_issue() -> None:
    assert term("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert term("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert term("\x1b]52;c;ZWNobyBwd25lZA==\x07") == "\\x1b]52;c;ZWNobyBwd25lZA==\\x07"
    assert term("x\rOWNED") == "x\\rOWNED"


def test_ordinary_names_are_kept() -> None:
    for name in ("alice", "[VIP] Zia (IT)", "o'neil", "Ännchen", "名人", "x: y", "a\\x1b", "emoji 👨\u200d👩\u200d👧", "ü€£$ ¡¿ «»"):
        assert term(name) == name and term_lines(name) == name


def test_term_lines_keeps_line_ends_only() -> None:
    assert term_lines("a\nb\n") == "a\nb\n"
    assert term_lines("a\r\nb\x1b[2J\tc") == "a\\r\nb\\x1b[2J\\tc"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_term_output_never_holds_an_unsafe_code_point(s: str) -> None:
    assert _has_unsafe(term(s)) == []
    assert _has_unsafe(term_lines(s).replace("\n", "")) == []
    if not _has_unsafe(s):
        assert term(s) == s


def test_csv_cell_prefixes_what_a_spreadsheet_would_run() -> None:
    for cell in ('=HYPERLINK("http://evil.example/","x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "-5", "=", "-"):
        assert csv_cell(cell) == "'" + cell
    for cell in ("", "alice", "a=b", "5", "5-2", "'=x", " =1", "[1]"):
        assert csv_cell(cell) == cell


def test_csv_text_escapes_then_prefixes() -> None:
    assert csv_text("=1\x1b[2J") == "'=1\\x1b[2J"
    assert csv_text("\tx") == "\\tx"  # escaped first: it no longer starts with a tab
    assert csv_text("\x1b]0;t\x07") == "\\x1b]0;t\\x07"


def test_json_escapes_what_json_dumps_leaves_raw() -> None:
    value = {"names": ["".join(UNSAFE), "\ud800x", "Ännchen 名人"], "n": -5}
    text = dumps(value)
    assert _has_unsafe(text) == [] and "Ännchen 名人" in text
    assert json.loads(text) == value
    plain = json.dumps(value, ensure_ascii=False)
    assert json.loads(json_text(plain)) == value
    assert json_text('{"a": "b"}') == '{"a": "b"}'


def test_error_records_and_errors_describe_safely() -> None:
    rec = ErrorRecord("parse", "no seat for '\x1b[2J' \x9b", "h\x1b]0;t\x07.txt", 4, 2, "T-1", "x\x1b[2J", (), "raw")
    assert _has_unsafe(str(rec)) == [] and "h\\x1b]0;t\\x07.txt:4:2" in str(rec)
    assert rec.describe(raw=True).startswith("h\x1b]0;t\x07.txt:4:2: parse: no seat for '\x1b[2J' \x9b")
    err = HandParseError("bad \r line", line=3, source="f\rg")
    assert str(err) == "f\\rg:3: bad \\r line" and err.describe(raw=True) == "f\rg:3: bad \r line"


# ------------------------------------------------------------------ query's renderer


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "player": ["\x1b]0;pwned\x07", "-5", "=1+1", "alice", None],
            "n": [-5, 2, -1, 0, 3],
            "x": [-1.5, 0.0, 2.5, 1.0, None],
            "names": [["\x9b31m", "b"], ["-2"], [], ["x\ry"], None],
            "col\x1b[2J": ["a", "b", "c", "d", "e"],
        }
    )


def test_query_csv_prefixes_strings_only_and_escapes() -> None:
    text = render(_frame(), "csv")
    assert _has_unsafe(text.replace("\n", "")) == []
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["player", "n", "x", "names", "col\\x1b[2J"]
    assert [r[0] for r in rows[1:]] == ["\\x1b]0;pwned\\x07", "'-5", "'=1+1", "alice", ""]
    assert [r[1] for r in rows[1:]] == ["-5", "2", "-1", "0", "3"]  # numbers stay numbers
    assert [r[2] for r in rows[1:]] == ["-1.5", "0.0", "2.5", "1.0", ""]
    assert json.loads(rows[1][3]) == ["\x9b31m", "b"] and json.loads(rows[4][3]) == ["x\ry"]


def test_query_column_names_are_cells_too() -> None:
    df = pl.DataFrame({"=a": [1], "\x1b": [2], "\\x1b": [3]})
    assert render(df, "csv").splitlines()[0] == "'=a,\\x1b,\\x1b_"
    assert render(df, "table").splitlines()[0].split("|")[1:4] == [" =a ", " \\x1b ", " \\x1b_ "]


def test_query_maps_are_json_like_lists() -> None:
    import duckdb

    con = duckdb.connect()  # its own: the module's default connection is shared with other tests
    try:
        df = pl.DataFrame(con.sql("SELECT map(['\x1b]0;t\x07'], [-1]) AS m, -1 AS n"))
    finally:
        con.close()
    assert render(df, "csv") == 'm,n\n"{""\\u001b]0;t\\u0007"": -1}",-1\n'  # polars alone cannot write a map to CSV
    assert "\\u001b]0;t\\u0007" in render(df, "table")


def test_query_table_and_json_escape() -> None:
    table = render(_frame(), "table")
    assert _has_unsafe(table.replace("\n", "")) == []
    assert "\\x1b]0;pwned\\x07" in table and "| -5 " in table and "\\u009b31m" in table  # nested: JSON
    data = json.loads(render(_frame(), "json"))
    assert _has_unsafe(render(_frame(), "json").replace("\n", "")) == []
    assert data[0]["player"] == "\x1b]0;pwned\x07" and data[0]["names"] == ["\x9b31m", "b"]


def test_query_raw_is_as_it_was() -> None:
    raw = render(_frame(), "csv", raw=True)
    assert "\x1b]0;pwned\x07" in raw and "\n-5," in raw and "\n=1+1," in raw and "col\x1b[2J" in raw
    assert "\x1b]0;pwned\x07" in render(_frame(), "table", raw=True)


# ------------------------------------------------------------------ the commands, on a hostile history

NAMES = [
    "\x1b]0;pwned\x07",  # OSC 0: set the window title
    "a\x1b[2Jb",  # clear the screen
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",  # OSC 52: write the clipboard
    "\x9b31mred",  # the C1 CSI
    "x\rOWNED",  # a bare CR
    "d\x7fel",
    "\u202eevil",  # right-to-left override
    '=HYPERLINK("http://evil.example/","x")',
    "+1",
    "-2",
    "@SUM(A1)",
]
FORMULAS = NAMES[7:]
TABLE = "Sala\x1b[2J\u202eX"
BAD_LINE = "\x1b]0;pwned\x07: dances \x1b[2J"


def _hostile_text() -> str:
    """One hand per name, each won by that name (so the audit names it), beside the next name; then a hand that does not parse."""
    template = (SAMPLES / "010_classic_own_view_three_hands.txt").read_text(encoding="utf-8").split("\n\n")[0].strip("\n")
    hands = []
    for i, name in enumerate(NAMES):
        other = NAMES[(i + 1) % len(NAMES)]
        hands.append(template.replace("C-2001", f"T-{i}").replace("Vela 2", TABLE).replace("alice", name).replace("bob", other))
    broken = template.replace("C-2001", "T-bad").split("\n")
    broken.insert(9, BAD_LINE)
    hands.append("\n".join(broken).replace("alice", NAMES[0]))
    return "\n\n".join(hands) + "\n"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``hhtool *args`` run from ``cwd`` in this process, its output as the UTF-8 bytes a process writes."""
    with contextlib.chdir(cwd):
        r = hhtool(*args)
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout.encode("utf-8"), r.stderr.encode("utf-8"))


def _unsafe_bytes(data: bytes) -> list[str]:
    """Unsafe code points in what a process wrote, line ends aside."""
    return _has_unsafe(data.decode("utf-8").replace("\n", ""))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(folder, the history file, the database it was imported into) -- the file's name is hostile too."""
    folder = tmp_path_factory.mktemp("hostile")
    history = folder / "hands\x1b]0;title\x07.txt"
    history.write_bytes(_hostile_text().encode("utf-8"))
    (folder / "junk\x1b[2J.txt").write_text("no hand here\n", encoding="utf-8")
    db = tmp_path_factory.mktemp("db") / "h.duckdb"
    r = _run("import", str(folder), "--db", str(db), cwd=folder)
    assert r.returncode == 1, r.stderr  # the broken hand failed; the others are stored
    assert _unsafe_bytes(r.stdout + r.stderr) == []
    assert b"junk\\x1b[2J.txt" in r.stdout and b"1 failed" in r.stdout
    return folder, history, db


def test_import_raw_summary_names_the_file_as_it_is(hostile: tuple[Path, Path, Path], tmp_path: Path) -> None:
    folder, _, _ = hostile
    r = _run("import", str(folder), "--db", str(tmp_path / "raw.duckdb"), "--raw", cwd=folder)
    assert r.returncode == 1 and b"junk\x1b[2J.txt" in r.stdout


def test_audit_text_is_safe_and_raw_is_as_it_was(hostile: tuple[Path, Path, Path]) -> None:
    folder, history, _ = hostile
    r = _run("audit", history.name, cwd=folder)
    assert r.returncode == 1  # the unparsed hand
    assert _unsafe_bytes(r.stdout + r.stderr) == []
    out = r.stdout.decode()
    for name in NAMES:
        assert f"{term(name)}: €0.30 / €0.30" in out
    assert [line.startswith("== hands\\x1b]0;title\\x07.txt:") for line in out.splitlines() if "[hand T-bad]" in line] == [True]
    raw = _run("audit", history.name, "--raw", cwd=folder).stdout.decode()
    for name in NAMES:
        assert f"{name}: €0.30 / €0.30" in raw


def test_parse_errors_are_safe_and_raw_is_as_it_was(hostile: tuple[Path, Path, Path]) -> None:
    folder, history, _ = hostile
    r = _run("parse", history.name, cwd=folder)
    assert r.returncode == 1 and _unsafe_bytes(r.stdout + r.stderr) == []
    assert b"\nhands\\x1b]0;title\\x07.txt:" in b"\n" + r.stdout and b"11 hand(s) parsed, 1 failed" in r.stdout
    strict = _run("parse", "--strict", history.name, cwd=folder)
    assert strict.returncode == 1 and _unsafe_bytes(strict.stdout + strict.stderr) == []
    first, quoted, caret = strict.stderr.decode().splitlines()[:3]
    assert quoted == "    " + term(BAD_LINE)
    column = int(first.split(":")[3])
    assert column > 10 and quoted[caret.index("^")] == BAD_LINE[column - 1]  # the same character, escapes before it counted
    raw = _run("parse", "--strict", "--raw", history.name, cwd=folder)
    assert ("    " + BAD_LINE).encode() in raw.stderr
    js = _run("parse", "--json", history.name, cwd=folder)
    assert _unsafe_bytes(js.stdout + js.stderr) == []
    players = {s["player"] for line in js.stdout.decode().splitlines() for s in json.loads(line).get("seats", [])}
    assert players == {*NAMES, "carol"}


def test_query_table_and_csv_on_the_hostile_database(hostile: tuple[Path, Path, Path]) -> None:
    folder, _, db = hostile
    sql = "SELECT s.player, s.seat, h.table_name FROM seats s JOIN hands h USING (hand_key) ORDER BY h.hand_id, s.seat"
    table = _run("query", sql, "--db", str(db), cwd=folder)
    assert table.returncode == 0 and _unsafe_bytes(table.stdout + table.stderr) == []
    assert all(term(n).encode() in table.stdout for n in NAMES) and term(TABLE).encode() in table.stdout
    out = db.parent / "q.csv"
    r = _run("query", sql, "--db", str(db), "--format", "csv", "--out", str(out), cwd=folder)
    assert r.returncode == 0 and _unsafe_bytes(out.read_bytes()) == []
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    players = {row["player"] for row in rows}
    assert {"'" + f for f in FORMULAS} <= players and not players & set(FORMULAS)
    assert all(row["seat"].isdigit() for row in rows)
    raw = _run("query", sql, "--db", str(db), "--format", "csv", "--raw", cwd=folder)
    raw_players = {row["player"] for row in csv.DictReader(io.StringIO(raw.stdout.decode(), newline=""))}
    assert raw_players == {*NAMES, "carol"}


def test_stats_table_csv_json_on_the_hostile_database(hostile: tuple[Path, Path, Path]) -> None:
    folder, _, db = hostile
    table = _run("stats", "--db", str(db), "--format", "detail", cwd=folder)
    assert table.returncode == 0 and _unsafe_bytes(table.stdout + table.stderr) == []
    assert all(f"== {term(n)}".encode() in table.stdout for n in NAMES)
    grid = _run("stats", "--db", str(db), cwd=folder)  # the grid: each name escaped, cut to its column
    assert grid.returncode == 0 and _unsafe_bytes(grid.stdout + grid.stderr) == []
    assert all(term(n)[:10].encode() in grid.stdout for n in NAMES)
    text = _run("stats", "--db", str(db), "--format", "csv", cwd=folder).stdout
    assert _unsafe_bytes(text) == []
    rows = list(csv.DictReader(io.StringIO(text.decode())))
    # a row is an account: a name holding '@' is always written NAME@SITE (docs/stats.md, "Players and accounts")
    keys = [f"{n}@Vela" if "@" in n else n for n in [*NAMES, "carol"]]
    assert {r["player"] for r in rows} == {csv_text(k) for k in keys}
    assert {"'" + (f"{f}@Vela" if "@" in f else f) for f in FORMULAS} <= {r["player"] for r in rows}
    for r in rows:  # every other cell a number (negative ones unprefixed) or empty (no opportunity)
        for k, v in r.items():
            if k != "player" and v != "":
                float(v)
    assert any(r["net_EUR_cents"].startswith("-") for r in rows)
    js = _run("stats", "--db", str(db), "--format", "json", cwd=folder).stdout
    assert _unsafe_bytes(js) == [] and {r["player"] for r in json.loads(js)["players"]} == set(keys)
    raw = _run("stats", "--db", str(db), "--format", "csv", "--raw", cwd=folder).stdout.decode()
    assert {r["player"] for r in csv.DictReader(io.StringIO(raw, newline=""))} == set(keys)


def test_report_shows_control_characters_escaped(hostile: tuple[Path, Path, Path]) -> None:
    folder, _, db = hostile
    out = db.parent / "r.html"
    r = _run("report", "--db", str(db), "--out", str(out), cwd=folder)
    assert r.returncode == 0, r.stderr
    html = out.read_text(encoding="utf-8")  # plotly's JavaScript inside holds control characters of its own
    for name in NAMES[:7]:  # the ones with control characters
        assert name not in html
    assert '">\\x1b]0;pwned\\x07</td>' in html and '">x\\rOWNED</td>' in html and '">&#x27;' not in html


def _under_pty(args: list[str], cwd: Path) -> bytes:
    """What a terminal receives from the command: its stdout and stderr on a real pseudo-terminal."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(slave)
    chunks = []
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(timeout=120)
    return b"".join(chunks)


def test_a_pseudo_terminal_receives_no_raw_escape_byte(hostile: tuple[Path, Path, Path]) -> None:
    folder, history, db = hostile
    for args in (["audit", history.name], ["query", "SELECT player FROM seats", "--db", str(db)]):
        got = _under_pty([*HHTOOL, *args], folder)
        assert b"\\x1b]0;pwned\\x07" in got and b"x\\rOWNED" in got  # the names came, escaped
        for byte in (b"\x1b", b"\x07", b"\x7f", b"\xc2\x9b", "\u202e".encode()):
            assert byte not in got, (args, byte)
        assert b"\r" not in got.replace(b"\r\n", b"")  # the terminal's own line ends (onlcr) aside
