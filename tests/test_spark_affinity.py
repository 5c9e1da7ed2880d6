"""A local run's Python workers each keep a CPU of their own while a task runs (hhtool.spark.affinity).

Real processes and real ``flock`` claims under a temporary folder of the
test's own (``TMPDIR``); no Spark: the Spark tests run the import with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hhtool.spark import affinity

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task") or len(os.sched_getaffinity(0)) < 2,
    reason="needs Linux and two CPUs to choose from",
)

HOLDER = """
import os, sys
from hhtool.spark.affinity import own_cpu
with own_cpu(True) as cpu:
    print(cpu, sorted(os.sched_getaffinity(0)), flush=True)
    sys.stdin.readline()
print(sorted(os.sched_getaffinity(0)), flush=True)
"""
"""A worker that holds its claim until told to go on (a line on its input), then says what it has after."""


def _holder(tmp_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    return subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


def _affinity(tid: int) -> set[int]:
    return os.sched_getaffinity(tid)


def test_a_task_keeps_one_cpu_every_thread_included_and_gets_its_cpus_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(affinity, "_folder", lambda: tmp_path / "claims")
    allowed = os.sched_getaffinity(0)
    go_on = threading.Event()
    before = threading.Thread(target=go_on.wait)  # like polars' threads, started by an earlier task
    before.start()
    inside: list[set[int]] = []
    try:
        assert before.native_id is not None
        with affinity.own_cpu(True) as cpu:
            assert cpu in allowed
            assert _affinity(0) == {cpu}
            assert _affinity(before.native_id) == {cpu}
            during = threading.Thread(target=lambda: inside.append(_affinity(0)))  # started within the task: on that CPU too
            during.start()
            during.join()
            assert (tmp_path / "claims" / f"cpu-{cpu}").exists()
        assert inside == [{cpu}]
        assert _affinity(0) == allowed
        assert _affinity(before.native_id) == allowed
    finally:
        go_on.set()
        before.join()


def test_workers_never_share_a_cpu_and_one_too_many_runs_as_before(tmp_path: Path) -> None:
    allowed = sorted(os.sched_getaffinity(0))
    holders = [_holder(tmp_path) for _ in allowed]
    try:
        claimed = []
        for h in holders:
            assert h.stdout is not None
            cpu, cpus = h.stdout.readline().split(" ", 1)
            claimed.append(int(cpu))
            assert cpus.strip() == str([int(cpu)])  # the whole process on its CPU
        assert sorted(claimed) == allowed  # every CPU once
        extra = _holder(tmp_path)  # every CPU held: no claim, the CPUs it had
        assert extra.communicate("\n", timeout=60)[0].splitlines() == [f"None {allowed}", str(allowed)]
        for h in holders:
            out, _ = h.communicate("\n", timeout=60)
            assert out.strip() == str(allowed)  # its CPUs back once the task is over
            assert h.returncode == 0
    finally:
        for h in holders:
            h.kill()


def test_a_claim_ends_with_the_worker_that_held_it(tmp_path: Path) -> None:
    first = _holder(tmp_path)
    assert first.stdout is not None
    held = int(first.stdout.readline().split(" ", 1)[0])
    first.kill()  # a worker killed in its task (SIGKILL: no clean-up of its own)
    first.wait()
    others = [_holder(tmp_path) for _ in os.sched_getaffinity(0)]
    try:
        got = []
        for h in others:
            assert h.stdout is not None
            got.append(h.stdout.readline().split(" ", 1)[0])
        assert str(held) in got
    finally:
        for h in others:
            h.kill()
            h.wait()


def test_nothing_changes_on_a_cluster_or_with_one_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(affinity, "_folder", lambda: tmp_path / "claims")
    allowed = os.sched_getaffinity(0)
    with affinity.own_cpu(False) as cpu:  # not local mode: the cores are the cluster manager's
        assert cpu is None
        assert _affinity(0) == allowed
    one = {min(allowed)}
    os.sched_setaffinity(0, one)
    try:
        with affinity.own_cpu(True) as cpu:  # one CPU: nothing to choose
            assert cpu is None
            assert _affinity(0) == one
    finally:
        os.sched_setaffinity(0, allowed)
    assert not (tmp_path / "claims").exists()


def test_a_folder_that_cannot_hold_claims_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setattr(affinity, "_folder", lambda: blocked / "claims")  # under a file: mkdir fails
    allowed = os.sched_getaffinity(0)
    with affinity.own_cpu(True) as cpu:
        assert cpu is None
        assert _affinity(0) == allowed


def test_a_tasks_rows_are_made_on_its_cpu_and_a_task_cut_short_gives_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(affinity, "_folder", lambda: tmp_path / "claims")
    allowed = os.sched_getaffinity(0)

    def rows() -> Iterator[set[int]]:  # what a task's function yields, each made as Spark reads it
        for _ in range(3):
            yield _affinity(0)

    made = list(affinity.confined(True, rows()))
    assert len(made) == 3 and len(made[0]) == 1 and made[0] < allowed and made.count(made[0]) == 3
    assert _affinity(0) == allowed
    task = affinity.confined(True, rows())
    assert len(next(task)) == 1
    task.close()  # the JVM stopped reading (a task killed, a limit reached)
    assert _affinity(0) == allowed
    assert list(affinity.confined(False, rows())) == [allowed] * 3


def test_only_a_local_run_claims_cpus_and_the_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(affinity.OFF, raising=False)
    assert affinity.wanted("local[2]") and affinity.wanted("local[*]") and affinity.wanted("local-cluster[2,1,1024]")
    assert not affinity.wanted("yarn") and not affinity.wanted("spark://host:7077") and not affinity.wanted(None)
    monkeypatch.setenv(affinity.OFF, "0")
    assert not affinity.wanted("local[2]")
    monkeypatch.setenv(affinity.OFF, "yes")
    assert affinity.wanted("local[2]")


def test_a_claims_folder_that_is_not_this_users_own_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary folder is shared: a folder others may write in, a link, or a link planted for a claim is not used."""
    allowed = os.sched_getaffinity(0)
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    linked = tmp_path / "linked"
    linked.symlink_to(elsewhere, target_is_directory=True)
    planted = tmp_path / "planted"
    planted.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    for n in allowed:
        (planted / f"cpu-{n}").symlink_to(victim)
    for folder in (open_to_all, linked, planted):
        monkeypatch.setattr(affinity, "_folder", lambda folder=folder: folder)
        with affinity.own_cpu(True) as cpu:
            assert cpu is None
            assert _affinity(0) == allowed
    assert victim.read_text() == "mine"
    assert not any(elsewhere.iterdir())
