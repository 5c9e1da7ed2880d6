"""``hhtool import`` over odd filesystem objects and archives, on real files.

Links that loop, FIFOs, devices, sockets, damaged archives, unsafe zip
member names and unreadable folders beside good hand histories: the good
hands are imported, every skip is in the summary with its reason, nothing
hangs and a re-run adds nothing and fails nowhere the first run succeeded.
Where a hang or the user's privileges are tested (FIFOs, devices, an
unreadable folder) the command is a real process under a timeout; elsewhere
it runs in the test's process.  The rules: docs/format-notes.md,
"Files an import reads".
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import chdir, contextmanager
from pathlib import Path
from typing import Any

import pytest

from hhtool.history.files import MAX_LINK_DEPTH
from tests.inprocess import hhtool
from tests.sample_paths import ROOT, SAMPLES
from tests.test_cli_import import _rows

A = SAMPLES / "010_classic_own_view_three_hands.txt"
B = SAMPLES / "020_stellapoker_pot_limit_split_pot.txt"
C = SAMPLES / "030_italian_no_limit_side_pots.txt"
D = SAMPLES / "040_italian_vela_at_start_wild.txt"
TIMEOUT = 120  # a hang fails the test instead of stopping the suite


def _run(
    *args: str, cwd: Path = ROOT, preexec: Callable[[], None] | None = None, env: dict[str, str] | None = None, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``hhtool *args`` from ``cwd``: in this process (:mod:`tests.inprocess`) unless ``process``.

    A real process under :data:`TIMEOUT` where a hang is what is tested (FIFOs, devices: a blocking
    open would stop an in-process run for good) and where ``preexec`` drops the privileges.
    """
    if process or preexec is not None:
        return subprocess.run(
            [sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=TIMEOUT, preexec_fn=preexec, env=env
        )
    with chdir(cwd):
        return hhtool(*args, env=env)


def _import(*args: str, **kw: Any) -> tuple[int, dict[str, Any]]:
    r = _run("import", *args, "--json", **kw)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout)


def _hand_ids(path: Path) -> set[str]:
    return {line.split("#", 1)[1].split(":", 1)[0] for line in path.read_text(encoding="utf-8").splitlines() if " Hand #" in line}


def _stored(db: Path) -> set[str]:
    return {str(r[0]) for r in _rows(db, "SELECT hand_id FROM hands")}


def _skipped(summary: dict[str, Any]) -> dict[str, str]:
    return {Path(s["path"]).name: s["reason"] for s in summary["skipped"]}


def _unreadable(summary: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in summary["unreadable"]:
        path, _, why = entry.partition(": ")
        out[path.rsplit("/", 1)[1]] = why
    return out


def _odd_objects(folder: Path) -> None:
    """A self-referencing link, a link to the parent folder, a FIFO, a link to /dev/zero and a socket."""
    (folder / "self").symlink_to("self")
    (folder / "up").symlink_to("..")
    os.mkfifo(folder / "fifo.txt")
    (folder / "zero.txt").symlink_to("/dev/zero")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(folder / "sock"))


def test_links_fifos_devices_and_sockets_in_a_folder_are_skipped_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(A, folder)
    shutil.copy(B, folder)
    shutil.copy(C, os.fsdecode(os.fsencode(folder) + b"/\xff-not-utf8.txt"))  # a name that is not UTF-8: read, shown escaped
    _odd_objects(folder)
    db = tmp_path / "h.duckdb"
    code, summary = _import(str(folder), "--db", str(db), process=True)
    assert code == 0, summary  # nothing that could hold a hand was lost: the exit code of a clean import
    assert _stored(db) == _hand_ids(A) | _hand_ids(B) | _hand_ids(C)
    assert f"{folder}/\\xff-not-utf8.txt" in {r[0] for r in _rows(db, "SELECT path FROM files")}
    assert _skipped(summary) == {
        "self": "a symbolic link loop",
        "up": "a link to a folder that contains it (a loop): not followed",
        "fifo.txt": "a FIFO (named pipe), not a regular file",
        "zero.txt": "a character device, not a regular file",
        "sock": "a socket, not a regular file",
    }
    assert summary["unreadable"] == [] and summary["files"] == 3
    # the text summary names each of them; a re-run adds nothing and exits as the first did
    again = _run("import", str(folder), "--db", str(db), process=True)
    assert again.returncode == 0, again.stdout + again.stderr
    for name in ("self", "up", "fifo.txt", "zero.txt", "sock"):
        assert f"skipped {folder / name}: " in again.stdout
    assert "3 unchanged and skipped" in again.stdout and "0 stored" in again.stdout


def test_named_fifo_device_and_loop_do_not_hang_and_are_errors(tmp_path: Path) -> None:
    """Named on the command line, what cannot be read is an error (exit 1); the other paths are imported."""
    _odd_objects(tmp_path)
    shutil.copy(A, tmp_path)
    db = tmp_path / "db" / "h.duckdb"
    db.parent.mkdir()
    code, summary = _import(str(tmp_path / A.name), "fifo.txt", "zero.txt", "self", "--db", str(db), cwd=tmp_path, process=True)
    assert code == 1
    assert _stored(db) == _hand_ids(A)
    assert _unreadable(summary) == {
        "fifo.txt": "a FIFO (named pipe), not a regular file: not read (an import reads regular files only)",
        "zero.txt": "a character device, not a regular file: not read (an import reads regular files only)",
        "self": "a symbolic link loop",
    }
    # parse and audit read what import reads, the same way: the good file read, the others named, no wait for a writer
    for command in ("parse", "audit"):
        r = _run(command, "fifo.txt", "zero.txt", str(tmp_path / A.name), cwd=tmp_path, process=True)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert "hhtool: fifo.txt: cannot be read (a FIFO (named pipe), not a regular file" in r.stderr
        assert "hhtool: zero.txt: cannot be read (a character device, not a regular file" in r.stderr
        assert "3 hand(s)" in r.stdout + r.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc here")
def test_virtual_file_systems_are_neither_walked_nor_read(tmp_path: Path) -> None:
    """/proc met through a link (a folder, a file) is skipped with a note, named it is an error; nothing of it is read."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(A, folder)
    (folder / "proc").symlink_to("/proc")
    (folder / "status.txt").symlink_to("/proc/self/status")
    db = tmp_path / "h.duckdb"
    code, summary = _import(str(folder), "--db", str(db))
    assert code == 0, summary
    assert _stored(db) == _hand_ids(A) and summary["files"] == 1
    assert _skipped(summary) == {
        "proc": "a folder of a virtual file system (proc): not walked",
        "status.txt": "a file of a virtual file system (proc): not read",
    }
    code, summary = _import(str(folder / A.name), "/proc", "/proc/self/status", "--db", str(db))
    assert code == 1 and summary["files"] == 1
    why = "of a virtual file system (proc): not read (it holds the system's state, not hand histories)"
    assert _unreadable(summary) == {"proc": f"a folder {why}", "status": f"a file {why}"}
    r = _run("parse", "/proc/self/status", str(A))
    assert r.returncode == 1 and "hhtool: /proc/self/status: cannot be read (a file of a virtual file system (proc)" in r.stderr


def test_a_file_is_opened_without_blocking_and_checked_once_open(tmp_path: Path) -> None:
    """A FIFO without a writer (put where a file was found, say) is refused at once, not waited on."""
    from hhtool.history.regular import open_regular

    os.mkfifo(tmp_path / "fifo.txt")
    with pytest.raises(OSError, match="a FIFO"):
        open_regular(tmp_path / "fifo.txt")
    shutil.copy(A, tmp_path / "a.txt")
    with open_regular(tmp_path / "a.txt") as f:
        assert f.read() == A.read_bytes()


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path.read_bytes()


def test_damaged_archives_are_reported_and_unsafe_member_names_read_under_safe_names(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(A, folder)
    shutil.copy(B, folder)
    whole = _zip(folder / "truncated.zip", {"t.txt": C.read_bytes()})
    (folder / "truncated.zip").write_bytes(whole[: len(whole) // 2])
    (folder / "garbage.zip").write_bytes(b"PK\x03\x04 this is not an archive\n" * 20)
    stored = _zip(folder / "damaged.zip", {"d.txt": C.read_bytes()}, zipfile.ZIP_STORED)
    (folder / "damaged.zip").write_bytes(stored.replace(b"Telesina", b"Telesinx", 1))  # the member's CRC no longer matches
    _zip(folder / "names.zip", {"..\\..\\x.txt": C.read_bytes(), "/abs.txt": D.read_bytes()})
    plain = _zip(folder / "encrypted.zip", {"e.txt": C.read_bytes()})
    at = plain.index(b"PK\x01\x02") + 8  # the central directory's flags: bit 0, encrypted
    (folder / "encrypted.zip").write_bytes(plain[:at] + bytes([plain[at] | 1]) + plain[at + 1 :])
    packed = gzip.compress(C.read_bytes())
    (folder / "truncated.txt.gz").write_bytes(packed[: len(packed) // 2])
    db = tmp_path / "h.duckdb"
    code, summary = _import(str(folder), "--db", str(db))
    assert code == 1, summary  # archives that could not be read: exit 1, as for a truncated .gz
    assert _stored(db) == _hand_ids(A) | _hand_ids(B) | _hand_ids(C) | _hand_ids(D)
    bad = _unreadable(summary)
    assert set(bad) == {"truncated.zip", "garbage.zip", "damaged.zip!d.txt", "encrypted.zip!e.txt", "truncated.txt.gz"}, bad
    assert bad["encrypted.zip!e.txt"] == "an encrypted zip member (a password is needed): not read"
    assert bad["truncated.txt.gz"].startswith("damaged, truncated or of an unsupported kind (")
    assert bad["truncated.zip"].startswith("not a readable zip archive (") and bad["garbage.zip"].startswith("not a readable zip archive (")
    assert "Bad CRC-32" in bad["damaged.zip!d.txt"]
    names = folder / "names.zip"
    assert summary["renamed"] == [
        {"path": f"{names}!x.txt", "member": "..\\..\\x.txt", "reason": "backslashes, '..' parts"},
        {"path": f"{names}!abs.txt", "member": "/abs.txt", "reason": "an absolute path"},
    ]
    # the names stored are the safe ones
    files = {str(r[0]) for r in _rows(db, "SELECT path FROM files")}
    assert {f"{names}!x.txt", f"{names}!abs.txt"} <= files and not any("\\" in f or ".." in f or "!/" in f for f in files)
    # a re-run: nothing new, the same archives unreadable, none of the others failing
    again = _run("import", str(folder), "--db", str(db))
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "0 stored" in again.stdout and "4 unchanged and skipped" in again.stdout
    for name in bad:
        assert f"error: cannot read {folder / name}: " in again.stdout
    assert f"note: {names}!x.txt: read from the zip member '..\\\\..\\\\x.txt', an unsafe name (backslashes, '..' parts)" in again.stdout


def test_a_glob_over_looping_links_finishes_and_follows_links_within_the_bound(tmp_path: Path) -> None:
    """``**`` over folders whose links loop back (glob.glob follows them for minutes): each real folder once."""
    top = tmp_path / "t"
    inner = top / "a" / "b"
    inner.mkdir(parents=True)
    for i in range(4):  # 4 links back at each of two levels: 4**n paths for glob.glob to walk
        (top / "a" / f"back{i}").symlink_to("..")
        (inner / f"back{i}").symlink_to("../..")
    shutil.copy(A, inner)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(B, outside)
    (top / "a" / "elsewhere").symlink_to(outside)  # a link to a folder that is no loop: followed
    # a chain of links one past the bound: the last folder's hands are not read
    chain = [tmp_path / f"c{i}" for i in range(MAX_LINK_DEPTH + 1)]
    for c in chain:
        c.mkdir()
    (top / "next").symlink_to(chain[0])
    for here, there in zip(chain, chain[1:]):
        (here / "next").symlink_to(there)
    shutil.copy(C, chain[MAX_LINK_DEPTH - 1])  # reached by MAX_LINK_DEPTH links
    shutil.copy(D, chain[MAX_LINK_DEPTH])  # one more
    db = tmp_path / "h.duckdb"
    code, summary = _import(str(top / "**" / "*.txt"), "--db", str(db))
    assert code == 0, summary
    assert _stored(db) == _hand_ids(A) | _hand_ids(B) | _hand_ids(C)
    skipped = {s["path"]: s["reason"] for s in summary["skipped"]}
    walked = top.joinpath(*["next"] * (MAX_LINK_DEPTH + 1))  # shown as walked, through the links
    assert skipped[str(walked)] == f"more than {MAX_LINK_DEPTH} links to folders deep: not followed"
    assert all(skipped[str(top / "a" / f"back{i}")].endswith("(a loop): not followed") for i in range(4))
    # the same for the folder itself, walked
    folder_db = tmp_path / "f.duckdb"
    code, summary = _import(str(top), "--db", str(folder_db))
    assert code == 0 and _stored(folder_db) == _stored(db)


def _can_read(path: Path, preexec: Callable[[], None] | None, cwd: Path) -> bool:
    r = subprocess.run([sys.executable, "-c", f"open({str(path)!r}).read()"], preexec_fn=preexec, cwd=cwd, capture_output=True, timeout=TIMEOUT)
    return r.returncode == 0


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def _without_dac_override() -> None:
    """Root without the capabilities that let it read what permissions forbid (dropped from the bounding set, so across exec)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@contextmanager
def _world_readable_dir() -> Iterator[Path]:
    """A folder that another user can enter (pytest's tmp_path is private to its owner)."""
    work = Path(tempfile.mkdtemp(prefix="hhtool-files-"))
    try:
        work.chmod(0o755)
        yield work
    finally:
        for p in work.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(work)


def test_an_unreadable_folder_and_file_are_reported_the_rest_imported() -> None:
    with _world_readable_dir() as work:
        folder = work / "in"
        (folder / "locked").mkdir(parents=True)
        shutil.copy(A, folder)
        shutil.copy(B, folder / "locked")
        shutil.copy(C, folder / "secret.txt")
        dbdir = work / "db"
        dbdir.mkdir()
        dbdir.chmod(0o777)
        (folder / "locked").chmod(0)
        (folder / "secret.txt").chmod(0)
        preexec: Callable[[], None] | None = None
        if _can_read(folder / "secret.txt", None, work):  # root: chmod does not stop reading
            for candidate in (_as_nobody, _without_dac_override):
                try:
                    if not _can_read(folder / "secret.txt", candidate, work):
                        preexec = candidate
                        break
                except OSError:  # the interpreter is out of that user's reach (under /root), or no capability to drop
                    continue
            else:
                pytest.skip("cannot run a process that file permissions stop")
        env = {**os.environ, "HOME": str(work)}
        db = dbdir / "h.duckdb"
        code, summary = _import(str(folder), "--db", str(db), cwd=work, preexec=preexec, env=env)
        assert code == 1, summary
        assert _unreadable(summary) == {
            "locked": "a folder that cannot be read (Permission denied)",
            "secret.txt": "Permission denied",
        }
        again = _run("import", str(folder), "--db", str(db), cwd=work, preexec=preexec, env=env)
        assert again.returncode == 1 and "Traceback" not in again.stderr
        assert f"error: cannot read {folder / 'locked'}: a folder that cannot be read (Permission denied)" in again.stdout
        assert "0 stored" in again.stdout
        assert _stored(db) == _hand_ids(A)


@pytest.mark.parametrize(
    "pattern",
    ["*.txt", "**/*.txt", "a/**/*.txt", "*/b/*", "**/b/**/*.gz", "a/*", "[ab]/*.txt", "?/?", "**/.h*/*", ".h*/*", "nothing/*"],
)
def test_the_glob_matches_as_glob_glob_does_on_a_tree_without_links(tmp_path: Path, pattern: str) -> None:
    """Same matches as :func:`glob.glob` (recursive, hidden names only for a part starting with '.') where links do not loop."""
    import glob

    from hhtool.history.files import Finder

    for name in ("x.txt", "a/y.txt", "a/b/z.txt", "a/b/c/w.gz", "a/b/.hidden.txt", ".h/v.txt", "a/.h/u.txt", "b/t.txt", "c/b/s"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    full = str(tmp_path / pattern)
    assert Finder().glob(full) == sorted(glob.glob(full, recursive=True))


def test_unsafe_member_names_are_made_safe() -> None:
    from hhtool.history.archives import safe_member_name

    assert safe_member_name("hands/2026-01.txt") == ("hands/2026-01.txt", None)
    assert safe_member_name("..\\..\\x.txt") == ("x.txt", "backslashes, '..' parts")
    assert safe_member_name("/abs.txt") == ("abs.txt", "an absolute path")
    assert safe_member_name("C:\\Users\\me\\h.txt") == ("Users/me/h.txt", "backslashes, an absolute path")
    assert safe_member_name("a/../../b/./c.txt") == ("a/b/c.txt", "'..' parts")
    assert safe_member_name("../") == ("unnamed", "'..' parts")


def test_a_file_that_cannot_be_read_after_its_hash_is_named_and_the_others_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file gone or made unreadable between its hash and its read stops that file only; the next import reads it."""
    from hhtool.history.files import Unit
    from hhtool.store.importer import import_paths
    from tests.storegen import write_files

    write_files(tmp_path / "in", 3, 20)
    real = Unit.open
    opened: dict[str, int] = {}

    def flaky(self: Unit) -> Any:
        opened[self.path] = opened.get(self.path, 0) + 1
        if self.path.endswith("hh_001.txt") and opened[self.path] == 2:  # its hash read it; its chunks cannot
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Unit, "open", flaky)
    db = tmp_path / "h.duckdb"
    first = import_paths([tmp_path / "in"], db, workers=0)
    assert (first.stored, first.imported) == (40, 2)
    assert len(first.unreadable) == 1 and "hh_001.txt: Permission denied" in first.unreadable[0]
    monkeypatch.setattr(Unit, "open", real)
    second = import_paths([tmp_path / "in"], db, workers=0)
    assert (second.stored, second.imported, second.unchanged, second.unreadable) == (20, 1, 2, [])
