"""``hhtool audit`` and ``hhtool parse`` take what ``hhtool import`` takes; an input with no hand says so."""

from __future__ import annotations

import gzip
import json
import subprocess
import zipfile
from contextlib import chdir
from pathlib import Path

import pytest

from tests.inprocess import hhtool
from tests.sample_paths import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = SAMPLES / "000_format_example.txt"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``hhtool *args`` from ``cwd``, in this process (:mod:`tests.inprocess`): what is read and said is the point."""
    with chdir(cwd):
        return hhtool(*args)


@pytest.fixture()
def inputs(tmp_path: Path) -> Path:
    """A folder with a plain file, a .gz, a .zip (a hand and a README) and a README of its own."""
    text = EXAMPLE.read_bytes()
    (tmp_path / "plain.txt").write_bytes(text)
    (tmp_path / "packed.txt.gz").write_bytes(gzip.compress(text.replace(b"C-1001", b"C-2001")))
    with zipfile.ZipFile(tmp_path / "archive.zip", "w") as z:
        z.writestr("day1/hand.txt", text.replace(b"C-1001", b"C-3001"))
        z.writestr("README.md", "notes, no hand here\n")
    (tmp_path / "README.md").write_text("a folder of hands\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", ["audit", "parse"])
def test_a_folder_reads_files_archives_and_gz(inputs: Path, command: str) -> None:
    r = run(command, "--json", str(inputs))
    assert r.returncode == 0, r.stderr
    ids = sorted(json.loads(line)["hand_id"] for line in r.stdout.splitlines())
    assert ids == ["C-1001", "C-2001", "C-3001"]
    assert "skipped, no hand in them" in r.stderr and "README.md" in r.stderr


def test_audit_names_an_archive_member_and_a_glob_works(inputs: Path) -> None:
    r = run("audit", "archive.zip", "*.gz", cwd=inputs)
    assert r.returncode == 0, r.stderr
    assert "archive.zip!day1/hand.txt:1" in r.stdout and "packed.txt.gz:1" in r.stdout
    assert "2 hand(s) audited: 2 ok" in r.stderr + r.stdout


@pytest.mark.parametrize("command", ["audit", "parse"])
def test_a_named_file_without_hands_says_so_and_exits_1(command: str) -> None:
    r = run(command, "Makefile")
    assert r.returncode == 1
    assert "Makefile: no hand in it" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("command", ["audit", "parse"])
def test_a_gz_that_is_not_gzip_is_unreadable_and_the_rest_is_read(tmp_path: Path, command: str) -> None:
    (tmp_path / "file.gz").write_bytes(EXAMPLE.read_bytes())  # plain text under a .gz name
    r = run(command, str(tmp_path / "file.gz"), str(EXAMPLE))
    assert r.returncode == 1
    assert "file.gz: cannot be read" in r.stderr
    assert "Traceback" not in r.stderr
    out = r.stdout + r.stderr
    assert "1 hand(s)" in out


@pytest.mark.parametrize("command", ["audit", "parse"])
def test_no_such_path_is_a_usage_error(command: str) -> None:
    r = run(command, "no/such/folder")
    assert r.returncode == 2
    assert "no such file or folder: no/such/folder" in r.stderr


def test_an_empty_folder_has_no_hand(tmp_path: Path) -> None:
    r = run("audit", str(tmp_path))
    assert r.returncode == 1
    assert "no hand in the inputs (no file found)" in r.stderr
