"""Integrity screen benchmark (issue 42): detection against false leads, and the speed of ``hhtool integrity``.  Never a test.

Run: ``python bench/integrity.py [--hands 20000] [--seeds 4201,4202] [--strengths 0.1,0.2,0.3,0.5]
[--speed-hands 1000000] [--db FILE] [--part both|detection|speed|rooms|passes|pricing]``.

1. **Detection against false leads.**  For each seed, a room with no
   colluding pair and, for each strength, the same room with three pairs,
   one of each kind at that strength (``hhtool simulate --pool 30
   --players 6 --hands N --collude soft-play:X --collude chip-dumping:X
   --collude card-sharing:X --seed S``; the seed picks the pairs, so the
   same three pairs of the same seed at every strength; the manifest
   ``FILE.collusion.jsonl`` names them).  Each room is imported into a
   database of its own (``hhtool import``), and
   :func:`hhtool.collusion.screen` ranks its pairs (``cache=False``: every
   equity priced afresh, never one of an earlier build).  A colluding
   pair is *found* when it ranks above every innocent pair (a pair that is
   not one of the three, a colluder with an innocent player included) and
   *marked* when its lead is ``moderate`` or ``strong``.  An innocent pair
   marked ``moderate`` or ``strong`` is a *false lead*.  The tables print
   the rate of each over the seeds, per kind and strength, and the false
   leads per strength, the room with no pair included.  The seeds are not
   those of ``tests/test_integrity*.py`` (the bench refuses one that is).
2. **Speed.**  A room of ``--speed-hands`` hands (``--pool 30``, three
   pairs at 0.5), simulated into ``--histories`` and imported once into
   ``--db``, both kept and reused when there.  Then ``hhtool integrity
   --db FILE --format csv`` as a subprocess, as a user runs it: first with
   its caches (the equities, the passes' frames) deleted (cold), then again (warm, ``--repeat`` times):
   wall and CPU time of the process, its peak memory (sampled from
   ``/proc`` every 50 ms), hands a second, and the ratios to the goal (a
   million hands in under 60 s on this 2-core machine) and of cold to warm.

``--part rooms`` builds the rooms and the speed database only (no screen):
to have them ready before a screen exists.  Rooms and their databases are cached under ``bench/.cache/integrity/``
(git-ignored), one folder each, named by their size, seed and strength;
delete a folder to build it again.  ``--part passes`` times each SQL pass of the screen over the speed
database in this process (wall, CPU, peak memory): where a screen's time goes.  ``--part pricing`` prices
``--pricing-decisions`` of its candidates in this process, asked together as the screen asks them and one by one
(CPU a decision, and the same figures).  Simulate and import use every core
(``--jobs``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.store.schema import SCHEMA_VERSION  # noqa: E402
from hhtool.textsafe import term  # noqa: E402
from procs import tree_rss  # noqa: E402  (bench/, this script's folder)

CACHE = ROOT / "bench" / ".cache" / "integrity"
KINDS = ("soft-play", "chip-dumping", "card-sharing")
MARKED = ("moderate", "strong")
GOAL_SECONDS = 60.0
GOAL_HANDS = 1_000_000
NICE = 10  # the niceness of the simulations and imports: the machine is shared (timed runs keep the bench's own)


@dataclass(frozen=True)
class Room:
    """A simulated room imported into its own database, and the colluding pairs its manifest names."""

    history: Path
    db: Path
    pairs: tuple[tuple[str, str, str, float], ...]  # (kind, a, b, strength): a dumps to b in chip dumping
    together: dict[str, int] = field(default_factory=dict)  # kind -> hands both of the pair were dealt in
    deviated: dict[str, int] = field(default_factory=dict)  # kind -> of those, hands where the pair deviated


def _run(cmd: list[str], what: str) -> subprocess.CompletedProcess[str]:
    """``cmd`` run from the tree's root, niced (the machine is shared); stops the bench, with its error, if it fails."""
    lower = max(0, NICE - os.nice(0))  # the bench itself may already run niced
    proc = subprocess.run(["nice", "-n", str(lower), *cmd], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{what} failed ({proc.returncode}): {' '.join(map(shlex.quote, cmd))}\n{proc.stderr[-2000:]}")
    return proc


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created): two benches building the same room or database wait for each other."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def simulate_args(hands: int, seed: int, strength: float | None, pool: int, players: int) -> list[str]:
    """The ``hhtool simulate`` options of a room: three pairs, one of each kind, at ``strength``; none when it is None."""
    args = ["--hands", str(hands), "--pool", str(pool), "--players", str(players), "--seed", str(seed)]
    if strength is not None:
        for kind in KINDS:
            args += ["--collude", f"{kind}:{strength:g}"]
    return args


def build_room(folder: Path, sim: list[str], jobs: int) -> Room:
    """The room ``sim`` describes, simulated into ``folder/room.txt`` and imported into ``folder/room.duckdb``, once."""
    with _locked(folder.with_name(folder.name + ".lock")):
        return _build_room(folder, sim, jobs)


def _build_room(folder: Path, sim: list[str], jobs: int) -> Room:
    history, db = folder / "room.txt", folder / f"room-v{SCHEMA_VERSION}.duckdb"
    done = folder / ".simulated"
    if not done.exists():
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        _run([sys.executable, "-m", "hhtool.cli", "simulate", "--out", str(history), *sim, "--jobs", str(jobs)], "simulate")
        done.write_text(shlex.join(["hhtool", "simulate", "--out", str(history), *sim]) + "\n")
    if not db.exists():
        tmp = db.with_suffix(".tmp.duckdb")
        tmp.unlink(missing_ok=True)
        out = _run(
            [sys.executable, "-m", "hhtool.cli", "import", str(history), "--db", str(tmp), "--workers", str(jobs), "--json"], "import"
        )
        summary = json.loads(out.stdout)
        if summary.get("failed"):
            raise SystemExit(f"import of {history}: {summary['failed']} hands failed")
        tmp.rename(db)
    return read_manifest(history, db)


def read_manifest(history: Path, db: Path) -> Room:
    """The room's colluding pairs and, per kind, the hands the pair was dealt in together and deviated in."""
    pairs: list[tuple[str, str, str, float]] = []
    number: dict[int, str] = {}
    together: dict[str, int] = {}
    deviated: dict[str, int] = {}
    manifest = history.with_name(history.name + ".collusion.jsonl")
    if manifest.exists():
        with open(manifest, encoding="utf-8") as f:
            for line in f:
                entry = json.loads(line)
                if entry["entry"] == "pair":
                    pairs.append((entry["kind"], entry["a"], entry["b"], float(entry["strength"])))
                    number[entry["pair"]] = entry["kind"]
                elif entry["entry"] == "hand":
                    kind = number[entry["pair"]]
                    together[kind] = together.get(kind, 0) + 1
                    deviated[kind] = deviated.get(kind, 0) + bool(entry["deviated"])
    return Room(history, db, tuple(pairs), together, deviated)


@dataclass(frozen=True)
class Outcome:
    """What the screen made of one room."""

    seed: int
    strength: float | None
    ranks: dict[str, tuple[int | None, str]]  # kind -> (rank, lead); rank None when the pair is not in the list
    best_innocent: int | None  # the rank of the best innocent pair
    innocent: int  # innocent pairs ranked
    innocent_marked: int  # of those, marked moderate or strong
    innocent_strong: int
    seconds: float


def screen_room(room: Room, seed: int, strength: float | None) -> Outcome:
    """``screen()`` over the room's database, and where its colluding pairs and its innocent pairs stand."""
    from hhtool.collusion import screen

    start = time.perf_counter()
    result = screen(room.db, cache=False)
    seconds = time.perf_counter() - start
    colluding = {frozenset((a, b)): kind for kind, a, b, _ in room.pairs}
    ranks: dict[str, tuple[int | None, str]] = {kind: (None, "none") for kind, *_ in room.pairs}
    best_innocent: int | None = None
    innocent = marked = strong = 0
    for row in result.pairs.select("rank", "a_name", "b_name", "lead").iter_rows(named=True):
        kind = colluding.get(frozenset((row["a_name"], row["b_name"])))
        if kind is not None:
            ranks[kind] = (int(row["rank"]), str(row["lead"]))
            continue
        innocent += 1
        marked += row["lead"] in MARKED
        strong += row["lead"] == "strong"
        if best_innocent is None or row["rank"] < best_innocent:
            best_innocent = int(row["rank"])
    return Outcome(seed, strength, ranks, best_innocent, innocent, marked, strong, seconds)


def found(o: Outcome, kind: str) -> bool:
    """The pair of ``kind`` ranks above every innocent pair."""
    rank = o.ranks[kind][0]
    return rank is not None and (o.best_innocent is None or rank < o.best_innocent)


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "-"


def detection(args: argparse.Namespace) -> None:
    """Part 1: the rooms, the screen of each, and the two tables."""
    tuned = _test_seeds()
    clash = sorted(set(args.seeds) & tuned)
    if clash:
        raise SystemExit(f"seeds {clash} are used by tests/test_integrity*.py: the bench measures on seeds the tests do not tune to")
    outcomes: list[Outcome] = []
    rooms: dict[tuple[int, float | None], Room] = {}
    build_s = 0.0
    for seed in args.seeds:
        for strength in [None, *args.strengths]:
            sim = simulate_args(args.hands, seed, strength, args.pool, args.players)
            name = f"p{args.pool}x{args.players}-{args.hands}-s{seed}-" + ("none" if strength is None else f"x{strength:g}")
            start = time.perf_counter()
            room = build_room(CACHE / "rooms" / name, sim, args.jobs)
            build_s += time.perf_counter() - start
            rooms[(seed, strength)] = room
            if args.part == "rooms":
                print(f"  {name}: {room.db} ({time.perf_counter() - start:.0f} s)", flush=True)
                continue
            o = screen_room(room, seed, strength)
            outcomes.append(o)
            placed = ", ".join(
                f"{kind} #{rank if rank is not None else '-'} {lead}" for kind, (rank, lead) in o.ranks.items()
            )
            print(
                f"  seed {seed}, strength {'none' if strength is None else f'{strength:g}'}: "
                f"{placed + '; ' if placed else ''}best innocent #{o.best_innocent}, "
                f"{o.innocent_marked} of {o.innocent} innocent pairs moderate or strong ({o.innocent_strong} strong); "
                f"screen {o.seconds:.1f} s",
                flush=True,
            )
    if args.part == "rooms":
        return
    print(f"rooms built or read in {build_s:.0f} s, screened in {sum(o.seconds for o in outcomes):.0f} s")

    print()
    print(f"Detection ({args.hands:,} hands a room, --pool {args.pool} --players {args.players}, seeds {_ints(args.seeds)}):")
    print()
    print("| kind | strength | ranked above every innocent pair | marked moderate or strong | both | its rank, each seed | hands together (deviated), each seed |")
    print("|---|---:|---:|---:|---:|---|---|")
    for kind in KINDS:
        for strength in args.strengths:
            runs = [o for o in outcomes if o.strength == strength]
            n = len(runs)
            top = sum(found(o, kind) for o in runs)
            mark = sum(o.ranks[kind][1] in MARKED for o in runs)
            both = sum(found(o, kind) and o.ranks[kind][1] in MARKED for o in runs)
            ranks = ", ".join(str(o.ranks[kind][0]) if o.ranks[kind][0] is not None else "-" for o in runs)
            met = ", ".join(
                f"{rooms[(o.seed, strength)].together.get(kind, 0)} ({rooms[(o.seed, strength)].deviated.get(kind, 0)})" for o in runs
            )
            print(f"| {kind.replace('-', ' ')} | {strength:g} | {_share(top, n)} | {_share(mark, n)} | {_share(both, n)} | {ranks} | {met} |")
    print()
    print("False leads (innocent pairs marked moderate or strong, over every seed):")
    print()
    print("| colluding pairs | innocent pairs ranked | marked moderate or strong | of which strong | rooms with a strong false lead |")
    print("|---|---:|---:|---:|---:|")
    for strength in [None, *args.strengths]:
        runs = [o for o in outcomes if o.strength == strength]
        pairs = sum(o.innocent for o in runs)
        marked = sum(o.innocent_marked for o in runs)
        strong = sum(o.innocent_strong for o in runs)
        label = "none" if strength is None else f"three at {strength:g}"
        rate = f"{marked:,} ({marked / pairs:.2%})" if pairs else "-"
        print(f"| {label} | {pairs:,} | {rate} | {strong:,} | {_share(sum(o.innocent_strong > 0 for o in runs), len(runs))} |")
    names = sorted({f"{kind}: {term(a)} & {term(b)} (seed {seed})" for (seed, _), r in rooms.items() for kind, a, b, _ in r.pairs})
    print()
    print("the pairs: " + "; ".join(names))


def _test_seeds() -> set[int]:
    """Every number on a line of ``tests/test_integrity*.py`` that speaks of a seed (``101-104`` read as a range).

    Wider than the seeds alone (a line ``seed=5, hands=3000`` gives 3000 too): a bench seed must not be any of them.
    """
    seeds: set[int] = set()
    for path in (ROOT / "tests").glob("test_integrity*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "seed" not in line.lower():
                continue
            for lo, hi in re.findall(r"\b(\d+)\s*[-\u2013]\s*(\d+)\b", line):
                if 0 <= int(hi) - int(lo) <= 1000:
                    seeds.update(range(int(lo), int(hi) + 1))
            seeds.update(int(n) for n in re.findall(r"\d+", line))
    return seeds


def _ints(xs: list[int]) -> str:
    return ",".join(str(x) for x in xs)


def _timed(cmd: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (the process and its children), peak resident bytes of ``cmd``, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    chunks: list[str] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read() if proc.stdout else ""))
    reader.start()
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.05)
    reader.join()
    err = proc.stderr.read() if proc.stderr else ""
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{shlex.join(cmd)} failed ({proc.returncode}): {err[-2000:]}")
    if after.ru_maxrss > before.ru_maxrss:  # the largest child so far is this one (the figure is of every child waited for)
        peak = max(peak, after.ru_maxrss * 1024)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, peak, "".join(chunks)


def speed_room(args: argparse.Namespace) -> tuple[Path, str]:
    """The speed room's database, built once (simulated into ``--histories``, imported into ``--db``), and how it was made."""
    db: Path = args.db or CACHE / f"speed-{args.speed_hands}-v{SCHEMA_VERSION}.duckdb"
    with _locked(db.with_name(db.name + ".lock")):
        return _speed_room(args, db)


def _speed_room(args: argparse.Namespace, db: Path) -> tuple[Path, str]:
    histories: Path = args.histories or db.with_suffix("")
    history = histories / "room.txt"
    sim = simulate_args(args.speed_hands, args.speed_seed, 0.5, args.pool, args.players)
    if db.exists():
        return db, f"reused (its histories: {histories})"
    made = []
    done = histories / ".simulated"
    if not done.exists():
        histories.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        _run([sys.executable, "-m", "hhtool.cli", "simulate", "--out", str(history), *sim, "--jobs", str(args.jobs)], "simulate")
        done.write_text(shlex.join(["hhtool", "simulate", "--out", str(history), *sim]) + "\n")
        made.append(f"simulated in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    tmp = db.with_name(db.name + ".tmp")
    tmp.unlink(missing_ok=True)
    _run([sys.executable, "-m", "hhtool.cli", "import", str(history), "--db", str(tmp), "--workers", str(args.jobs), "--json"], "import")
    tmp.rename(db)
    made.append(f"imported in {time.perf_counter() - start:.0f} s")
    return db, ", ".join(made) + f": {shlex.join(['hhtool', 'simulate', *sim])}"


def cache_files(db: Path) -> list[Path]:
    """The integrity screen's caches beside ``db`` (the equities, the passes' frames): what a cold run deletes."""
    from hhtool.collusion.pricing import cache_path

    path = cache_path(db)
    try:
        from hhtool.collusion.passes import passes_path
    except ImportError:  # a tree from before the passes' file
        return [p for p in (path,) if p is not None and p.exists()]
    return [p for p in (path, passes_path(path)) if p is not None and p.exists()]


def speed(args: argparse.Namespace) -> None:
    """Part 2: ``hhtool integrity`` over the speed room, cold then warm."""
    db, made = speed_room(args)
    from hhtool.store.db import connect

    con = connect(db, read_only=True)
    try:
        hands = int(con.execute("SELECT count(*) FROM hands").fetchall()[0][0])
    finally:
        con.close()
    print(f"database: {db} ({db.stat().st_size / 2**20:,.0f} MB, {hands:,} hands), {made}")
    cmd = [sys.executable, "-m", "hhtool.cli", "integrity", "--db", str(db), "--format", "csv"]
    if subprocess.run([*cmd[:4], "--help"], cwd=ROOT, capture_output=True).returncode != 0:
        # no command yet in this tree: the library call it will make, in a process of its own as the command would be
        code = "import sys; from hhtool.collusion import screen; s = screen(sys.argv[1]); s.pairs.write_csv(sys.stdout)"
        cmd = [sys.executable, "-c", code, str(db)]
    runs: list[tuple[str, float, float, int]] = []
    for k in range(1 + args.repeat):
        label = "cold" if k == 0 else "warm"
        if k == 0:
            gone = cache_files(db)
            for p in gone:
                p.unlink()
            note = f"cache deleted: {', '.join(p.name for p in gone)}" if gone else "no cache to delete"
        else:
            kept = cache_files(db)
            note = f"cache: {', '.join(f'{p.name} {p.stat().st_size / 2**20:,.1f} MB' for p in kept)}" if kept else "no cache file found"
        load = os.getloadavg()[0]
        wall, cpu, peak, out = _timed(cmd)
        rows = max(out.count("\n") - 1, 0)
        runs.append((label, wall, cpu, peak))
        print(
            f"  {label}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 2**20:,.0f} MB, {rows:,} pairs "
            f"({note}; load before {load:.1f})",
            flush=True,
        )
    cold = runs[0]
    warm = min(runs[1:], key=lambda r: r[1]) if runs[1:] else None
    per_m = GOAL_HANDS / max(hands, 1)
    what = shlex.join(["hhtool", *cmd[3:]]) if cmd[1] == "-m" else "screen(DB) in a process of its own (no `hhtool integrity` yet)"
    print(f"`{what}` over {hands:,} hands ({os.cpu_count()} cores, {_build()} build):")
    print(
        f"  cold: {cold[1]:.1f} s = {hands / cold[1]:,.0f} hands/s, {cold[2] / hands * 1e6:,.0f} µs of CPU a hand; "
        f"at that rate a million hands in {cold[1] * per_m:.1f} s = {cold[1] * per_m / GOAL_SECONDS:.2f}x the goal of {GOAL_SECONDS:.0f} s"
    )
    if warm is not None:
        print(
            f"  warm: {warm[1]:.1f} s = {hands / warm[1]:,.0f} hands/s, {warm[2] / hands * 1e6:,.0f} µs of CPU a hand; "
            f"at that rate a million hands in {warm[1] * per_m:.1f} s = {warm[1] * per_m / GOAL_SECONDS:.2f}x the goal; "
            f"cold / warm {cold[1] / warm[1]:.2f}x wall, {cold[2] / max(warm[2], 1e-9):.2f}x CPU"
        )
    print(f"  peak memory {max(r[3] for r in runs) / 2**20:,.0f} MB")


def passes(args: argparse.Namespace) -> None:
    """Part ``passes``: each SQL pass of the screen over ``--db`` in this process, timed (wall, CPU, peak resident memory).

    The passes :func:`hhtool.collusion.screen` makes, in its order, without
    the pricing and the signals: where the time and the memory of a screen
    over many hands go.  CPU is the process's (DuckDB's threads included);
    the peak is sampled every 20 ms during the pass.
    """
    from hhtool.collusion import spots
    from hhtool.collusion.screen import open_db
    from hhtool.stats.filters import Filters

    db, _ = speed_room(args)
    con, _, _ = open_db(db)
    steps: list[tuple[str, Callable[[], object]]] = [
        ("ih: scoped_hands", lambda: spots.scoped_hands(con, Filters())),
        ("pair_hands", lambda: spots.pair_hands(con)),
        ("traffic", lambda: spots.traffic(con)),
        ("idec_n: decisions", lambda: spots.decisions(con)),
        ("heads_up", lambda: spots.heads_up(con)),
        ("calls_into", lambda: spots.calls_into(con)),
        ("iread_w, iq_n: quick_reads", lambda: spots.quick_reads(con)),
        ("candidates", lambda: spots.candidates(con)),
        ("tallies", lambda: spots.tallies(con)),
        ("iros, istr_n: read_strata", lambda: spots.read_strata(con)),
        ("strata", lambda: spots.strata(con)),
        ("hidden_beaten", lambda: spots.hidden_beaten(con)),
    ]
    print(f"the screen's SQL passes over {db} (load before {os.getloadavg()[0]:.1f}):")
    total_wall = total_cpu = 0.0
    try:
        for name, step in steps:
            peak = [_rss()]
            done = threading.Event()

            def watch(peak: list[int] = peak, done: threading.Event = done) -> None:
                while not done.wait(0.02):
                    peak[0] = max(peak[0], _rss())

            watcher = threading.Thread(target=watch)
            watcher.start()
            r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            out = step()
            wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
            done.set()
            watcher.join()
            cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
            total_wall += wall
            total_cpu += cpu
            rows = getattr(out, "height", None)
            print(f"  {name:<26} {wall:7.1f} s wall {cpu:7.1f} s CPU  peak {peak[0] / 2**20:7,.0f} MB"
                  f"{'' if rows is None else f'  {rows:,} rows'}", flush=True)
        print(f"  {'total':<26} {total_wall:7.1f} s wall {total_cpu:7.1f} s CPU  (load after {os.getloadavg()[0]:.1f})")
    finally:
        con.close()


def pricing(args: argparse.Namespace) -> None:
    """Part ``pricing``: the screen's pricing of decisions, asked together (as the screen asks them) and one by one.

    The decisions: ``--pricing-decisions`` of the speed database's
    candidates (:func:`hhtool.collusion.spots.candidates`: every decision
    the pricing may be asked for), taken evenly through them; made into the
    screen's pricing tasks (:func:`hhtool.collusion.screen.price_tasks`),
    then priced in this process by
    :func:`hhtool.collusion.pricing.price_hands` (the questions of a chunk
    asked together, :func:`hhtool.game.equity.equities`) and one question
    at a time, alternated ``--repeat`` + 1 times; CPU of the process. The
    two must give the same figure for every decision.
    """
    import importlib

    from hhtool.collusion import spots
    from hhtool.collusion.pricing import HandTask, hand_cards, price_hands, priced, question
    from hhtool.collusion.screen import open_db
    from hhtool.stats.filters import Filters

    screen_module = importlib.import_module("hhtool.collusion.screen")  # the package's `screen` is the function
    db, _ = speed_room(args)
    con, _, _ = open_db(db)
    try:
        spots.scoped_hands(con, Filters())
        spots.decisions(con)
        spots.quick_reads(con)
        cand = spots.candidates(con)
        step = max(1, cand.height // args.pricing_decisions)
        rows = cand.gather_every(step).head(args.pricing_decisions).rows()
        tasks: list[HandTask] = screen_module.price_tasks(con, rows)
    finally:
        con.close()

    def alone(tasks: list[HandTask]) -> list[tuple[int, int, float | None]]:
        out: list[tuple[int, int, float | None]] = []
        for key, cards, facts, state, asked in tasks:
            h = hand_cards(cards, {key: facts}).get(key)
            for seq, player, street in asked:
                q = None if h is None else question(h, player, state.still_in(seq, player), state.folded(seq), street)
                out.append((key, seq, priced([q])[0]))
        return out

    n = sum(len(t[4]) for t in tasks)
    print(f"the screen's pricing of {n:,} of the {cand.height:,} candidates of {db} in {len(tasks):,} hands, one process "
          f"(load before {os.getloadavg()[0]:.1f}):")
    times: dict[str, list[float]] = {"together": [], "one by one": []}
    figures: dict[str, list[tuple[int, int, float | None]]] = {}
    for _ in range(args.repeat + 1):
        for name, run in (("together", price_hands), ("one by one", alone)):
            c = time.process_time()
            figures[name] = run(tasks)
            times[name].append(time.process_time() - c)
    for name, ts in times.items():
        per = [t / n * 1e3 for t in ts]
        print(f"  {name:<10} {statistics.median(per):.3f} ms of CPU a decision (median of {len(per)}; {min(per):.3f} to {max(per):.3f})")
    same = figures["together"] == figures["one by one"]
    ratio = statistics.median(times["one by one"]) / statistics.median(times["together"])
    print(f"  together {ratio:.2f}x faster; the same figure for every decision: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit(1)


def _rss() -> int:
    """This process's resident bytes now."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _build() -> str:
    """``compiled`` when the mypyc modules are what is imported, else ``pure``."""
    import hhtool.game.evaluate as m

    return "compiled" if str(getattr(m, "__file__", "")).endswith(".so") else "pure"


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def _ints_arg(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("both", "detection", "speed", "rooms", "passes", "pricing"), default="both",
                    help="rooms: build the detection rooms and the speed database only (no screen); "
                    "passes: each SQL pass of the screen over the speed database, timed in this process; "
                    "pricing: the screen's pricing of the speed database's candidates, together and one by one")
    ap.add_argument("--pricing-decisions", type=int, default=20_000, help="candidates priced by --part pricing")
    ap.add_argument("--hands", type=int, default=20_000, help="hands a room in the detection part")
    ap.add_argument("--seeds", type=_ints_arg, default=[4201, 4202], help="comma list: one room per seed and strength")
    ap.add_argument("--strengths", type=_floats, default=[0.1, 0.2, 0.3, 0.5], help="comma list, each in 0..1")
    ap.add_argument("--pool", type=int, default=30)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulate's processes and import's workers")
    ap.add_argument("--speed-hands", type=int, default=GOAL_HANDS)
    ap.add_argument("--speed-seed", type=int, default=4242)
    ap.add_argument("--db", type=Path, default=None, help="the speed room's database (built there when missing)")
    ap.add_argument("--histories", type=Path, default=None, help="the speed room's histories (default: beside --db)")
    ap.add_argument("--repeat", type=int, default=1, help="warm runs after the cold one")
    args = ap.parse_args()
    print(f"python bench/integrity.py {shlex.join(sys.argv[1:])}".rstrip())
    print(
        f"  = --part {args.part} --hands {args.hands} --seeds {_ints(args.seeds)} --strengths {','.join(f'{x:g}' for x in args.strengths)} "
        f"--pool {args.pool} --players {args.players} --jobs {args.jobs} --speed-hands {args.speed_hands} --speed-seed {args.speed_seed}"
        f"{' --db ' + str(args.db) if args.db else ''} --repeat {args.repeat}"
    )
    tree = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"  tree {tree or 'unknown'}, {os.cpu_count()} cores, {_build()} build")
    if args.part in ("both", "detection", "rooms"):
        detection(args)
    if args.part == "rooms":
        print(f"speed database: {speed_room(args)[0]}")
    if args.part in ("both", "speed"):
        speed(args)
    if args.part == "passes":
        passes(args)
    if args.part == "pricing":
        pricing(args)


if __name__ == "__main__":
    main()
