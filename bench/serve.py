"""``hhtool serve`` under load: the latency of its pages, errors, the server's memory.  Never a test.

Run: ``python bench/serve.py [--hands 1000000] [--base 100000] [--requests 200] [--clients 20] [--seconds 30] [--import-hands 100000]``.

The database is ``bench/stats.py``'s (cached under ``bench/.cache/``):
``--hands`` simulated hands imported, or above ``--base`` copies of the
``--base`` ones made inside DuckDB.  The server is the real command,
``python -m hhtool.cli serve --db DB --port 0``, in its own process; the
clients are threads of this one on the loopback, each with its own
connection per request (``urllib``), as browsers open them.

Measured:

* **one client**: ``--requests`` requests of each kind, one after the
  other: the dashboard (``/``), the players grid (``/players`` sorted by
  VPIP, by the euro net, the chips net, big bets/100, the name; cold: a
  filter combination and a sort each), the hands page (the first pages, a verdict, a player, sorted by
  pot, a player's statistic's hands), a player's page (statistics, graph,
  sessions) of the players with the most hands, and a hand's replay page
  (hands drawn over the whole database); p50 and p95 of each.  The hands
  and player pages twice: a few addresses asked again and again (each
  asked once before the timed requests: their figures are the ones the
  server keeps), and **cold**: every
  request a filter combination of its own (a player with dates, day start,
  profile, structure or stakes), nothing kept (:func:`targets`); and
  "player, cold, all": the same players' pages over every hand of theirs,
  each under a range of days of its own that holds them all (never asked
  before, the most a page walks).  Goals
  (issue 18): hands page and player under 100 ms at the 95th percentile,
  replay page under 50 ms; (issue 41) the players grid and the dashboard
  under 100 ms.
* **``--clients`` at once** for ``--seconds``: the same mix, round robin;
  requests, errors (any status but 200, any refused connection), p95;
  meanwhile the server auto-imports ``--import-hands`` simulated hands
  (``bench/import.py``'s cached files, copied into the folder it watches
  as the load starts; 0: no import), and how many it stored by the end of
  the load and in all.  With an import the server runs on a copy of the
  database, so that the cached one stays as it was.
* the server's CPU a request of each kind, from one client (user + system
  of its process, all its threads, from ``/proc``): a figure that the
  machine's load does not change, unlike the latencies.
* the server's peak memory (``VmHWM`` of its process; goal under 1.5 GB):
  after the one client's requests (the pages alone), and at the end (with
  the load and the import), beside the peak of the server with its
  import's workers (sampled).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _bench(name: str) -> Any:
    """Another benchmark of bench/ as a module (its database, its input, its memory sampling)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def start_server(db: Path, watch: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    """The real ``hhtool serve`` on a free port (watching ``watch``), and its address once it answers."""
    marker = db.with_name(db.name + ".serve")
    extra = ["--watch", str(watch)] if watch is not None else []
    proc = subprocess.Popen([sys.executable, "-m", "hhtool.cli", "serve", "--db", str(db), "--port", "0", *extra], cwd=ROOT, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server ended with {proc.returncode}")
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
            if doc.get("pid") == proc.pid:
                urllib.request.urlopen(doc["url"] + "api/progress", timeout=30).read()
                return proc, str(doc["url"])
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not answer in 300 s")


def incoming_files(hands: int, files: int) -> list[Path]:
    """``hands`` simulated hands in ``files`` files of a site the database has none of, cached under ``bench/.cache/``."""
    cache = ROOT / "bench" / ".cache" / f"serve-incoming-{hands}-{files}"
    if not (cache / ".done").exists():
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        per = hands // files
        for k in range(files):
            n = per + (hands - per * files if k == files - 1 else 0)
            subprocess.run([sys.executable, "-m", "hhtool.cli", "simulate", "--out", str(cache / f"arrivi_{k:02d}.txt"), "--hands", str(n),
                            "--site", "Arrivi", "--seed", str(5000 + k), "--jobs", "2"], cwd=ROOT, check=True, capture_output=True)
        (cache / ".done").write_text("")
    return sorted(cache.glob("*.txt"))


def fetch(url: str) -> tuple[int, float]:
    """(status, seconds) of one GET; a refused or broken connection is status 0."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except OSError:
        status = 0
    return status, time.perf_counter() - start


def targets(base: str, seed: int = 18, cold: int = 200) -> dict[str, list[str]]:
    """The addresses of each kind, drawn from the database through the API.

    The pages of a kind that names no "cold" are asked again and again (a
    few addresses, round robin): after the first time their figures are the
    ones the server keeps (``Kept``).  A "cold" kind is ``cold`` addresses
    that are each asked once, every one a filter combination of its own
    (dates, day start, profile, structure, stakes), so that nothing of it is
    kept: what a person meets opening a player, or the hands, with new
    filters, and everyone after each batch of an import.
    """
    rng = random.Random(seed)

    def api(path: str) -> dict[str, object]:
        with urllib.request.urlopen(base + path, timeout=120) as r:
            return dict(json.loads(r.read()))

    total = int(str(api("api/hands?limit=1")["total"]))
    players: list[str] = []
    with urllib.request.urlopen(base + "players", timeout=120) as r:
        page = r.read().decode("utf-8")
    import datetime as dt
    import html
    import re

    players = [html.unescape(m) for m in re.findall(r'<a href="/players/[^"]+">([^<]+)</a>', page)][:10]
    hands = []
    seen: list[dict[str, Any]] = []
    for _ in range(40):
        doc = api(f"api/hands?limit=5&offset={rng.randrange(max(1, total - 5))}")
        rows = doc["hands"]
        assert isinstance(rows, list)
        seen += rows
        hands += [f"hands/{quote(h['site'], safe='')}/{quote(h['hand_id'], safe='')}" for h in rows]
    p = [quote(n, safe="") for n in players]
    lists = ["hands", "hands?page=2", "hands?verdict=disputed", "hands?sort=pot", "hands?showdown=1&allin=1"]
    lists += [f"hands?player={n}" for n in p[:3]] + [f"hands?player={n}&stat=vpip&taken=1" for n in p[:3]] + [f"hands?player={n}&sort=net" for n in p[:2]]
    days = sorted({dt.date.fromisoformat(str(h["started_at"])[:10]) for h in seen})
    stakes = sorted({f"{h['small_bet']['text']}/{h['big_bet']['text']}".replace("€", "").replace("$", "").replace("£", "").replace(" chips", "")
                     for h in seen})

    def filters(k: int) -> str:
        """The ``k``-th filter combination: a stretch of days (every one), and now and then a profile, structure or stakes."""
        start = rng.choice(days)
        items = [("from", start.isoformat()), ("to", (start + dt.timedelta(days=rng.randrange(0, 30))).isoformat()),
                 ("day_start", str(rng.randrange(24)))]
        extra = [("profile", rng.choice(["classic", "stellapoker", "italian"])), ("structure", rng.choice(["fixed", "pot", "no"])),
                 ("stakes", rng.choice(stakes))]
        items += [extra[k % 3]] if k % 2 else []
        return "&".join(f"{a}={quote(b, safe='')}" for a, b in items)

    cold_players = [base + f"players/{p[k % len(p)]}?{filters(k)}" for k in range(cold)]
    # every hand of the busiest players, yet never asked before: a range of days that holds them all, another each time
    cold_whole = [base + f"players/{p[k % len(p)]}?from={dt.date(2000, 1, 1) + dt.timedelta(days=k)}&to=2099-12-31" for k in range(cold)]
    cold_lists = [base + f"hands?player={p[k % len(p)]}&{filters(k)}" + ("&sort=net" if k % 3 == 1 else "&stat=vpip&taken=1" if k % 3 == 2 else "")
                  for k in range(cold)]
    grids = ["players?sort=vpip&order=desc", "players?sort=net_EUR&order=desc", "players?sort=net_chips&order=asc", "players?sort=bb100",
             "players?sort=player&order=asc&page=1"]
    cold_grids = [base + f"players?{filters(k)}&sort={('vpip', 'net_EUR', 'wsd', 'net_USD')[k % 4]}&order={('desc', 'asc')[k % 2]}"
                  for k in range(cold)]
    return {
        "dashboard": [base],
        "players grid": [base + u for u in grids],
        "grid, cold": cold_grids,
        "hands page": [base + u for u in lists],
        "hands, cold": cold_lists,
        "player page": [base + f"players/{n}" for n in p],
        "player, cold": cold_players,
        "player, cold, all": cold_whole,
        "replay page": [base + u for u in hands],
    }


def p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, int(len(xs) * 0.95) - 1)] if xs else float("nan")


def peak_memory(pid: int) -> int:
    """The process's peak resident memory (``VmHWM``), bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system, all its threads: DuckDB's too), seconds: what a load does not change."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--base", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=200, help="requests of each kind from one client")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--import-hands", type=int, default=100_000, help="hands auto-imported during the load (0: none)")
    args = ap.parse_args()

    db, made = _bench("stats").database(args.hands, min(args.base, args.hands))
    imp: Any = _bench("import")
    print(f"database: {db} ({made})", flush=True)
    work = Path(tempfile.mkdtemp(prefix="hhtool-serve-bench-"))
    watch: Path | None = None
    incoming: list[Path] = []
    if args.import_hands:
        incoming = incoming_files(args.import_hands, max(2, min(20, args.import_hands // 10000)))
        print(f"auto-import: {args.import_hands:,} hands in {len(incoming)} files (hhtool simulate, site Arrivi: none in the database yet)", flush=True)
        shutil.copy(db, work / db.name)  # the server writes the imported hands: never into the cached database
        db = work / db.name
        watch = work / "incoming"
        watch.mkdir()
    proc, base = start_server(db, watch)
    peak = [0]
    sampling = threading.Event()

    def sample() -> None:  # the server and its import's workers, every 0.2 s
        while not sampling.wait(0.2):
            peak[0] = max(peak[0], imp._tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        kinds = targets(base, cold=args.requests + 3)
        _, first = fetch(base)  # the dashboard, nothing of it kept yet: what the first visit after a batch of an import costs
        print(f"dashboard, its first request (nothing kept): {first * 1000:.0f} ms", flush=True)
        for kind, urls in kinds.items():  # the first requests of each warm DuckDB's caches and the templates
            kept = kind in ("hands page", "player page", "players grid", "dashboard")  # asked again and again: each computed once before it is timed
            for u in urls if kept else urls[:3]:
                fetch(u)
        print(f"\none client, {args.requests} requests of each kind (cold: each address once, nothing kept):")
        print(f"  {'':17} {'p50':>8} {'p95':>8} {'errors':>7}  goal (p95)   server CPU a request")
        goals = {"dashboard": 0.100, "players grid": 0.100, "grid, cold": 0.100, "hands page": 0.100, "hands, cold": 0.100, "player page": 0.100, "player, cold": 0.100, "player, cold, all": 0.100,
                 "replay page": 0.050}
        for kind, urls in kinds.items():
            times, errors = [], 0
            cpu = cpu_seconds(proc.pid)
            for i in range(args.requests):
                status, t = fetch(urls[3 + i] if "cold" in kind else urls[i % len(urls)])
                times.append(t)
                errors += status != 200
            print(f"  {kind:17} {statistics.median(times) * 1000:6.1f}ms {p95(times) * 1000:6.1f}ms {errors:7}  < {goals[kind] * 1000:.0f} ms"
                  f" {'ok' if p95(times) < goals[kind] and not errors else 'MISSED':6}  {(cpu_seconds(proc.pid) - cpu) / args.requests * 1000:5.1f} ms",
                  flush=True)

        print(f"  server peak memory so far: {peak_memory(proc.pid) / 2**20:,.0f} MB (VmHWM; the pages alone, before the load and the import)")

        mix = [u for urls in kinds.values() for u in urls[:20]]
        lock = threading.Lock()
        done: list[tuple[int, float]] = []
        stop = time.monotonic() + args.seconds

        def client(k: int) -> None:
            i = k
            while time.monotonic() < stop:
                got = fetch(mix[i % len(mix)])
                i += args.clients
                with lock:
                    done.append(got)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        for th in threads:
            th.start()
        if watch is not None:
            for path in incoming:  # written whole, then renamed into the folder: a file appears complete
                shutil.copy(path, work / path.name)
                (work / path.name).rename(watch / path.name)
        for th in threads:
            th.join()
        errors = sum(1 for s, _ in done if s != 200)
        times = [t for _, t in done]
        print(f"\n{args.clients} clients for {args.seconds:.0f} s: {len(done):,} requests ({len(done) / args.seconds:.0f}/s), "
              f"{errors} errors, p50 {statistics.median(times) * 1000:.0f} ms, p95 {p95(times) * 1000:.0f} ms")
        print(f"  server peak memory by the load's end: {peak_memory(proc.pid) / 2**20:,.0f} MB its process (VmHWM), "
              f"{peak[0] / 2**20:,.0f} MB with its workers (sampled)")
        if watch is not None:
            def stored() -> int:
                with urllib.request.urlopen(base + "api/progress", timeout=60) as r:
                    return int(json.loads(r.read())["import"]["hands_stored"])

            during = stored()
            started = time.monotonic()
            while stored() < args.import_hands and time.monotonic() - started < 3600:
                time.sleep(1)
            print(f"auto-import: {during:,} of {args.import_hands:,} hands stored during the load, all {stored():,} "
                  f"{time.monotonic() - started + args.seconds:.0f} s after the files were dropped")
        sampling.set()
        print(f"server peak memory: {peak_memory(proc.pid) / 2**20:,.0f} MB its process (VmHWM), "
              f"{peak[0] / 2**20:,.0f} MB with its workers (sampled); goal < 1,536 MB")
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
