"""``hhtool import`` names the hands that failed in this run (issue 41): file:line, hand id, reason; the first ten, a count, the command."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.store.summary import SHOWN_FAILED, FailedHand
from hhtool.textsafe import term
from tests.sample_paths import BROKEN, GOOD, SAMPLES

runner = CliRunner()

UNKNOWN = (SAMPLES / "broken" / "unknown_action.txt").read_text(encoding="utf-8")
HOSTILE_FILE = "evil\x1b]0;pwned\x07.txt"
HOSTILE_ACTION = "bob: \x1b[2J\x1b[31mred\x9b1m"
WIDTH = 80


def _bad_hand(hand_id: str, action: str) -> str:
    """The broken sample's hand (an unknown action on 3rd street) under another id and with another action."""
    return UNKNOWN.replace("C-1001", hand_id).replace("bob: dances", action)


def _folder(tmp_path: Path) -> Path:
    """Good hands, the nine broken samples, five more broken hands in one file and one in a file with a hostile name: 15 fail."""
    folder = tmp_path / "h"
    folder.mkdir()
    for p in [*BROKEN, GOOD[1]]:
        shutil.copy(p, folder / p.name)
    (folder / "many.txt").write_text("\n\n".join(_bad_hand(f"C-20{i:02d}", f"bob: dances{i}") for i in range(5)), encoding="utf-8")
    (folder / HOSTILE_FILE).write_text(_bad_hand("C-3001", HOSTILE_ACTION), encoding="utf-8")
    return folder


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _import(folder: Path, db: Path, *extra: str) -> Any:
    return runner.invoke(app, ["import", str(folder), "--db", str(db), "--workers", "2", *extra])


def _entries(output: str) -> tuple[list[str], list[str]]:
    """The lines of the failed hands' block, and each listed hand as one string (its lines joined, the wrapping undone)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("failed: ") and "stored in the failed table" in line)
    block = [lines[start]]
    entries: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("      "):
            entries[-1] += " " + line.strip()
        elif line.startswith("  ") and not line.startswith("  hhtool query"):
            entries.append(line.strip())
        else:
            break
        block.append(line)
    return block, entries


def _shown(path: str) -> str:
    """A failed row's file as the summary shows it: relative to the working folder (the tests run in ``tmp_path``)."""
    return term(str(Path(path).relative_to(Path.cwd())))


def _check_entry(entry: str, row: tuple[Any, ...]) -> None:
    file, line, hand_id, kind, message, expected = row
    head = f"{_shown(file)}:{line} hand {hand_id}: "
    assert entry.startswith(head), (entry, head)
    reason = term(f"{kind}: {message}" + (f" (expected {expected})" if expected else ""))
    said = entry[len(head) :]
    if said.endswith("…"):  # cut: what is said is the reason's start
        assert len(said) > 20 and " ".join(reason.split()).startswith(said[:-1].rstrip()), (said, reason)
    else:
        assert said == " ".join(reason.split()), (said, reason)


ALL = "SELECT file, line, hand_id, kind, message, expected FROM failed ORDER BY file, line"


@pytest.mark.parametrize("batch", ["10000", "1"])  # one transaction, or one a chunk: the first ten across them, the command's times
def test_first_ten_named_then_count_and_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: str) -> None:
    monkeypatch.chdir(tmp_path)
    folder, db = _folder(tmp_path), tmp_path / "h.duckdb"
    result = _import(folder, db, "--batch", batch)
    assert result.exit_code == 1, result.output
    rows = _rows(db, ALL)
    assert len(rows) == 15 and "hands: " in result.output and ", 15 failed" in result.output
    block, entries = _entries(result.output)
    assert block[0] == "failed: 15 hands stored in the failed table; the first 10 by file and line:"
    assert len(entries) == SHOWN_FAILED
    for entry, row in zip(entries, rows):
        _check_entry(entry, row)
    # the rest counted, then the command that lists them all
    lines = result.output.splitlines()
    at = lines.index("and 5 more; to list all 15:")
    command = lines[at + 1].strip()
    assert command.startswith("hhtool query --db ")
    if batch == "1":  # several transactions stored them: the command spans their times
        assert len({r[0] for r in _rows(db, "SELECT DISTINCT imported_at FROM failed")}) > 1
    # 80 columns: every line of the block (the command excepted: it is copied whole)
    assert all(len(line) <= WIDTH for line in block), [line for line in block if len(line) > WIDTH]
    # the hostile file name and line, escaped: nothing reaches the terminal raw
    assert not any(c in result.output for c in "\x1b\x07\x9b")
    hostile = next(e for e in entries if e.startswith("h/evil"))
    assert hostile.startswith("h/evil\\x1b]0;pwned\\x07.txt:27 hand C-3001: parse: unexpected text ': \\x1b[2J\\x1b[31mred\\x9b1m'")

    # a later import stores other failures: the command still lists this run's, all of them
    later = tmp_path / "later"
    later.mkdir()
    (later / "x.txt").write_text(_bad_hand("C-4001", "bob: hops"), encoding="utf-8")
    assert _import(later, db).exit_code == 1
    args = shlex.split(command)
    assert args[:3] == ["hhtool", "query", "--db"] and args[3] == str(db)
    listed = runner.invoke(app, [*args[1:], "--format", "json"])
    assert listed.exit_code == 0, listed.output
    got = [(r["file"], r["line"], r["hand_id"], r["kind"], r["message"], r["expected"]) for r in json.loads(listed.output)]
    assert got == rows  # the 15 of the first run, in the listing's order; not C-4001
    assert len(_rows(db, "SELECT * FROM failed")) == 16


def test_json_carries_the_first_ten_the_count_and_the_command(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), tmp_path / "h.duckdb"
    result = _import(folder, db, "--json")
    assert result.exit_code == 1, result.output
    assert not any(c in result.output for c in "\x1b\x07\x9b")  # escaped in the JSON text, exact once read
    out = json.loads(result.output)
    rows = _rows(db, "SELECT file, line, first_line, hand_id, kind, message, expected FROM failed ORDER BY file, line")
    assert (out["failed"], out["failed_new"]) == (15, 15)
    keys = ("file", "line", "first_line", "hand_id", "kind", "message", "expected")
    assert [tuple(h[k] for k in keys) for h in out["failed_hands"]] == rows[:SHOWN_FAILED]
    assert any(h["file"].endswith(HOSTILE_FILE) and "[31mred" in h["message"] for h in out["failed_hands"])  # the file's name exact
    assert out["failed_command"] == f'hhtool query --db {shlex.quote(str(db))} "{out["failed_sql"]}"'
    listed = runner.invoke(app, ["query", out["failed_sql"], "--db", str(db), "--format", "json"])
    assert len(json.loads(listed.output)) == 15


def test_nothing_about_failures_when_none_failed(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    result = runner.invoke(app, ["import", *map(str, GOOD), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert ", 0 failed" in result.output
    assert not [line for line in result.output.splitlines() if line.startswith(("failed", "  ", "and "))]
    assert "hhtool query" not in result.output
    out = json.loads(runner.invoke(app, ["import", *map(str, GOOD), "--db", str(tmp_path / "j.duckdb"), "--json"]).output)
    assert (out["failed_hands"], out["failed_sql"], out["failed_command"]) == ([], None, None)


def test_a_new_import_names_only_its_own_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder, db = _folder(tmp_path), tmp_path / "h.duckdb"
    assert _import(folder, db).exit_code == 1
    # the same files again: nothing read, nothing said about the old failures
    again = _import(folder, db)
    assert again.exit_code == 0, again.output
    assert "failed:" not in again.output and "hhtool query" not in again.output and ", 0 failed" in again.output
    # many.txt grows by one broken hand: read again, its five old hands fail again (not listed), the new one is
    many = folder / "many.txt"
    many.write_text(many.read_text(encoding="utf-8") + "\n\n" + _bad_hand("C-5001", "bob: skips"), encoding="utf-8")
    grown = _import(folder, db)
    assert grown.exit_code == 1, grown.output
    assert ", 6 failed" in grown.output
    block, entries = _entries(grown.output)
    assert block[0] == "failed: 1 hand stored in the failed table, by file and line:"
    assert len(entries) == 1 and entries[0].startswith("h/many.txt:322 hand C-5001: parse: unexpected text ': skips' at column 4")
    lines = grown.output.splitlines()
    assert "failed: 5 hands already in the failed table (read before), not listed again" in lines
    command = lines[lines.index("to list them with nothing cut:") + 1].strip()
    listed = runner.invoke(app, [*shlex.split(command)[1:], "--format", "json"])
    assert [(r["hand_id"], r["line"]) for r in json.loads(listed.output)] == [("C-5001", 322)]
    out = json.loads(_import(folder, db, "--json").output)  # and once more: nothing
    assert (out["failed"], out["failed_hands"], out["failed_command"]) == (0, [], None)


def test_a_hostile_hand_id_and_reason_are_shown_escaped_and_whole() -> None:
    hand_id = "C-\x1b]0;pwned\x07" + "9" * 90
    f = FailedHand("/nowhere/x.txt", 7, 1, hand_id, "parse", "unexpected text '\x1b[2J\u202e' at column 4 " + "word " * 60, "a, b")
    lines = f.lines()
    assert lines[0].startswith(f"  /nowhere/x.txt:7 hand {term(hand_id)}:")  # whole, over 80 columns
    assert not any(c in "".join(lines) for c in "\x1b\x07\u202e")
    assert "\\x1b[2J\\u202e" in "".join(lines)
    assert len(lines) == 3 and lines[-1].endswith("…") and all(len(line) <= WIDTH for line in lines[1:])
    assert f.lines(raw=True)[0].startswith(f"  /nowhere/x.txt:7 hand {hand_id}:")
    wide = FailedHand("/nowhere/x.txt", 7, 1, None, "inconsistent", "漢字 " * 40 + "end", None)
    shown = wide.lines()
    assert shown[0].startswith("  /nowhere/x.txt:7 no hand id: inconsistent: 漢字")
    # a wide character takes two columns
    assert all(len(line) + sum(1 for c in line if c == "漢" or c == "字") <= WIDTH for line in shown)
