"""A database for the web tests and a real ``hhtool serve`` process on it.

The database holds the bundled samples, simulated hands with faults (so
that some are disputed and invalid) and a table whose players are named
``<script>alert(1)</script>`` and ``'; DROP TABLE hands; --``, each
imported by the real ``hhtool import``.  :class:`Server` runs ``hhtool
serve --port 0`` and reads its address from the ``FILE.serve`` it writes.
"""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urlencode, urlsplit
from pathlib import Path
from collections.abc import Callable
from typing import Any

from tests.sample_paths import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
HOSTILE = ("<script>alert(1)</script>", "'; DROP TABLE hands; --")
SHARED = "HHTOOL_TEST_SHARED"
"""The environment variable naming the folder of the whole test run, its xdist workers' too (tests/conftest.py)."""


def hhtool(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def make_db(tmp: Path) -> Path:
    """``tmp/web.duckdb``: a copy of the run's one web database (:func:`_import_db`), which the first caller builds.

    Five test files serve it, some writing notes, tags and aliases into it: each gets a file of its own (:func:`shared_copy`).
    """
    return shared_copy("web", _import_db, tmp)


def shared_copy(name: str, build: Callable[[Path], Path], tmp: Path) -> Path:
    """A copy in ``tmp`` of the database ``build(folder)`` makes, built once for the test run by whichever caller asks first.

    Each caller gets a file of its own, holding what its own import would have stored (the same files imported, the same
    hands and keys; the files' paths are the run folder's, ``imported_at`` the first import's time).  The run's folder (``$HHTOOL_TEST_SHARED``, made by
    tests/conftest.py for the run and its xdist workers) holds the one import, built under a lock: the other worker waits
    for it rather than making its own.  Outside such a run each caller builds its own.
    """
    shared = os.environ.get(SHARED)
    if not shared:
        return build(tmp)
    root = Path(shared) / name
    with open(Path(shared) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "db").exists():  # built in its place (the database names its files by their paths); "db" last
            shutil.rmtree(root, ignore_errors=True)  # what a failed build left
            root.mkdir()
            (root / "db").write_text(build(root).name, encoding="utf-8")
    db = tmp / (root / "db").read_text(encoding="utf-8")
    shutil.copyfile(root / db.name, db)
    return db


def _import_db(tmp: Path) -> Path:
    """Import the samples, 160 simulated hands with faults and 40 hands of the hostile names into ``tmp/web.duckdb``."""
    src = tmp / "histories"
    src.mkdir()
    for path in SAMPLES.glob("*.txt"):
        (src / path.name).write_bytes(path.read_bytes())
    r = hhtool("simulate", "--hands", "160", "--rules", "classic", "--players", "4", "--seed", "11", "--faults", "0.25",
               "--out", str(src / "faulty.txt"))
    assert r.returncode == 0, r.stderr
    (src / "faulty.txt.faults.jsonl").unlink(missing_ok=True)  # a manifest, not hands
    hostile = tmp / "hostile.txt"
    r = hhtool("simulate", "--hands", "40", "--rules", "classic", "--players", "3", "--seed", "5", "--out", str(hostile))
    assert r.returncode == 0, r.stderr
    text = hostile.read_text(encoding="utf-8")
    names = re.findall(r"^Seat \d+: (\S+) \(", text, re.M)
    first, second = sorted(set(names))[:2]
    for old, new in ((first, HOSTILE[0]), (second, HOSTILE[1])):
        text = re.sub(rf"(?<![\w<]){re.escape(old)}\b", new, text)
    (src / "hostile.txt").write_text(text.replace(" Hand #", " Hand #X-"), encoding="utf-8")
    db = tmp / "web.duckdb"
    r = hhtool("import", str(src), "--db", str(db), "--workers", "0")
    assert r.returncode in (0, 1), r.stdout + r.stderr  # 1: the broken samples' hands failed, as they should
    return db


class Server:
    """``hhtool serve --db DB --port 0`` in its own process; ``url`` once it answers."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.db = db
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hhtool.cli", "serve", "--db", str(db), "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        )
        self.url = self._wait()

    def _wait(self) -> str:
        marker = self.db.with_name(self.db.name + ".serve")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server ended: {self.proc.stderr.read() if self.proc.stderr else ''}")
            try:
                doc = json.loads(marker.read_text(encoding="utf-8"))
                if doc.get("pid") == self.proc.pid:
                    url = str(doc["url"])
                    urllib.request.urlopen(url + "api/progress", timeout=5).read()
                    return url
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise AssertionError("the server did not answer within 60 s")

    def get(self, path: str) -> tuple[int, str, str]:
        """(status, content type, body) of ``GET path``; an error status is an answer too."""
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode("utf-8")

    def json(self, path: str) -> Any:
        status, kind, body = self.get(path)
        assert kind.startswith("application/json"), (status, kind, body[:200])
        return json.loads(body)

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a person stops it: (exit code, what it wrote on standard error)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return self.proc.returncode, err


def post_form(s: Server, path: str, fields: dict[str, str], headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """POST ``fields`` as a form to the server with exactly ``headers`` (a write's test sets or leaves out each one):
    the status, the headers (lower-case names) and the body."""
    u = urlsplit(s.url)
    c = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
    try:
        c.request("POST", path, body=urlencode(fields).encode("utf-8"), headers=headers)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode("utf-8")
    finally:
        c.close()


def csrf_token(s: Server, path: str = "/players") -> str:
    """The write token of the page at ``path``: the one every form of the page carries."""
    status, _, body = s.get(path)
    assert status == 200
    tokens = set(re.findall(r'<input type="hidden" name="csrf" value="([^"]+)">', body))
    assert len(tokens) == 1
    return str(tokens.pop())


def form_headers(s: Server) -> dict[str, str]:
    """What the server's own page sends with a form: its content type, its origin and its Host."""
    u = urlsplit(s.url)
    return {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"{u.scheme}://{u.netloc}", "Host": u.netloc}
