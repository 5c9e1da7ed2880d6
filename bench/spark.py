"""Spark import benchmark: ``hhtool spark-import`` on local[1] and local[2] against ``hhtool import`` on the same cores.  Never a test.

Run: ``python bench/spark.py [--hands 200000] [--files 20] [--stages] [--phases] [--only spark] [--cores 1] [--conf KEY=VALUE ...] [--rounds N] [--no-pin]``.

Input: ``--files`` files of simulated hands (``bench/import.py``'s cache,
the profiles and structures cycling).  In one run, each as a subprocess
on a new output:

* ``hhtool import DIR --workers 1`` and ``--workers 2`` (DuckDB);
* ``python -m hhtool.spark DIR --master local[1]`` and ``local[2]``;

each after reading the input, the installed packages and Java's home
into the page cache (:func:`warm`), so that none of the runs waits for
the disk where another would not, and each on the same cores: a run of
N workers or ``local[N]`` is confined to the machine's first N CPUs, every
process it starts with it (the DuckDB import's writer beside its worker,
Spark's JVM beside its Python workers), so that "a core" means one core
for both imports (``--no-pin``: every run free to use every core, where
the DuckDB import's writer gets the second core for free).

Printed: hands/s of each, end to end (the process's wall time: for
Spark, the JVM's start included) and, for Spark, of the job alone (the
summary's ``seconds``, from the session to the commit); the rate per core
against DuckDB's (goal >= 60 %) and local[2] against local[1] (goal >=
1.7 x); and the load average before and after, since other work on the
machine takes cores from both.  Beside the wall-clock rates, the CPU
time of each run's whole process tree (the driver, Spark's JVM, its Python
workers; DuckDB's writer and worker processes), whatever other jobs take
of the cores: a thread reads ``/proc/PID/stat`` of every descendant every
0.5 s and keeps each one's last figure (Linux).  Waiting for the processes
would not do: Spark's Python daemon ignores ``SIGCHLD``, so its workers'
time reaches no parent's ``RUSAGE_CHILDREN``; this process is made the
reaper of the orphans (``PR_SET_CHILD_SUBREAPER``) so that a JVM that
outlives its driver stays in the tree.  A process's last 0.5 s before it
ends is missed.  Printed: microseconds of CPU a hand, and CPU / wall, the
cores a run kept busy (local[1]'s JVM works beside its Python worker, so
it uses more than one); that CPU split by process (the driver, the JVM,
the Python workers) and the JVM's by thread (its task threads, the JIT
compilers, the garbage collector, the rest), from ``/proc/PID/task``.

``--phases``: each Spark run's wall time split where its Spark jobs start and
end (the event log's times), and the cores its process tree kept busy
in each part (the CPU sampled every 0.5 s): the start until the first job,
each job, the gaps between them, the end; what keeps ``local[2]`` from
twice ``local[1]``'s rate is the parts in which one core works alone.

``--rounds N``: every run N times, one round after the other, the order
of the runs reversed in every other round (DuckDB 1, 2, Spark 1, 2; then
Spark 2, 1, DuckDB 2, 1; ...), so that a drift of the machine's speed over
the minutes of a round (seen here: a fifth between hours) does not fall on
one run alone; printed, each round's figures, then each rate and ratio's
median and range over the rounds.  A ratio is taken within a round, between
runs minutes apart, never across rounds.

Before each round's runs (when one of them uses two cores), the machine's
own scaling (:func:`two_cpus`): a pure-Python loop on each of the first
two CPUs alone, then on both at once, 3 s each; printed as two CPUs
against one.  On a shared machine it is below 2 and moves from minute to
minute, and no import's two cores can do better than it.

``--stages``: Spark's event log of each run: its number of jobs, and per stage (tasks, run
time, the CPU of the JVM threads that ran them, GC time, shuffle and
output bytes), to see which pass costs what.  ``--conf KEY=VALUE``: a
Spark setting for the Spark runs (through PySpark's
``PYSPARK_SUBMIT_ARGS``, after the session's own, so it wins), to compare
a setting with the default in two runs; ``--only`` and ``--cores`` keep a
run short while comparing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WARM: list[Path] = []
"""What :func:`warm` reads before each run: the input, the installed packages (``site-packages``), Java's home."""


def _spin(cpu: int, seconds: float, start: Any, out: Any) -> None:
    """A pure-Python loop on ``cpu`` for ``seconds`` once ``start`` is set; puts its iterations a second."""
    os.sched_setaffinity(0, {cpu})
    start.wait()
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(10_000):
            n += 1
    out.put(n / seconds)


def two_cpus(seconds: float = 3.0) -> float | None:
    """The machine's own scaling from one busy CPU to two: a loop on both of the first two CPUs at once, against each alone.

    Nothing of the imports' in it (no memory, no I/O, no other process):
    what a shared machine gives two busy vCPUs at that moment, which bounds
    ``local[2] / local[1]`` and the DuckDB import's two workers against one.
    None where fewer than two CPUs are usable.
    """
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        return None
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    cpus = sorted(os.sched_getaffinity(0))[:2]

    def rate(which: list[int]) -> float:
        start, out = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_spin, args=(c, seconds, start, out)) for c in which]
        for p in procs:
            p.start()
        start.set()
        total = float(sum(out.get() for _ in which))
        for p in procs:
            p.join()
        return total

    alone = (rate(cpus[:1]) + rate(cpus[1:2])) / 2
    return rate(cpus) / alone


def _subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux): they stay in the tree whose CPU is sampled."""
    try:
        import ctypes

        return int(ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


JVM_THREADS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tasks", ("Executor task",)),  # the executor's task threads: codegen'd operators, the Arrow exchange, Parquet
    ("jit", ("C1 CompilerThre", "C2 CompilerThre")),
    ("gc", ("VM Thread", "GC Thread", "G1 ", "VM Periodic")),  # the serial collector works in the VM thread
)
"""The JVM's threads by role (``/proc/PID/task/TID/comm``, 15 characters): the rest is ``other`` (Python runners' I/O, the scheduler, Netty)."""


class TreeCPU:
    """The CPU seconds of this process's descendants by role, sampled from ``/proc`` while a run goes on (Linux; None elsewhere).

    A process's role: ``jvm`` (named ``java``: spark-submit's script turns
    into the JVM by ``exec``), else, as first seen, ``main`` (the command
    run: hhtool's driver, or the DuckDB import's writer) or ``workers``
    (every other process: Spark's Python daemon and workers, the DuckDB
    import's worker processes).  A JVM's threads are
    sampled too, so that its CPU splits into :data:`JVM_THREADS`.
    """

    def __init__(self) -> None:
        import threading

        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.last: dict[int, float] = {}
        self.system: dict[int, float] = {}  # of ``last``, the kernel's part (stime)
        self.role: dict[int, str] = {}
        self.comm: dict[int, str] = {}  # each process's latest name: spark-class's bash scripts and ps are no workers
        self.threads: dict[tuple[int, int], tuple[str, float]] = {}
        self.main = 0
        self.history: list[tuple[float, float, float]] = []  # (time.time(), the tree's CPU seconds so far, the machine's), every 0.5 s
        self.started = self.ended = 0.0  # the run's process, time.time()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _stat(path: str) -> tuple[str, list[str]] | None:
        """``(comm, the fields after it)`` of a ``/proc/.../stat``, or None when it is gone."""
        try:
            with open(path) as f:
                stat = f.read()
        except OSError:
            return None
        return stat[stat.index("(") + 1 : stat.rfind(")")], stat[stat.rfind(")") + 2 :].split()

    def _cpu(self, fields: list[str]) -> float:
        return (int(fields[11]) + int(fields[12])) / self.tick

    def _tree(self) -> dict[int, float]:
        parents: dict[int, list[tuple[int, str, float, float]]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            got = self._stat(f"/proc/{name}/stat")
            if got is not None:
                comm, fields = got
                parents.setdefault(int(fields[1]), []).append((int(name), comm, self._cpu(fields), int(fields[12]) / self.tick))
        out: dict[int, float] = {}
        todo = [os.getpid()]
        while todo:
            for pid, comm, cpu, system in parents.get(todo.pop(), []):
                out[pid] = cpu
                self.system[pid] = system
                self.comm[pid] = comm
                if comm == "java":  # spark-submit's script becomes the JVM by exec: the latest name decides
                    self.role[pid] = "jvm"
                elif pid not in self.role:
                    self.role[pid] = "main" if pid == self.main else "workers"
                if self.role[pid] == "jvm":
                    self._threads(pid)
                todo.append(pid)
        return out

    def _threads(self, pid: int) -> None:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return
        for tid in tids:
            got = self._stat(f"/proc/{pid}/task/{tid}/stat")
            if got is not None:
                self.threads[(pid, int(tid))] = (got[0], self._cpu(got[1]))

    def _machine(self) -> float:
        """The CPU seconds every process of the machine has used since its start (``/proc/stat``: all but idle and I/O wait)."""
        try:
            with open("/proc/stat") as f:
                ticks = [int(x) for x in f.readline().split()[1:]]
        except (OSError, ValueError):
            return 0.0
        return (sum(ticks[:8]) - ticks[3] - ticks[4]) / self.tick  # user nice system idle iowait irq softirq steal

    def _run(self) -> None:
        while True:
            self.last.update(self._tree())
            self.history.append((time.time(), sum(self.last.values()), self._machine()))
            if self.stop.wait(0.5):
                return

    def start(self, main: int) -> TreeCPU:
        """Sample from now on; ``main`` is the pid of the command run."""
        self.main = main
        if os.path.isdir("/proc/self"):
            self.thread.start()
        return self

    def finish(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()

    @property
    def seconds(self) -> float | None:
        return sum(self.last.values()) if self.thread.ident is not None else None

    def by_role(self) -> dict[str, float]:
        """CPU seconds of ``main``, ``jvm`` and ``workers`` (``workers_system``: their kernel time), and of the JVM's threads by role (``jvm_tasks``, ...)."""
        out = {"main": 0.0, "jvm": 0.0, "workers": 0.0}
        for pid, cpu in self.last.items():
            out[self.role.get(pid, "workers")] += cpu
        out["workers_system"] = sum(self.system.get(pid, 0.0) for pid in self.last if self.role.get(pid, "workers") == "workers")
        out["worker_processes"] = sum(1 for pid in self.last if self.role.get(pid) == "workers" and self.comm.get(pid, "").startswith("python"))
        if any(r == "jvm" for r in self.role.values()):
            for name, _ in (*JVM_THREADS, ("other", ())):
                out[f"jvm_{name}"] = 0.0
            for comm, cpu in self.threads.values():
                kind = next((name for name, prefixes in JVM_THREADS if comm.startswith(prefixes)), "other")
                out[f"jvm_{kind}"] += cpu
        return out

    def other_threads(self, n: int = 6) -> list[tuple[str, float]]:
        """The JVM threads outside :data:`JVM_THREADS` that took most CPU, by name (summed over threads of one name)."""
        names: dict[str, float] = {}
        for comm, cpu in self.threads.values():
            if not any(comm.startswith(prefixes) for _, prefixes in JVM_THREADS):
                names[comm] = names.get(comm, 0.0) + cpu
        return sorted(names.items(), key=lambda x: -x[1])[:n]


def _input(hands: int, files: int) -> Path:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder, _source = module.make_input(hands, files)
    return Path(folder)


def _java_home() -> Path | None:
    """The Java that Spark's launcher runs: ``$JAVA_HOME``, else the ``java`` on the PATH, links followed."""
    import shutil

    home = os.environ.get("JAVA_HOME")
    if home:
        return Path(home)
    java = shutil.which("java")
    return Path(java).resolve().parent.parent if java else None


def warm(paths: list[Path]) -> tuple[int, float]:
    """Read every file under ``paths`` once, so that the run after starts with them in the page cache: (bytes, seconds).

    A run reads its input, its Python packages and, for Spark, 460 MB of
    jars and Java's modules; whichever of them the kernel has put out of
    memory since they were last used (this benchmark's machines reclaim
    the page cache of files unused for a minute) comes from the disk, one
    core waiting while the other has nothing to do.  That wait differs from
    one run to the next and is no measure of the cores, so each run starts
    with the same files in memory.
    """
    t0, n = time.monotonic(), 0
    for top in paths:
        for folder, _dirs, names in os.walk(top):
            for name in names:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        while block := f.read(1 << 20):
                            n += len(block)
                except OSError:
                    continue
    return n, time.monotonic() - t0


def phases(
    eventlog: Path, start: float, end: float, history: list[tuple[float, float, float]]
) -> list[tuple[str, float, float | None, float | None]]:
    """A run's wall time cut where its Spark jobs start and end: ``(part, seconds, cores busy, other cores busy)``, in order.

    ``start`` and ``end``: the process's (``time.time()``); ``history``: the
    tree's and the machine's CPU so far, sampled (:attr:`TreeCPU.history`);
    a part's cores are the CPU added between the samples nearest its two
    ends over the time between them, the run's and the rest of the
    machine's (other jobs: a part they share is slower for it); None when
    no two samples fall apart.
    """
    import bisect

    marks: list[tuple[float, str]] = []
    for log in sorted(f for f in eventlog.rglob("*") if f.is_file() and not f.name.startswith(("appstatus", "."))):
        with open(log, encoding="utf-8") as f:
            for line in f:
                if '"SparkListenerJob' not in line:
                    continue
                event = json.loads(line)
                if event["Event"] == "SparkListenerJobStart":
                    what = (event.get("Properties") or {}).get("spark.job.description") or "a Spark job"
                    marks.append((event["Submission Time"] / 1e3, f"job {event['Job ID']}: {what}"))
                elif event["Event"] == "SparkListenerJobEnd":
                    marks.append((event["Completion Time"] / 1e3, ""))
    marks.sort()
    cuts = [(start, "start, until the first job")] + [(t, what or "between jobs") for t, what in marks] + [(end, "")]
    times = [t for t, _, _ in history]

    def at(t: float) -> tuple[float, float, float]:
        return history[min(max(bisect.bisect_left(times, t), 0), len(history) - 1)]

    out: list[tuple[str, float, float | None, float | None]] = []
    for (a, what), (b, _) in zip(cuts, cuts[1:]):
        if b - a < 0.05:
            continue
        (ta, ca, ma), (tb, cb, mb) = at(a), at(b)
        ours = (cb - ca) / (tb - ta) if tb - ta > 0.25 else None
        others = max(0.0, (mb - ma) / (tb - ta) - ours) if ours is not None and mb > 0 else None
        out.append(("end, after the last job" if b == end and what == "between jobs" else what, b - a, ours, others))
    return out


def _timed(cmd: list[str], reaper: bool, env: dict[str, str] | None = None, cores: int | None = None) -> tuple[float, TreeCPU, dict[str, Any]]:
    """The run's wall time, the CPU of its whole process tree (:class:`TreeCPU`), its JSON summary.

    ``cores``: the run and every process it starts confined to the machine's first ``cores`` CPUs
    (``sched_setaffinity``, inherited by children: the writer, the workers, the JVM and its Python workers).
    """
    tree = TreeCPU()
    pin = None
    if cores is not None and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))[:cores]

        def pin() -> None:
            os.sched_setaffinity(0, allowed)

    warm(WARM)
    tree.started = time.time()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=pin)
    tree.start(proc.pid)
    stdout, stderr = proc.communicate()
    wall = time.monotonic() - t0
    tree.ended = time.time()
    while reaper:  # the orphans (Spark's JVM outlives its driver by a moment) end in the tree, and are counted
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    tree.finish()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    line = [x for x in stdout.splitlines() if x.startswith("{")][-1]
    return wall, tree, json.loads(line)


def _result(hands: int, wall: float, tree: TreeCPU) -> dict[str, Any]:
    out: dict[str, Any] = {"hands": hands, "wall": wall, "rate": hands / wall}
    cpu = tree.seconds
    if cpu is not None:
        roles = tree.by_role()
        out.update(
            cpu=cpu, cpu_us=cpu / hands * 1e6, cores=cpu / wall, worker_processes=int(roles.pop("worker_processes")),
            roles_us={k: v / hands * 1e6 for k, v in roles.items()},
            jvm_other_us={name: v / hands * 1e6 for name, v in tree.other_threads()},
        )
    return out


def _spark_env(confs: list[str], eventlog: Path | None) -> dict[str, str]:
    """The environment of a Spark run: ``--conf`` settings for the session through PySpark's ``PYSPARK_SUBMIT_ARGS``.

    They come after the session's own settings on spark-submit's command
    line, so they override them (``spark.driver.extraJavaOptions`` whole).
    """
    import shlex

    settings = list(confs)
    if eventlog is not None:
        settings += ["spark.eventLog.enabled=true", f"spark.eventLog.dir={eventlog.as_uri()}", "spark.eventLog.compress=false"]
    env = dict(os.environ)
    if settings:
        env["PYSPARK_SUBMIT_ARGS"] = " ".join(f"--conf {shlex.quote(c)}" for c in settings) + " pyspark-shell"
    return env


def stages(eventlog: Path) -> list[dict[str, Any]]:
    """Per stage of a run's event log: tasks, run time, the JVM task threads' CPU, GC time, shuffle and output bytes.

    Spark's own metrics: ``Executor CPU Time`` is the CPU of the JVM thread
    that ran the task (a Python worker's work is not in it: its thread
    waits meanwhile); ``JVM GC Time`` is the JVM's collections during a task,
    so with two tasks at once a collection counts for both.
    """
    names: dict[int, str] = {}
    out: dict[int, dict[str, Any]] = {}
    for log in sorted(f for f in eventlog.rglob("*") if f.is_file() and not f.name.startswith(("appstatus", "."))):  # Spark 4: a folder of rolled files
        with open(log, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                event = json.loads(line)
                kind = event.get("Event")
                if kind == "SparkListenerStageSubmitted":  # hhtool's job description names the pass, else Spark's call site
                    info = event["Stage Info"]
                    names[info["Stage ID"]] = (event.get("Properties") or {}).get("spark.job.description") or info["Stage Name"]
                elif kind == "SparkListenerTaskEnd" and event.get("Task Metrics"):
                    m = event["Task Metrics"]
                    r = out.setdefault(event["Stage ID"], {"tasks": 0, "run": 0.0, "cpu": 0.0, "gc": 0.0, "shuffle": 0, "written": 0, "records": 0})
                    r["tasks"] += 1
                    r["run"] += m["Executor Run Time"] / 1e3
                    r["cpu"] += m["Executor CPU Time"] / 1e9
                    r["gc"] += m["JVM GC Time"] / 1e3
                    r["shuffle"] += m.get("Shuffle Write Metrics", {}).get("Shuffle Bytes Written", 0)
                    r["written"] += m.get("Output Metrics", {}).get("Bytes Written", 0)
                    r["records"] += m.get("Output Metrics", {}).get("Records Written", 0)
    return [{"stage": k, "name": names.get(k, "?"), **v} for k, v in sorted(out.items())]


def jobs(eventlog: Path) -> int:
    """How many Spark jobs a run's event log records (each action: a write, a ``collect``, a ``count``)."""
    n = 0
    for log in sorted(f for f in eventlog.rglob("*") if f.is_file() and not f.name.startswith(("appstatus", "."))):
        with open(log, encoding="utf-8") as f:
            n += sum(1 for line in f if '"Event":"SparkListenerJobStart"' in line)
    return n


def _print_stages(rows: list[dict[str, Any]], hands: int) -> None:
    print(f"    {'stage':<46} {'tasks':>5} {'run s':>7} {'JVM CPU s':>9} {'µs/hand':>7} {'GC s':>6} {'shuffle':>9} {'written':>9}")
    for r in rows:
        print(
            f"    {str(r['stage']) + ' ' + r['name'][:40]:<46} {r['tasks']:>5} {r['run']:7.1f} {r['cpu']:9.1f} {r['cpu'] / hands * 1e6:7.0f}"
            f" {r['gc']:6.1f} {r['shuffle'] / 1e6:7.1f}MB {r['written'] / 1e6:7.1f}MB"
        )
    total = sum(r["cpu"] for r in rows)
    print(f"    {'all stages':<46} {sum(r['tasks'] for r in rows):>5} {sum(r['run'] for r in rows):7.1f} {total:9.1f} {total / hands * 1e6:7.0f} {sum(r['gc'] for r in rows):6.1f}")


def _print_cpu(r: dict[str, Any]) -> None:
    roles = r["roles_us"]
    print(f"  {'':<20} CPU of the process tree {r['cpu']:7.1f} s: {r['cpu_us']:5,.0f} µs a hand, {r['cores']:.2f} cores busy on average")
    if "jvm_tasks" in roles:
        jvm = ", ".join(f"{name} {roles[f'jvm_{name}']:,.0f}" for name, _ in (*JVM_THREADS, ("other", ())))
        print(
            f"  {'':<20}   µs a hand: driver {roles['main']:,.0f}, JVM {roles['jvm']:,.0f} ({jvm}),"
            f" Python workers {roles['workers']:,.0f} ({r['worker_processes']} processes; system {roles.get('workers_system', 0):,.0f})"
        )
        other = ", ".join(f"{name!r} {us:,.0f}" for name, us in r["jvm_other_us"].items())
        print(f"  {'':<20}   the JVM's other threads, µs a hand: {other}")
    else:
        print(f"  {'':<20}   µs a hand: the writer process {roles['main']:,.0f}, worker processes {roles['workers']:,.0f} ({r['worker_processes']})")


def _class_archive(tmp: Path) -> None:
    """The installation's class archive of Spark's JVM (:mod:`hhtool.spark.cds`), written before the timed runs if missing.

    The first local run of an installation writes it, seconds longer than
    every run after; both timed runs start as those later runs do.
    """
    from hhtool.spark.cds import options
    from hhtool.spark.jvm import JVM_OPTIONS

    archive = options(JVM_OPTIONS)
    if archive.pending is None:
        print(f"  class archive: {'off' if archive.final is None else archive.final}")
        return
    cmd = [sys.executable, "-m", "hhtool.spark", str(ROOT / "sample_histories"), "--out", str(tmp / "archive-run"), "--master", "local[1]"]
    subprocess.run(cmd, capture_output=True, check=False)
    print(f"  class archive: written before the runs, {archive.final}")


def _runs(args: argparse.Namespace) -> list[tuple[str, int]]:
    """The runs of one round, in order: ``("duckdb", workers)`` then ``("spark", cores)``."""
    return [*(("duckdb", n) for n in (args.cores if args.only != "spark" else ())), *(("spark", n) for n in (args.cores if args.only != "duckdb" else ()))]


def _name(kind: str, n: int) -> str:
    return f"duckdb workers={n}" if kind == "duckdb" else f"spark local[{n}]"


def _one(kind: str, n: int, folder: Path, tmp: Path, tag: str, args: argparse.Namespace, reaper: bool) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """One timed run on a new output: its name, its figures, and (``--stages``) its stages."""
    if kind == "duckdb":
        db = tmp / f"duck{n}-{tag}.duckdb"
        wall, tree, s = _timed([str(BIN / "hhtool"), "import", str(folder), "--db", str(db), "--workers", str(n), "--json"], reaper, cores=n if args.pin else None)
        return _name(kind, n), _result(s["hands"], wall, tree), []
    out = tmp / f"lake{n}-{tag}"
    eventlog = tmp / f"events{n}-{tag}" if args.stages or args.phases else None
    if eventlog is not None:
        eventlog.mkdir()
    env = _spark_env(args.conf, eventlog)
    cmd = [sys.executable, "-m", "hhtool.spark", str(folder), "--out", str(out), "--master", f"local[{n}]", "--json"]
    wall, tree, s = _timed(cmd, reaper, env, cores=n if args.pin else None)
    r = {**_result(s["hands"], wall, tree), "job": s["seconds"], "job_rate": s["hands"] / s["seconds"]}
    per_stage: list[dict[str, Any]] = []
    if eventlog is not None:
        if args.stages:
            per_stage = stages(eventlog)
        if args.phases:
            r["phases"] = phases(eventlog, tree.started, tree.ended, tree.history)
        r["jobs"] = jobs(eventlog)
    return _name(kind, n), r, per_stage


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, float]:
    """A round's ratios, where its runs give them: ``per_core`` (Spark local[1] / DuckDB workers=1, end to end),
    ``scaling`` (local[2] / local[1], end to end), and both of the Spark job alone (``*_job``)."""
    duck1, s1, s2 = results.get("duckdb workers=1"), results.get("spark local[1]"), results.get("spark local[2]")
    out: dict[str, float] = {}
    if duck1 and s1:
        out["per_core"], out["per_core_job"] = s1["rate"] / duck1["rate"], s1["job_rate"] / duck1["rate"]
    if s1 and s2:
        out["scaling"], out["scaling_job"] = s2["rate"] / s1["rate"], s2["job_rate"] / s1["job_rate"]
    return out


def _print_round(results: dict[str, dict[str, Any]], per_stage: dict[str, list[dict[str, Any]]]) -> None:
    for name, r in results.items():
        job = f", job alone {r['job']:.1f} s ({r['job_rate']:,.0f} hands/s)" if "job" in r else ""
        print(f"  {name:<20} {r['hands']:>9,} hands  {r['wall']:7.1f} s  {r['rate']:8,.0f} hands/s end to end{job}")
        if "cpu" in r:
            _print_cpu(r)
        if "jobs" in r:
            print(f"  {'':<20} Spark jobs in the run: {r['jobs']}")
        if name in per_stage:
            _print_stages(per_stage[name], r["hands"])
        for what, seconds, busy, others in r.get("phases", ()):
            cores = "" if busy is None else f"{busy:4.2f} cores busy" + ("" if others is None else f", other jobs {others:4.2f}")
            print(f"    {what[:52]:<52} {seconds:6.1f} s  {cores}")
    q = ratios(results)
    if "per_core" in q:
        print(f"  Spark per core / DuckDB per core: {q['per_core']:.0%} end to end, {q['per_core_job']:.0%} job alone (goal >= 60 %)")
    if "scaling" in q:
        print(f"  local[2] / local[1]: {q['scaling']:.2f} x end to end, {q['scaling_job']:.2f} x job alone (goal >= 1.7 x)")
    duck1, s1 = results.get("duckdb workers=1"), results.get("spark local[1]")
    if duck1 and s1 and "cpu" in s1:
        print(f"  CPU a hand, Spark local[1] / DuckDB workers=1: {s1['cpu_us'] / duck1['cpu_us']:.2f} x ({s1['cpu_us']:,.0f} / {duck1['cpu_us']:,.0f} µs)")
    elif s1 and "cpu" not in s1:
        print("  CPU of the process trees: not counted (needs Linux's /proc)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--only", choices=("duckdb", "spark"), default=None, help="run one of the two imports only (no ratios between them)")
    ap.add_argument("--cores", type=int, nargs="+", default=[1, 2], metavar="N", help="the DuckDB workers and Spark's local[N] to run (default 1 2)")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting for the Spark runs (repeatable), to compare one")
    ap.add_argument("--stages", action="store_true", help="Spark's metrics per stage from its event log (JVM CPU, GC, shuffle, output)")
    ap.add_argument("--phases", action="store_true", help="each Spark run's wall time by job, and the cores busy in each part")
    ap.add_argument(
        "--rounds", type=int, default=1, metavar="N",
        help="every run N times, the order reversed every other round; the ratios' median and range over the rounds",
    )
    ap.add_argument(
        "--no-pin", dest="pin", action="store_false",
        help="leave each run free to use every core (default: a run of N workers or local[N] confined to N cores, its processes and threads with it)",
    )
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be 1 or more, not {args.rounds}")
    folder = _input(args.hands, args.files)
    import sysconfig

    WARM.extend([folder, Path(sysconfig.get_paths()["purelib"]), *([home] if (home := _java_home()) else [])])
    warmed, _ = warm(WARM)
    reaper = _subreaper()
    load_before = os.getloadavg()
    rounds: list[tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]] = []
    machine: list[float | None] = []  # each round's two_cpus(), taken before its runs
    with tempfile.TemporaryDirectory(prefix="hhtool-bench-spark-") as tmp:
        if args.only != "duckdb":
            _class_archive(Path(tmp))
        for k in range(args.rounds):
            order = _runs(args)
            machine.append(two_cpus() if any(n >= 2 for _, n in order) else None)
            results: dict[str, dict[str, Any]] = {}
            per_stage: dict[str, list[dict[str, Any]]] = {}
            for kind, n in order if k % 2 == 0 else reversed(order):  # A B C D, D C B A, ...: a drift of the machine's speed spares no run
                name, r, st = _one(kind, n, folder, Path(tmp), str(k), args, reaper)
                results[name] = r
                if st:
                    per_stage[name] = st
            rounds.append(({name: results[name] for name in (_name(kind, n) for kind, n in order)}, per_stage))  # printed in the forward order
    load_after = os.getloadavg()
    print(f"{args.hands:,} simulated hands in {args.files} files; {os.cpu_count()} cores; load average before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    print("  each run confined to as many cores as its workers or local[N] (--no-pin: free to use every core)" if args.pin else "  each run free to use every core (--no-pin)")
    print(f"  before each run, read into the page cache: the input, the installed packages and Java ({warmed / 1e6:,.0f} MB)")
    if args.conf:
        print(f"  Spark settings given: {' '.join(args.conf)}")
    for k, (results, per_stage) in enumerate(rounds):
        if len(rounds) > 1:
            print(f"round {k + 1} of {len(rounds)}" + (" (in reverse order)" if k % 2 else ""))
        if machine[k] is not None:
            print(f"  the machine: a Python loop on two CPUs at once, {machine[k]:.2f} x one alone (before the round's runs)")
        _print_round(results, per_stage)
    if len(rounds) > 1:
        _print_summary(rounds, machine)
    print(json.dumps({"hands": args.hands, "load_before": load_before, "load_after": load_after, "conf": args.conf, "rounds": [r for r, _ in rounds], "stages": [s for _, s in rounds], "two_cpus": machine}))


def _print_summary(rounds: list[tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]], machine: list[float | None]) -> None:
    """Each run's rate and each ratio over the rounds, and the machine's own two CPUs against one: median, lowest, highest."""
    import statistics

    print(f"over {len(rounds)} rounds: the median, then the lowest to the highest")
    for name in rounds[0][0]:
        rates = [r[name]["rate"] for r, _ in rounds]
        print(f"  {name:<20} {statistics.median(rates):8,.0f} hands/s   {min(rates):,.0f} to {max(rates):,.0f}")
    per_round = [ratios(r) for r, _ in rounds]
    for key, label, fmt, goal in (
        ("per_core", "Spark per core / DuckDB per core, end to end", "{:.0%}", "goal >= 60 %"),
        ("scaling", "local[2] / local[1], end to end", "{:.2f} x", "goal >= 1.7 x"),
    ):
        if all(key in q for q in per_round):
            v = [q[key] for q in per_round]
            each = ", ".join(fmt.format(x) for x in v)
            print(f"  {label}: {fmt.format(statistics.median(v))} ({goal})")
            print(f"    {fmt.format(min(v))} to {fmt.format(max(v))}; by round: {each}")
    if all(m is not None for m in machine):
        m = [x for x in machine if x is not None]
        print(f"  the machine, two CPUs / one: {statistics.median(m):.2f} x")
        print(f"    {min(m):.2f} x to {max(m):.2f} x; by round: {', '.join(f'{x:.2f} x' for x in m)}")


if __name__ == "__main__":
    main()
