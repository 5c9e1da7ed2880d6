"""Zip archives are opened once a pass and read within bounds (``hhtool/history/bounds.py``, docs/format-notes.md).

An archive used to be opened again, its whole central directory read, for
every member read (twice a member in an import: its hash, then its
chunks): 8,000 members took 210 s.  Time is not measured here: the
openings are counted (``zipfile.ZipFile`` made to read an archive), and
they no longer grow with the members.  Past a bound (the entries of an
archive, a member's size, how much a member or an archive expands) the
archive or the member is unreadable with a message naming the bound, and
every other file, archive and member is read: by ``hhtool import``, by
``parse``/``audit`` and by the live import.  The small bounds are set for
a test; the zip bombs are real ones.
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import chdir
from pathlib import Path
from typing import Any

import duckdb
import pytest

from hhtool.history import bounds
from hhtool.history.archives import ARCHIVE_ERRORS
from hhtool.history.files import find_units
from hhtool.history.inputs import InputReport, read_inputs
from hhtool.history.reader import Skipped
from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from hhtool.store.live import LiveImport
from hhtool.store.sources import content_hash
from tests.inprocess import hhtool
from tests.storegen import hand

MEMBERS = 3_000
"""Members of the archive whose openings are counted: the old way made 3,000 openings of 3,000 entries each."""
HANDS_EVERY = 60
"""One member in this many holds a hand, the others a note: the import hashes every member and reads the hands (50)."""


def _zip(path: Path, members: dict[str, bytes | str], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


@pytest.fixture
def openings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each ``zipfile.ZipFile`` made to read an archive from now on: the archive's name (one per read of its directory)."""
    made: list[str] = []
    init: Callable[..., None] = zipfile.ZipFile.__init__

    def counting(self: zipfile.ZipFile, file: Any, mode: str = "r", *args: Any, **kw: Any) -> None:
        if mode == "r":
            fd = file.fileno() if hasattr(file, "fileno") else None
            made.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name if fd is not None else str(file))
        init(self, file, mode, *args, **kw)

    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    return made


def _many(path: Path) -> set[str]:
    """An archive of :data:`MEMBERS` tiny members, one in :data:`HANDS_EVERY` a hand; the hands' ids."""
    ids = {f"Z-{i}" for i in range(0, MEMBERS, HANDS_EVERY)}
    _zip(path, {f"day/{i:05d}.txt": hand(f"Z-{i}") if f"Z-{i}" in ids else f"note {i}\n" for i in range(MEMBERS)})
    return ids


def _stored(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {str(r[0]) for r in con.execute("SELECT hand_id FROM hands").fetchall()}


def _hands(records: Iterator[tuple[str, object]]) -> list[str]:
    return [name for name, record in records if not isinstance(record, Skipped)]


def _import(*args: str) -> tuple[int, dict[str, Any]]:
    r = hhtool("import", *args, "--json")
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout)


def _unreadable(summary: dict[str, Any]) -> dict[str, str]:
    """``unreadable`` as {name after the folder: why}."""
    out: dict[str, str] = {}
    for entry in summary["unreadable"]:
        path, _, why = entry.partition(": ")
        out[path.rsplit("/", 1)[1]] = why
    return out


def test_an_archive_of_thousands_of_members_is_opened_once_a_pass(tmp_path: Path, openings: list[str]) -> None:
    ids = _many(tmp_path / "many.zip")
    # parse and audit (read_inputs): the members listed and read, one opening
    report = InputReport()
    assert len(_hands(read_inputs([tmp_path / "many.zip"], report=report))) == len(ids)
    assert len(report.not_histories) == MEMBERS - len(ids) and not report.unreadable
    assert openings == ["many.zip"]
    # the import: every member hashed, the hands' members read again in chunks, one opening
    openings.clear()
    summary = import_paths([tmp_path / "many.zip"], tmp_path / "h.duckdb", workers=0)
    assert openings == ["many.zip"]
    assert summary.stored == len(ids) and len(summary.not_histories) == MEMBERS - len(ids) and not summary.unreadable
    assert _stored(tmp_path / "h.duckdb") == ids


def test_several_archives_are_each_opened_once_to_list_and_once_to_read(tmp_path: Path, openings: list[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    ids: set[str] = set()
    for name in ("a", "b", "c"):
        _zip(folder / f"{name}.zip", {f"{k}.txt": hand(f"{name}-{k}") for k in range(30)})
        ids |= {f"{name}-{k}" for k in range(30)}
    (folder / "plain.txt").write_text(hand("P-1"), encoding="utf-8")
    summary = import_paths([folder], tmp_path / "h.duckdb", workers=0)
    assert summary.stored == len(ids) + 1 and not summary.unreadable
    # listed a, b, c, then read a, b, c: one open at a time, each directory read once a pass
    assert openings == ["a.zip", "b.zip", "c.zip"] * 2


def test_members_with_the_same_name_are_each_read(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(tmp_path / "twice.zip", "w") as z:
        z.writestr("x.txt", hand("D-1"))
        z.writestr("x.txt", hand("D-2"))  # the name was looked up, and the last entry of that name read twice
    summary = import_paths([tmp_path / "twice.zip"], tmp_path / "h.duckdb", workers=0)
    assert summary.stored == 2 and _stored(tmp_path / "h.duckdb") == {"D-1", "D-2"}


def test_an_archive_changed_between_listing_and_reading_gives_its_new_bytes_or_an_error(tmp_path: Path, openings: list[str]) -> None:
    path = tmp_path / "a.zip"
    _zip(path, {"1.txt": hand("A-1"), "2.txt": hand("A-2"), "3.txt": hand("A-3")}, zipfile.ZIP_STORED)
    units = find_units([path]).units
    with units[0].open() as f:
        assert f.read() == hand("A-1").encode()
    # replaced by another archive (another inode): read from the new one, the same names
    _zip(tmp_path / "b.zip", {"1.txt": hand("B-1"), "2.txt": hand("B-22"), "3.txt": hand("B-3")}, zipfile.ZIP_STORED).replace(path)
    with units[1].open() as f:
        assert f.read() == hand("B-22").encode()
    assert openings == ["a.zip", "a.zip"]
    # rewritten in place, same size, its mtime set back: its ctime says it changed; the member's CRC fails, no wrong bytes
    before = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as f:
        f.write(data.replace(b"B-3:", b"X-3:", 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(zipfile.BadZipFile, match="Bad CRC-32"), units[2].open() as f:
        f.read()
    # a member gone: a clear error (it was a KeyError, which stopped the import), through the import's hash too
    _zip(tmp_path / "c.zip", {"1.txt": hand("C-1")}).replace(path)
    with pytest.raises(ARCHIVE_ERRORS, match="no member '2.txt': the archive changed since it was listed"):
        units[1].open()
    with pytest.raises(OSError, match="damaged, truncated or of an unsupported kind \\(no member '3.txt'"):
        content_hash(units[2])
    # truncated: unreadable, as it always was
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(ARCHIVE_ERRORS):
        units[0].open()


def test_a_unit_sent_to_another_process_opens_its_archive_there(tmp_path: Path) -> None:
    _zip(tmp_path / "a.zip", {"1.txt": hand("A-1")})
    unit = find_units([tmp_path / "a.zip"]).units[0]
    again = pickle.loads(pickle.dumps(unit))
    assert again == unit
    with again.open() as f:
        assert f.read() == hand("A-1").encode()


def _over_members(folder: Path) -> tuple[set[str], set[str]]:
    """Beside an archive at the bound (20 entries) and a plain file, two over it: one honest, one whose end record says 5 entries."""
    at = {f"K-{k}" for k in range(20)}
    _zip(folder / "at.zip", {f"{k}.txt": hand(f"K-{k}") for k in range(20)})
    _zip(folder / "over.zip", {f"{k}.txt": hand(f"O-{k}") for k in range(21)})
    lying = bytearray(_zip(folder / "lying.zip", {f"{k}.txt": hand(f"L-{k}") for k in range(21)}).read_bytes())
    end = lying.rindex(b"PK\x05\x06")
    struct.pack_into("<HH", lying, end + 8, 5, 5)  # entries on this disk, entries in all
    (folder / "lying.zip").write_bytes(lying)
    (folder / "plain.txt").write_text(hand("P-1"), encoding="utf-8")
    return at | {"P-1"}, {f"O-{k}" for k in range(21)} | {f"L-{k}" for k in range(21)}


def test_an_archive_over_the_bound_on_entries_is_not_read_and_the_rest_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openings: list[str]
) -> None:
    monkeypatch.setattr(bounds, "MAX_ARCHIVE_MEMBERS", 20)
    folder = tmp_path / "in"
    folder.mkdir()
    read, not_read = _over_members(folder)
    code, summary = _import(str(folder), "--db", str(tmp_path / "h.duckdb"))
    assert code == 1
    why = "a zip archive of more than 20 entries: at most 20 are read from one archive; none of it was read (split it into smaller archives)"
    assert _unreadable(summary) == {"over.zip": why, "lying.zip": why}
    assert _stored(tmp_path / "h.duckdb") == read and not read & not_read
    # the directories over the bound were counted, never read into zipfile's objects (a gigabyte for millions of entries)
    assert set(openings) == {"at.zip"}
    for command in ("parse", "audit"):
        r = hhtool(command, str(folder))
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert f"{folder / 'over.zip'}: cannot be read ({why}); skipped" in r.stderr
        assert f"{folder / 'lying.zip'}: cannot be read ({why}); skipped" in r.stderr
        assert "21 hand(s)" in r.stdout  # at.zip's 20 and the plain file's


def test_a_member_over_the_size_bound_is_not_read_and_the_others_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_MEMBER_BYTES", 50_000)
    big = "\n".join(hand(f"B-{k}") for k in range(40)).encode()  # about 100 KB, compressed 10 times: only the size bound
    _zip(tmp_path / "a.zip", {"big.txt": big, "small.txt": hand("S-1")})
    code, summary = _import(str(tmp_path / "a.zip"), "--db", str(tmp_path / "h.duckdb"))
    assert code == 1
    assert _unreadable(summary) == {
        "a.zip!big.txt": f"a zip member of {len(big):,} bytes uncompressed: the largest read is 50,000; not read (extract it and import the file)"
    }
    assert _stored(tmp_path / "h.duckdb") == {"S-1"}


def _bomb(path: Path, good: str) -> int:
    """An archive of a zip bomb (50 MiB of zeros, deflated to about 50 KB) and a good hand; the bomb's size."""
    size = 50 << 20
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("bomb.txt", "w") as f:
            for _ in range(50):
                f.write(bytes(1 << 20))
        z.writestr("good.txt", good)
    return size


def _overlapping(path: Path, copies: int) -> None:
    """A zip bomb of overlapping entries: one member of 1 MiB of hands, its directory entry written ``copies`` times.

    Each entry alone is within every bound; together they read the same
    compressed bytes ``copies`` times (Python 3.11's zipfile does not refuse overlaps).
    """
    text = ("\n".join(hand(f"V-{k}") for k in range(400)).encode() * 2)[: bounds.RATIO_FREE_BYTES]
    data = _zip(path, {"v.txt": text}).read_bytes()
    end = data.rindex(b"PK\x05\x06")
    entries, size, offset = struct.unpack_from("<HLL", data, end + 10)
    assert entries == 1
    entry = data[offset : offset + size]
    record = bytearray(data[end:])
    struct.pack_into("<HHL", record, 8, copies, copies, size * copies)
    path.write_bytes(data[:offset] + entry * copies + bytes(record))


def test_zip_bombs_are_not_read_and_the_rest_is(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    size = _bomb(folder / "bomb.zip", hand("G-1"))
    packed = zipfile.ZipFile(folder / "bomb.zip").getinfo("bomb.txt").compress_size
    # many small bombs, each within the bound alone (1 MiB, the size up to which a ratio is not looked at): the archive is one
    with zipfile.ZipFile(folder / "small_bombs.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for k in range(100):
            z.writestr(f"{k}.txt", bytes(bounds.RATIO_FREE_BYTES))
    _overlapping(folder / "overlapping.zip", 300)
    _zip(folder / "fine.zip", {"f.txt": hand("F-1")})
    (folder / "plain.txt").write_text(hand("P-1"), encoding="utf-8")
    code, summary = _import(str(folder), "--db", str(tmp_path / "h.duckdb"))
    assert code == 1
    bad = _unreadable(summary)
    assert set(bad) == {"bomb.zip!bomb.txt", "small_bombs.zip", "overlapping.zip"}, bad
    ratio = f"{size / packed:,.0f}"
    assert bad["bomb.zip!bomb.txt"] == (
        f"a zip member that expands {ratio} times ({packed:,} bytes to {size:,} uncompressed): more than 200 times is taken for a zip bomb; not read"
    )
    small = (folder / "small_bombs.zip").stat().st_size
    assert bad["small_bombs.zip"].startswith(f"a zip archive that expands {100 * bounds.RATIO_FREE_BYTES / small:,.0f} times ({small:,} bytes to ")
    assert bad["overlapping.zip"].startswith("a zip archive that expands ") and "taken for a zip bomb; not read" in bad["overlapping.zip"]
    assert _stored(tmp_path / "h.duckdb") == {"G-1", "F-1", "P-1"}
    for command in ("parse", "audit"):
        with chdir(folder):
            r = hhtool(command, ".")
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert f"bomb.zip!bomb.txt: cannot be read (a zip member that expands {ratio} times" in r.stderr
        assert "small_bombs.zip: cannot be read (a zip archive that expands" in r.stderr
        assert "overlapping.zip: cannot be read (a zip archive that expands" in r.stderr
        assert "3 hand(s)" in r.stdout  # G-1 (beside the bomb), F-1 and P-1


def test_the_live_import_names_a_bomb_in_its_errors_and_stores_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    _bomb(folder / "bomb.zip", hand("G-1"))
    (folder / "plain.txt").write_text(hand("P-1") + "\n\n", encoding="utf-8")
    con = connect(tmp_path / "h.duckdb")
    try:
        with LiveImport(con, [folder], settle=0.2) as live:
            _wait(lambda: live.status().hands_stored == 2 and bool(live.status().errors))
            errors = live.status().errors
    finally:
        con.close()
    assert any(e.startswith(f"cannot read {folder / 'bomb.zip'}!bomb.txt: a zip member that expands ") for e in errors), errors
    assert _stored(tmp_path / "h.duckdb") == {"G-1", "P-1"}


def _wait(done: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "not done in time"
        time.sleep(0.05)
