"""The live import's soak (issue 38): slow writers, pauses, ``kill -9`` of the server and its workers.  Never a test.

Run: ``python bench/soak.py [--hands 20000] [--writers 6] [--seed 1] [--max-pause 5] [--seconds S]
[--kills K] [--worker-kills W] [--bursts B] [--dir DIR] [--keep] [--dry-run]``.  The defaults scale with
``--hands``: ``--seconds`` 0.03 a hand (600 for 20,000), a server kill a 100 s (6 at most), 6 worker
kills and 2 bursts without one as 45 % of the hands allow (one of each 600 hands); a small trial:
``--hands 2000 --max-pause 3`` (about a minute and a half).  ``--dry-run`` checks the soak itself: every
plan written at once, no pause, no server, then ``hhtool import`` of the folder must store every hand.

What a person's machine does to ``hhtool serve --watch DIR`` over a day,
in ``--seconds`` of writing: a real server (``python -m hhtool.cli serve
--db DB --watch DIR --port 0``, its own process) watches a folder while
``--writers`` threads of this process append hands to their files the
way poker clients and copy tools write them:

* in pieces of random sizes at random speeds: pieces that cut lines and
  multi-byte UTF-8 characters (``€`` amounts, players renamed ``Zoë``,
  ``名人``, ``Ännchen Groß``), pauses between pieces up to ``--max-pause``
  seconds, and in particular **pauses in the middle of a hand** of 1.2 s to
  ``--max-pause`` (the hand written half, the pause, then the rest: longer
  than the live import's settle of one second, the case that matters);
* several files at once per writer (one per table), some with ``\\r\\n``
  line ends or a byte-order mark, some with the blank line between hands
  written *before* the next hand rather than after the last one, a few whose
  last hand has no line end at all; a file per writer that gets a few
  hands after long quiet stretches;
* a few files written under a hidden or outside name and renamed into the
  folder when whole (some then grow), a few ``.gz`` files dropped whole;
* bursts of 0.56 to 1.2 MB at once (a new file, a big append, or a ``.gz``):
  the live import reads a big input with a worker process
  (``IN_PROCESS_BYTES``, 512 KB), which is what there is to kill.

Meanwhile, at moments drawn from the seed: ``kill -9`` of the server
(then started again on the same database and folder, as a person would)
and, after a burst, ``kill -9`` of its import's worker process once one
is running (at a random delay after it appears; "hit" counts the kills
that found it alive).  The hands are ``hhtool simulate``'s (classic,
stellapoker, italian; fixed, pot, no limit; €, $ and chips; they replay
``ok``) and some of ``tests/handgen.py``'s (names with colons, brackets
and CJK, £ and whole dollars), each with an id of its own.

At the end: the writers done, the server's ``/api/progress`` idle for a
few seconds (then a little more), Ctrl-C to the server, and the database
read with DuckDB (read-only): the ``(site, hand_id)`` of ``hands`` are the
hands written, each once, each with the text written (``raw_text``, line
ends as ``\\n``); no row of ``failed`` (every hand written is complete)
and none of ``conflicts``.  The summary fits 80 columns; on a mismatch it
lists the first hands missing with the file and bytes they were written
to, and what the server's import said last.  Exit code 0 when everything
matches, 1 otherwise, 2 for a usage error.

The schedule (the hands, the pieces, the pauses, the kills and their
delays) is drawn from ``--seed``; what happens between the processes is
timing, so two runs of a seed differ only in where the server and its
workers were when a write or a kill came.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETTLE = 1.0
"""The live import's settle (``hhtool.store.live.SETTLE_SECONDS``): a pause longer than this in the middle of a hand is the case to soak."""
BURST_BYTES = (560_000, 1_200_000)
"""A burst's size: above ``IN_PROCESS_BYTES`` (512 KB), so that the live import reads it with a worker process to kill
(most of a worker's life is its start, a second or two: a bigger burst gives the kill little more to land in)."""
BURST_HANDS = 600
"""About the hands of a burst (hands of 0.8 to 2 KB): the default kills are as many as 45 % of ``--hands`` allow."""
RENAMED = {"alice": "Zoë", "bob": "名人", "carol": "Ännchen Groß"}
"""Players of some simulated sessions renamed: multi-byte UTF-8 in every seat, action and summary line of theirs."""
CONFIGS = (  # (rules, structure, players, italian options, site): the site sets the money (€, $, chips)
    ("classic", "fixed", 5, None, "Vela"),
    ("stellapoker", "pot", 4, None, "StellaPoker"),
    ("italian", "no", 6, "vela-at-start", "Tavolo"),
    ("italian", "pot", 6, "wild=K,carte-coperte", "Vela"),
    ("classic", "no", 3, None, "Tavolo"),
    ("stellapoker", "fixed", 6, None, "Vela"),
    ("italian", "fixed", 8, "una-coperta", "StellaPoker"),
)
_ID = re.compile(r"^(\S+) Hand #([A-Za-z0-9-]+):")
_CONTINUATION = re.compile(rb"[\x80-\xbf]")


# ---------------------------------------------------------------- the hands


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand to write: its key and its canonical text (``\\n`` line ends, ending with one), what ``raw_text`` must be."""

    site: str
    hand_id: str
    text: str


def make_hands(seed: int, n: int) -> list[Hand]:
    """``n`` hands with ids of their own (``S<seed>-<k>``), from the seed: simulated sessions and some of handgen's, shuffled.

    The ids are given here, once, so that every hand of a run is distinct
    whichever writer takes it; a session's hands keep their text but for
    the id (and, for half the sessions, the renamed players).
    """
    from hhtool.simulate import make_config, simulate_text
    from tests.handgen import generate_hand

    rng = random.Random(f"soak:{seed}:hands")
    texts: list[str] = []
    odd = n // 12  # handgen's: names with colons, brackets and CJK, £ and whole dollars; parse, mostly not rule-valid
    while len(texts) < n - odd:
        rules, structure, players, options, site = rng.choice(CONFIGS)
        config = make_config(rules=rules, structure=structure, players=players, italian_options=options, seed=rng.randrange(10**6), site=site)
        text, _ = simulate_text(config, min(250, n - odd - len(texts)))
        hands = [h.strip("\n") + "\n" for h in re.split(r"^(?=\S+ Hand #)", text, flags=re.M) if h.strip()]
        if rng.random() < 0.5:
            for old, new in RENAMED.items():
                hands = [re.sub(rf"(?<!\w){old}(?!\w)", new, h) for h in hands]
        texts += hands
    texts = texts[: n - odd] + [generate_hand(rng, k) for k in range(odd)]
    rng.shuffle(texts)
    out = []
    for k, text in enumerate(texts):
        m = _ID.match(text)
        assert m is not None, text[:80]
        hid = f"S{seed}-{k:06d}"
        out.append(Hand(m.group(1), hid, text[: m.start(2)] + hid + text[m.end(2):]))
    return out


def check_hands(hands: Sequence[Hand]) -> None:
    """A sample parses, and the simulated ones replay ``ok``: a failed row in the end is then the import's, not the generator's."""
    from hhtool.history.parse import parse_text
    from hhtool.replay import replay

    for h in hands[:: max(1, len(hands) // 400)]:
        parsed = parse_text(h.text)
        if "Table 'Gen " not in h.text:  # simulated: it replays ok (handgen's need only parse)
            verdict = replay(parsed).verdict
            if verdict != "ok":
                raise SystemExit(f"soak: generated hand {h.hand_id} replays {verdict}: a bug of the soak's generator")


# ---------------------------------------------------------------- the writers' plans


@dataclass(frozen=True, slots=True)
class Write:
    """Append ``data`` to ``path`` (created if new); ``hands``: hands it completes; ``close``: the writer is done with the file."""

    path: Path
    data: bytes
    hands: int = 0
    close: bool = False


@dataclass(frozen=True, slots=True)
class Pause:
    """Sleep ``seconds``; ``hand``: the hand half written meanwhile (a pause in the middle of a hand), else None."""

    seconds: float
    hand: str | None = None


@dataclass(frozen=True, slots=True)
class Rename:
    """Move a file written whole under another name into the watched folder."""

    src: Path
    dst: Path


Step = Write | Pause | Rename


@dataclass(slots=True)
class Written:
    """Where a hand was written: to tell a missing hand's story (file, bytes, how, its pauses)."""

    hand: Hand
    file: str  # relative to the watched folder
    start: int  # its bytes in the file (of a .gz: in its content)
    end: int
    how: str
    pauses: list[float] = field(default_factory=list)  # its mid-hand pauses over the settle, planned


@dataclass(slots=True)
class Table:
    """A file a writer appends to, as a poker client writes one per table."""

    path: Path
    crlf: bool
    bom: bool
    before: bool  # the blank line between hands written before each hand, not after it
    life: int  # hands it gets before the client closes it
    size: int = 0
    hands: int = 0


@dataclass(slots=True)
class _Boundary:
    """The moment after a write, where the plan may pause: inside a hand or between two."""

    hand: str | None  # the hand half written here
    weight: float  # share of the writer's small delays (the pieces of a slow hand weigh more)
    pause: float = 0.0


@dataclass(slots=True)
class Plan:
    """A writer's steps and the hands they write; counts for the summary."""

    steps: list[Step]
    written: list[Written]
    files: set[str] = field(default_factory=set)
    kinds: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str, k: int = 1) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + k


class Planner:
    """One writer's plan, drawn from its own generator: the pieces, the files and the pauses, before anything runs.

    Drawn first and run later so that a seed is one schedule (timing aside),
    and so that every hand's file and bytes are known for the report.
    """

    def __init__(self, name: str, rng: random.Random, watch: Path, staging: Path, seconds: float, max_pause: float) -> None:
        self.name = name
        self.rng = rng
        self.watch = watch
        self.staging = staging
        self.seconds = seconds
        self.max_pause = max_pause
        self.plan = Plan([], [])
        self.bounds: list[_Boundary | None] = []  # one per step: the pause after it (None: none may go there)
        self.key: list[int] = []  # steps after which a long mid-hand pause goes
        self.tables: list[Table] = []
        self.opened = 0

    # -- files

    def new_table(self, stem: str | None = None, life: int | None = None) -> Table:
        self.opened += 1
        name = stem or f"{self.name}-t{self.opened:03d}.txt"
        t = Table(self.watch / name, crlf=self.rng.random() < 0.2, bom=self.rng.random() < 0.06, before=self.rng.random() < 0.35,
                  life=life if life is not None else self.rng.randint(15, 500))
        self.plan.count("crlf", t.crlf)
        self.plan.count("bom", t.bom)
        self.plan.count("blank before", t.before)
        return t

    def _emit(self, path: Path, data: bytes, hands: int, bound: _Boundary | None, close: bool = False) -> None:
        self.plan.steps.append(Write(path, data, hands, close))
        self.bounds.append(bound)
        self.plan.files.add(path.name)

    def hand_bytes(self, t: Table, h: Hand, last: bool) -> tuple[bytes, int, int]:
        """The bytes of ``h`` appended to ``t``: (data, where its own text starts and ends in data)."""
        nl = b"\r\n" if t.crlf else b"\n"
        body = h.text.encode("utf-8").replace(b"\n", nl)
        prefix = b"\xef\xbb\xbf" if t.bom and t.size == 0 else b""
        if t.before and t.hands > 0:
            prefix += nl
        suffix = b"" if t.before else nl
        if last and self.rng.random() < 0.25:  # the file's very end: no line end after the last line
            body, suffix = body[: -len(nl)], b""
            self.plan.count("no final newline")
        return prefix + body + suffix, len(prefix), len(prefix) + len(body)

    # -- what is written

    def single(self, t: Table, h: Hand, key_pause: bool) -> None:
        """One hand in pieces: whole, a few, or many (slow); with ``key_pause``, cut once inside the hand for a long pause."""
        last = t.hands + 1 >= t.life
        data, a, b = self.hand_bytes(t, h, last)
        r = self.rng.random()
        pieces, weight = (1, 1.0) if r < 0.55 else (self.rng.randint(2, 4), 1.0) if r < 0.8 else (self.rng.randint(5, 30), 4.0)
        cuts = set(self._cuts(data, pieces - 1))
        key = None
        if key_pause:
            key = self._cut_inside(data, a, b)
            cuts.add(key)
        rec = Written(h, t.path.name, t.size + a, t.size + b, "pieces" if len(cuts) else "whole")
        edges = [0, *sorted(cuts), len(data)]
        for k in range(len(edges) - 1):
            end = edges[k + 1]
            inside = a < end < b
            self._emit(t.path, data[edges[k]:end], int(end == len(data)), _Boundary(h.hand_id if inside else None, weight if inside else 1.0),
                       close=last and end == len(data))
            if end == key:
                self.key.append(len(self.plan.steps) - 1)
        self.plan.written.append(rec)
        t.size += len(data)
        t.hands += 1
        if last:
            self.tables.remove(t)

    def batch(self, t: Table, hands: Sequence[Hand], how: str) -> None:
        """Several hands in one write (a client catching up, a burst)."""
        parts = []
        for k, h in enumerate(hands):
            last = t.hands + 1 >= t.life and k == len(hands) - 1
            data, a, b = self.hand_bytes(t, h, last)
            self.plan.written.append(Written(h, t.path.name, t.size + a, t.size + b, how))
            parts.append(data)
            t.size += len(data)
            t.hands += 1
        closing = t.hands >= t.life
        self._emit(t.path, b"".join(parts), len(hands), _Boundary(None, 1.0), close=closing)
        if closing and t in self.tables:
            self.tables.remove(t)

    def renamed(self, hands: Sequence[Hand], k: int) -> None:
        """A file written under a hidden name in the folder (or outside it), in pieces, then renamed in; half of them grow on."""
        outside = self.rng.random() < 0.5
        final = f"{self.name}-r{k:02d}.txt"
        tmp = (self.staging / final) if outside else (self.watch / f".{final}.part")
        t = self.new_table(final, life=10**9)
        t.path = tmp
        for h in hands:
            data, a, b = self.hand_bytes(t, h, False)
            self.plan.written.append(Written(h, final, t.size + a, t.size + b, "renamed"))
            for piece in self._split(data, self.rng.randint(1, 6)):
                self._emit(tmp, piece, 0, _Boundary(None, 1.0))
            t.size += len(data)
            t.hands += 1
        self.plan.steps.append(Rename(tmp, self.watch / final))
        self.bounds.append(_Boundary(None, 1.0))
        self.plan.files.discard(tmp.name)
        self.plan.files.add(final)
        self.plan.count("renamed")
        t.path = self.watch / final
        grows = self.rng.random() < 0.5
        if grows:
            t.life = t.hands + self.rng.randint(5, 100)
            self.tables.append(t)
        self.plan.steps.append(Write(t.path, b"", len(hands), close=not grows))  # its hands count once the file is in
        self.bounds.append(None)

    def gz(self, hands: Sequence[Hand], k: int, how: str = "gz") -> None:
        """A ``.gz`` file dropped whole: one write into the folder, or written aside and renamed in."""
        final = f"{self.name}-z{k:02d}.txt.gz"
        content = b""
        for h in hands:
            body = h.text.encode("utf-8")
            self.plan.written.append(Written(h, final, len(content), len(content) + len(body), how))
            content += body + b"\n"
        data = gzip.compress(content, mtime=0)
        self.plan.count("gz")
        self.plan.files.add(final)
        if self.rng.random() < 0.5:
            self._emit(self.watch / final, data, len(hands), _Boundary(None, 1.0), close=True)
        else:
            tmp = self.staging / final
            self.plan.steps += [Write(tmp, data, 0, close=True), Rename(tmp, self.watch / final), Write(self.watch / final, b"", len(hands), close=True)]
            self.bounds += [None, _Boundary(None, 1.0), None]

    # -- cuts and pauses

    def _split(self, data: bytes, pieces: int) -> list[bytes]:
        edges = [0, *sorted(set(self._cuts(data, pieces - 1))), len(data)]
        return [data[edges[k]:edges[k + 1]] for k in range(len(edges) - 1)]

    def _cuts(self, data: bytes, n: int) -> list[int]:
        """``n`` cut points in ``data`` (anywhere: a piece may end between hands); a third of them inside a multi-byte character."""
        out = []
        inner: list[int] | None = None
        for _ in range(n):
            if self.rng.random() < 0.33:
                if inner is None:
                    inner = [m.start() for m in _CONTINUATION.finditer(data)]
                if inner:
                    out.append(self.rng.choice(inner))
                    continue
            out.append(self.rng.randrange(1, len(data)))
        return out

    def _cut_inside(self, data: bytes, a: int, b: int) -> int:
        """A cut strictly inside the hand's own text: inside a multi-byte character (when it has one) half of the time."""
        if self.rng.random() < 0.5:
            inner = [m.start() + a for m in _CONTINUATION.finditer(data, a + 1, b - 1)]
            if inner:
                return self.rng.choice(inner)
        return self.rng.randrange(a + 1, b - 1)

    def pauses(self, speed: float) -> list[Step]:
        """The steps with their pauses: ~30 % of ``seconds`` in long mid-hand pauses, ~35 % in pauses up to ``max_pause``
        anywhere, ~35 % (times the writer's ``speed``) in small delays between pieces; the writer takes about ``seconds``."""
        rng, m = self.rng, self.max_pause
        low = min(1.2, m)
        places = [k for k, b in enumerate(self.bounds) if b is not None]
        if m > SETTLE:
            for k in self.key:
                bound = self.bounds[k]
                assert bound is not None
                bound.pause = rng.uniform(low, m)
        if m > 0 and places:
            for _ in range(round(0.35 * self.seconds / (m / 2))):
                bound = self.bounds[rng.choice(places)]
                assert bound is not None
                bound.pause = max(bound.pause, rng.uniform(0, m))
        total = sum(b.weight for b in self.bounds if b is not None) or 1.0
        scale = 0.35 * self.seconds * speed / total
        for b in self.bounds:
            if b is not None and b.pause == 0.0:
                b.pause = min(m, rng.expovariate(1.0) * b.weight * scale)
        steps: list[Step] = []
        for step, b in zip(self.plan.steps, self.bounds):
            steps.append(step)
            if b is not None and b.pause > 0:
                steps.append(Pause(b.pause, b.hand))
        by_id = {w.hand.hand_id: w for w in self.plan.written}
        for step in steps:
            if isinstance(step, Pause) and step.hand is not None and step.seconds > SETTLE:
                by_id[step.hand].pauses.append(step.seconds)
        return steps


def plan_writer(w: int, hands: Sequence[Hand], seed: int, watch: Path, staging: Path, seconds: float, max_pause: float,
                gz_files: int, renamed_files: int) -> Plan:
    """Writer ``w``'s plan: its tables, a quiet file, its renamed and ``.gz`` files, every hand once."""
    rng = random.Random(f"soak:{seed}:writer:{w}")
    p = Planner(f"w{w}", rng, watch, staging, seconds, max_pause)
    n = len(hands)
    if n == 0:  # more writers than hands
        return p.plan
    budget_mid = max(1, round(0.30 * seconds / ((min(1.2, max_pause) + max_pause) / 2))) if max_pause > SETTLE else 0
    quiet = p.new_table(f"w{w}-quiet.txt", life=10**9)  # a few hands after long quiet stretches
    quiet_at = sorted({min(n - 1, max(0, int(n * (f + rng.uniform(-0.05, 0.05))))) for f in (0.15, 0.4, 0.65, 0.9)})  # a quarter apart
    special: dict[int, str] = {}
    for what, count in (("gz", gz_files), ("renamed", renamed_files)):
        for _ in range(count):
            special.setdefault(rng.randrange(n), what)
    for k in quiet_at:
        special[k] = "quiet"
    mid_hands = set(rng.sample(range(n), min(n, budget_mid)))
    p.tables = [p.new_table() for _ in range(rng.randint(1, 3))]
    i = gzs = renames = 0
    while i < n:
        while len(p.tables) < 1 or (len(p.tables) < 3 and rng.random() < 0.01):
            p.tables.append(p.new_table())
        kind = next((special.pop(k) for k in sorted(special) if k <= i), None)
        if kind == "quiet":
            take = hands[i: i + rng.randint(1, 3)]
            p.batch(quiet, take, "quiet file")
        elif kind == "gz":
            gzs += 1
            take = hands[i: i + rng.randint(5, 60)]
            p.gz(take, gzs)
        elif kind == "renamed":
            renames += 1
            take = hands[i: i + rng.randint(3, 40)]
            p.renamed(take, renames)
        elif rng.random() < 0.06:
            t = rng.choice(p.tables)
            take = hands[i: i + min(rng.randint(2, 25), max(1, t.life - t.hands))]
            p.batch(t, take, "batch")
        else:
            take = hands[i: i + 1]
            p.single(rng.choice(p.tables), take[0], i in mid_hands)
        i += len(take)
    for t in list(p.tables):  # the clients close their files: their last hand may lack its line end
        if t.hands == 0:
            p.tables.remove(t)
            continue
        p.plan.steps.append(Write(t.path, b"", 0, close=True))
        p.bounds.append(None)
    p.plan.steps.append(Write(quiet.path, b"", 0, close=True))
    p.bounds.append(None)
    p.plan.steps = p.pauses(speed=rng.uniform(0.5, 1.5))
    return p.plan


@dataclass(frozen=True, slots=True)
class Event:
    """A moment of the chaos schedule: a server kill, or a burst (with a kill of the worker reading it, or none)."""

    at: float  # seconds after the writers start
    kind: str  # "server", "worker", "burst"
    delay: float  # server: seconds before it is started again; worker: seconds after a worker appears before the kill
    burst: Plan | None = None


def plan_chaos(seed: int, seconds: float, kills: int, worker_kills: int, bursts: int, hands: Sequence[Hand], watch: Path,
               staging: Path) -> tuple[list[Event], int]:
    """The kills and bursts: when, and the bursts' bytes (a new file, an append to a growing file, a ``.gz``); and the hands they took."""
    rng = random.Random(f"soak:{seed}:chaos")
    events: list[Event] = []
    at = sorted(rng.uniform(0.05, 0.9) * seconds for _ in range(kills))
    events += [Event(t, "server", rng.uniform(0.3, 3.0)) for t in at]
    kinds = ["worker"] * worker_kills + ["burst"] * bursts
    rng.shuffle(kinds)
    at = sorted(rng.uniform(0.05, 0.95) * seconds for _ in kinds)
    p = Planner("burst", rng, watch, staging, seconds, 0.0)
    stream = p.new_table("burst-stream.txt", life=10**9)  # grows by big appends: read on from where it stopped, by a worker
    stream.before = False
    i = 0
    for k, (t, kind) in enumerate(zip(at, kinds)):
        target = rng.randint(*BURST_BYTES)
        size, j = 0, i
        while size < target and j < len(hands):
            size += len(hands[j].text.encode("utf-8")) + 1
            j += 1
        take = hands[i:j]
        i = j
        sub = Planner("burst", rng, watch, staging, seconds, 0.0)
        shape = rng.choice(("new", "append", "gz"))
        if shape == "gz":
            sub.gz(take, k + 1, "burst (gz)")
        elif shape == "append":
            sub.batch(stream, take, "burst (append)")
        else:
            sub.batch(sub.new_table(f"burst-{k + 1:02d}.txt", life=len(take)), take, "burst (new file)")
        sub.plan.count("burst")
        events.append(Event(t, kind, rng.uniform(0.0, 1.0), sub.plan))
    events.sort(key=lambda e: e.at)
    return events, i


# ---------------------------------------------------------------- the server


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from ``/proc``: the kernel here has no ``/proc/PID/task/TID/children``)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _is_worker(pid: int) -> bool:
    """A live import worker: a ``spawn`` child of the server (not multiprocessing's resource tracker), not a zombie."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return b"spawn_main" in cmd and b"resource_tracker" not in cmd and state not in (b"Z", b"X")


class Server:
    """``hhtool serve --db DB --watch DIR --port 0``, started, killed and started again; its address from ``DB.serve``."""

    def __init__(self, db: Path, watch: Path, logs: Path, workers: int | None) -> None:
        self.db, self.watch, self.logs, self.workers_arg = db, watch, logs, workers
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.starts = 0
        self.workers_seen: set[int] = set()

    def start(self, timeout: float = 180.0, abort: threading.Event | None = None) -> float:
        """Start it and wait until ``/api/progress`` answers; the seconds that took (``abort``: the soak is stopping, so is it)."""
        self.starts += 1
        extra = ["--workers", str(self.workers_arg)] if self.workers_arg is not None else []
        log = open(self.logs / f"server-{self.starts:02d}.log", "wb")
        began = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "hhtool.cli", "serve", "--db", str(self.db), "--watch", str(self.watch), "--port", "0", *extra],
                                     cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        marker = self.db.with_name(self.db.name + ".serve")
        while time.monotonic() - began < timeout:
            if abort is not None and abort.is_set():
                self.stop()
                raise RuntimeError("the soak is stopping")
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server ended with {self.proc.returncode} (log: {self.logs / f'server-{self.starts:02d}.log'})")
            try:
                doc = json.loads(marker.read_text(encoding="utf-8"))
                if doc.get("pid") == self.proc.pid:
                    urllib.request.urlopen(str(doc["url"]) + "api/progress", timeout=30).read()
                    self.url = str(doc["url"])
                    return time.monotonic() - began
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {timeout:.0f} s")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 60.0) -> int | None:
        """Ctrl-C, as a person stops it; its exit code (None: it had to be killed)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def progress(self) -> dict[str, Any] | None:
        """The live import's status (``/api/progress``), or None when the server does not answer."""
        try:
            with urllib.request.urlopen(self.url + "api/progress", timeout=30) as r:
                return dict(json.loads(r.read())["import"])
        except (OSError, ValueError, KeyError):
            return None

    def workers(self) -> list[int]:
        """The import's worker processes running now (noted in ``workers_seen`` for the check that none outlives its server)."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        found = [p for p in _children(self.proc.pid) if _is_worker(p)]
        self.workers_seen.update(found)
        return found


# ---------------------------------------------------------------- running it


@dataclass(slots=True)
class Tally:
    """What happened while the soak ran (threads add to it under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    hands_written: int = 0
    mid_pauses: list[float] = field(default_factory=list)  # measured, of the planned mid-hand pauses over the settle
    server_kills: int = 0
    crashes: int = 0  # servers found ended when a kill came
    worker_attempts: int = 0
    worker_hits: int = 0
    restarts: list[float] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    failure: str | None = None  # the server could not be started again: the soak stops
    killed: set[str] = field(default_factory=set)  # the files of the bursts whose worker was killed
    stall: tuple[float, float, str] = (0.0, 0.0, "")  # the longest busy stretch with nothing stored: seconds, from when, the status


def run_steps(steps: Sequence[Step], tally: Tally, abort: threading.Event, pauses: bool = True) -> None:
    """Carry out a plan: append, pause (unless ``pauses`` is False), rename; a file stays open between its pieces, as a client keeps it."""
    fds: dict[Path, int] = {}
    try:
        for step in steps:
            if abort.is_set():
                return
            if isinstance(step, Write):
                fd = fds.get(step.path)
                if fd is None and (step.data or not step.close):
                    fd = fds[step.path] = os.open(step.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                view = memoryview(step.data)
                while view:
                    assert fd is not None
                    view = view[os.write(fd, view):]
                if step.close and fd is not None:
                    os.close(fds.pop(step.path))
                if step.hands:
                    with tally.lock:
                        tally.hands_written += step.hands
            elif isinstance(step, Pause):
                if not pauses:
                    continue
                began = time.monotonic()
                abort.wait(step.seconds)
                if step.hand is not None and step.seconds > SETTLE:
                    with tally.lock:
                        tally.mid_pauses.append(time.monotonic() - began)
            else:
                fd = fds.pop(step.src, None)
                if fd is not None:
                    os.close(fd)
                os.rename(step.src, step.dst)
    finally:
        for fd in fds.values():
            os.close(fd)


def run_chaos(events: Sequence[Event], server: Server, tally: Tally, abort: threading.Event, t0: float, say: Callable[[str], None]) -> None:
    """The kills and bursts in their order, each at its moment or once the one before is done (a restart takes seconds)."""
    for ev in events:
        if abort.wait(max(0.0, t0 + ev.at - time.monotonic())):
            return
        now = time.monotonic() - t0
        if ev.kind == "server":
            pid = server.pid
            if not server.running():  # it ended without being killed: a finding of its own
                with tally.lock:
                    tally.crashes += 1
                say(f"{now:7.1f} s  server {pid} had ended by itself (exit {server.proc.returncode if server.proc else '?'})")
            busy = len(server.workers())
            server.kill9()
            with tally.lock:
                tally.server_kills += 1
            abort.wait(ev.delay)
            try:
                up = server.start(abort=abort)
            except RuntimeError as e:
                with tally.lock:
                    tally.failure = f"restart after kill -9: {e}"
                say(f"{now:7.1f} s  server {pid} killed; could not start again: {e}")
                abort.set()
                return
            with tally.lock:
                tally.restarts.append(up)
            say(f"{now:7.1f} s  kill -9 server {pid}" + (f" ({busy} worker{'s' * (busy != 1)} running)" if busy else "")
                + f"; up again {ev.delay + up:.1f} s later")
            continue
        assert ev.burst is not None
        run_steps(ev.burst.steps, tally, abort)
        size = sum(len(x.hand.text) + 1 for x in ev.burst.written)  # of a .gz: its content
        if ev.kind == "burst":
            say(f"{now:7.1f} s  burst of {size / 1e6:.1f} MB ({len(ev.burst.written)} hands), no kill")
            continue
        with tally.lock:
            tally.worker_attempts += 1
        deadline = time.monotonic() + 120
        seen: list[int] = []
        while not seen and time.monotonic() < deadline and not abort.is_set():
            seen = server.workers()
            if not seen:
                time.sleep(0.05)
        if not seen:
            doc = server.progress()
            say(f"{now:7.1f} s  burst of {size / 1e6:.1f} MB: no worker appeared in 120 s to kill")
            say(f"           the import: {doc['text'] if doc else 'no answer'}")
            continue
        abort.wait(ev.delay)
        alive = [p for p in server.workers() if p in seen] or server.workers()
        hit = False
        if alive:
            try:
                os.kill(alive[0], signal.SIGKILL)
                hit = True
            except ProcessLookupError:
                pass
        with tally.lock:
            tally.worker_hits += hit
            if hit:
                tally.killed |= {x.file for x in ev.burst.written}
        say(f"{now:7.1f} s  burst of {size / 1e6:.1f} MB; kill -9 worker " + (f"{alive[0]} {ev.delay:.1f} s after it appeared" if hit else
                                                                              f"missed: it ended within {ev.delay:.1f} s"))


def sample_workers(server: Server, stop: threading.Event) -> None:
    """Note every worker process the server starts (for the check that none outlives a killed server)."""
    while not stop.wait(0.25):
        server.workers()


def watch_progress(server: Server, stop: threading.Event, tally: Tally, t0: float) -> None:
    """The longest stretch in which the live import was busy and stored nothing: a stall a later restart would hide.

    Six writers finish a hand every few tenths of a second, so a busy import
    (``active``: a file read, pending or waiting) that stores, fails and
    passes by nothing for long is stuck; the database's check cannot see
    it when a kill of the server comes after and the next server reads
    everything again.  Counted per server (its counts start at 0).
    """
    key: tuple[Any, ...] | None = None
    since = time.monotonic()
    while not stop.wait(1.0):
        doc = server.progress()
        now = time.monotonic()
        new = None if doc is None else (server.pid, doc["hands_stored"], doc["failed"], doc["duplicates"], doc["hands_read"])
        if doc is None or not doc["active"] or new != key:
            key, since = new, now
            continue
        if now - since > tally.stall[0]:
            with tally.lock:
                tally.stall = (now - since, since - t0, str(doc.get("text", "")))


def drain(server: Server, timeout: float, quiet: float, more: float) -> tuple[dict[str, Any] | None, str]:
    """Wait until the live import is idle (not active, the same count of hands) for ``quiet`` s, then ``more`` s, idle again.

    An import that never goes idle (or a server that stops answering) ends
    the wait at ``timeout``: the database is checked anyway, and the
    summary says so.
    """
    began = time.monotonic()
    last: tuple[Any, ...] | None = None
    since = time.monotonic()
    doc: dict[str, Any] | None = None
    checked_more = False
    while time.monotonic() - began < timeout:
        if server.proc is None or server.proc.poll() is not None:
            return doc, "the server ended by itself"
        doc = server.progress()
        state = None if doc is None else (doc["active"], doc["hands_stored"], doc["failed"], doc["duplicates"], doc["running"])
        if state != last or doc is None or (doc["active"] and doc["running"]):
            last, since = state, time.monotonic()
        elif time.monotonic() - since >= quiet:
            if checked_more or more <= 0:
                return doc, "idle" if doc["running"] else "stopped (its thread ended)"
            time.sleep(more)
            checked_more, last = True, None
            continue
        time.sleep(0.5)
    return doc, f"not idle after {timeout:.0f} s"


# ---------------------------------------------------------------- the check


@dataclass(slots=True)
class Check:
    """The database against the hands written."""

    stored: int = 0
    distinct: int = 0
    missing: list[Written] = field(default_factory=list)
    duplicated: list[tuple[str, str, int]] = field(default_factory=list)
    unexpected: list[tuple[str, str]] = field(default_factory=list)
    differs: list[tuple[Written, str]] = field(default_factory=list)  # with the text stored
    failed: list[tuple[Any, ...]] = field(default_factory=list)
    failed_ours: int = 0
    conflicts: int = 0


def check_database(db: Path, written: Sequence[Written]) -> Check:
    """Read the database (read-only) and compare: each hand written once, with its text; no failed row, no conflict."""
    import duckdb

    c = Check()
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT site, hand_id, count(*), any_value(raw_text) FROM hands GROUP BY site, hand_id").fetchall()
        total = con.execute("SELECT count(*) FROM hands").fetchone()
        c.stored = int(total[0]) if total else 0
        c.distinct = len(rows)
        stored = {(r[0], r[1]): (int(r[2]), str(r[3])) for r in rows}
        c.failed = con.execute("SELECT hand_id, kind, message, file, first_line FROM failed ORDER BY imported_at, first_line").fetchall()
        got = con.execute("SELECT count(*) FROM conflicts").fetchone()
        c.conflicts = int(got[0]) if got else 0
    finally:
        con.close()
    keys = set()
    for w in written:
        key = (w.hand.site, w.hand.hand_id)
        keys.add(key)
        found = stored.get(key)
        if found is None:
            c.missing.append(w)
        elif found[1].replace("\r\n", "\n") != w.hand.text:
            c.differs.append((w, found[1]))
    c.duplicated = [(s, h, n) for (s, h), (n, _) in stored.items() if n > 1]
    c.unexpected = [k for k in stored if k not in keys]
    ids = {w.hand.hand_id for w in written}
    c.failed_ours = sum(1 for r in c.failed if r[0] in ids)
    return c


def leftovers(server: Server) -> list[int]:
    """Worker processes seen during the soak that are still running: a worker must end when its server is killed."""
    return sorted(p for p in server.workers_seen if _is_worker(p))


def dry_run(plans: Sequence[Plan], events: Sequence[Event], db: Path, watch: Path, work: Path, written: Sequence[Written], n: int,
            keep: bool) -> int:
    """The plans written at once and imported by ``hhtool import``: every hand must be there, so that what the soak writes
    is known to be whole and valid, and a hand the soak finds missing is the live import's."""
    tally, abort = Tally(), threading.Event()
    for p in [*plans, *(e.burst for e in events if e.burst is not None)]:
        run_steps(p.steps, tally, abort, pauses=False)
    r = subprocess.run([sys.executable, "-m", "hhtool.cli", "import", str(watch), "--db", str(db)], cwd=ROOT, capture_output=True, text=True)
    c = check_database(db, written)
    ok = r.returncode == 0 and tally.hands_written == n and c.stored == n and not (c.missing or c.differs or c.failed or c.conflicts or c.unexpected)
    print(f"dry run: {tally.hands_written:,} hands written, `hhtool import` exit {r.returncode}: {c.stored:,} stored, {len(c.missing)} missing,"
          f" {len(c.differs)} differ, {len(c.failed)} failed, {c.conflicts} conflicts: {'OK' if ok else 'MISMATCH'}")
    for x in c.missing[:5]:
        print(f"  missing {x.hand.hand_id} {x.file} {x.start}-{x.end} {x.how}")
    for row in c.failed[:5]:
        print(f"  failed {row[0]} {row[1]}: {row[2]}")
    if not ok:
        print(r.stdout[-2000:] + r.stderr[-2000:])
    if ok and not keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept: {work}")
    return 0 if ok else 1


# ---------------------------------------------------------------- main


def _fit(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000, help="hands written in all (default 20,000)")
    ap.add_argument("--writers", type=int, default=6, help="writer threads, each with files of its own")
    ap.add_argument("--seed", type=int, default=1, help="draws the hands and the whole schedule")
    ap.add_argument("--max-pause", type=float, default=5.0, help="longest pause between two pieces, seconds (mid-hand: 1.2 to this)")
    ap.add_argument("--seconds", type=float, default=None, help="about how long the writers write (default: 0.03 s a hand, 30 s at least)")
    ap.add_argument("--kills", type=int, default=None, help="kill -9 of the server, each followed by a restart (default: one a 100 s, 6 at most)")
    ap.add_argument("--worker-kills", type=int, default=None,
                    help=f"kill -9 of an import worker, each after a burst of {BURST_BYTES[0] // 1000}+ KB (default 6, fewer if --hands is small)")
    ap.add_argument("--bursts", type=int, default=None, help="bursts with no kill, read by a worker to its end (default 2, or what is left)")
    ap.add_argument("--server-workers", type=int, default=None, metavar="N", help="hhtool serve --workers (default: its own, 1)")
    ap.add_argument("--drain", type=float, default=600.0, help="at most this long for the import to go idle at the end, seconds")
    ap.add_argument("--dir", type=Path, default=None, help="work here (kept) instead of a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (it is kept anyway on a mismatch)")
    ap.add_argument("--quiet", action="store_true", help="the summary only, no line per kill")
    ap.add_argument("--dry-run", action="store_true",
                    help="the soak's own check: write every plan at once, no pause, no server, then `hhtool import` the folder and compare")
    args = ap.parse_args(argv)
    # Ctrl-C stops the soak (and the server gets it from us, never ignored): a shell starts a background job with
    # SIGINT ignored, which Python and the children it starts would otherwise keep
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("hands", "writers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    for name in ("kills", "worker_kills", "bursts"):
        if getattr(args, name) is not None and getattr(args, name) < 0:
            ap.error(f"--{name.replace('_', '-')} must be 0 or more")
    if args.max_pause < 0 or (args.seconds is not None and args.seconds <= 0):
        ap.error("--max-pause must be 0 or more and --seconds more than 0")
    if args.seconds is None:
        args.seconds = max(30.0, 0.03 * args.hands)
    if args.kills is None:
        args.kills = max(1, min(6, round(args.seconds / 100)))
    fit = int(0.45 * args.hands / BURST_HANDS)  # the bursts take at most about 45 % of the hands by default
    if args.worker_kills is None:
        args.worker_kills = min(6, fit)
    if args.bursts is None:
        args.bursts = max(0, min(2, fit - args.worker_kills))
    if (args.worker_kills + args.bursts) * BURST_HANDS > 0.6 * args.hands:
        ap.error(f"--hands {args.hands:,} is too few for {args.worker_kills + args.bursts} bursts (each {BURST_BYTES[0] // 1000:,} KB or more,"
                 f" about {BURST_HANDS} hands): give more --hands, or fewer --worker-kills/--bursts")
    if args.dir is not None and args.dir.exists() and any(args.dir.iterdir()):
        ap.error(f"--dir {args.dir}: not empty")

    say: Callable[[str], None] = (lambda line: None) if args.quiet else (lambda line: print(_fit(line), flush=True))
    work = args.dir or Path(tempfile.mkdtemp(prefix="hhtool-soak-"))
    watch, staging, logs = work / "watch", work / "staging", work / "logs"
    for d in (watch, staging, logs):
        d.mkdir(parents=True, exist_ok=True)
    db = work / "hands.duckdb"

    began = time.monotonic()
    hands = make_hands(args.seed, args.hands)
    check_hands(hands)
    events, taken = plan_chaos(args.seed, args.seconds, args.kills, args.worker_kills, args.bursts, hands, watch, staging)
    rest = hands[taken:]
    share = [len(rest) // args.writers + (w < len(rest) % args.writers) for w in range(args.writers)]
    gz_total, renamed_total = max(2, args.hands // 8000), max(3, args.hands // 3000)
    plans: list[Plan] = []
    at = 0
    for w in range(args.writers):
        plans.append(plan_writer(w, rest[at: at + share[w]], args.seed, watch, staging, args.seconds, args.max_pause,
                                 gz_total // args.writers + (w < gz_total % args.writers),
                                 renamed_total // args.writers + (w < renamed_total % args.writers)))
        at += share[w]
    written = [x for p in plans for x in p.written] + [x for e in events if e.burst is not None for x in e.burst.written]
    assert len(written) == args.hands and len({(x.hand.site, x.hand.hand_id) for x in written}) == args.hands
    kinds: dict[str, int] = {}
    files: set[str] = set()
    for p in [*plans, *(e.burst for e in events if e.burst is not None)]:
        files |= p.files
        for k, v in p.kinds.items():
            kinds[k] = kinds.get(k, 0) + v
    planned_mid = sum(len(x.pauses) for x in written)
    slept = [sum(s.seconds for s in p.steps if isinstance(s, Pause)) for p in plans]
    say(f"soak: {args.hands:,} hands, {args.writers} writers, {len(files)} files, seed {args.seed}")
    say(f"  {planned_mid} mid-hand pauses over {SETTLE:g} s planned; each writer pauses {min(slept):.0f} to {max(slept):.0f} s in all")
    say(f"  files: {kinds.get('crlf', 0)} \\r\\n, {kinds.get('bom', 0)} BOM, {kinds.get('blank before', 0)} blank line before hands,"
        f" {kinds.get('no final newline', 0)} no final line end")
    say(f"  in {work} (made in {time.monotonic() - began:.1f} s)")

    if args.dry_run:
        return dry_run(plans, events, db, watch, work, written, args.hands, keep=args.keep or args.dir is not None)

    server = Server(db, watch, logs, args.server_workers)
    tally = Tally()
    abort = threading.Event()
    try:
        up = server.start()
    except RuntimeError as e:
        print(f"soak: the server did not start: {e}", file=sys.stderr)
        return 1
    say(f"    0.0 s  server {server.pid} at {server.url} (up in {up:.1f} s)")
    sampling = threading.Event()
    t0 = time.monotonic()
    for watcher in (sample_workers, watch_progress):
        threading.Thread(target=watcher, args=(server, sampling) if watcher is sample_workers else (server, sampling, tally, t0), daemon=True).start()
    threads = [threading.Thread(target=run_steps, args=(p.steps, tally, abort), name=f"writer-{w}") for w, p in enumerate(plans)]
    chaos = threading.Thread(target=run_chaos, args=(events, server, tally, abort, t0, say), name="chaos")
    status: dict[str, Any] | None = None
    ended = False
    how = "interrupted"
    code: int | None = None
    try:
        for th in [*threads, chaos]:
            th.start()
        for th in [*threads, chaos]:
            while th.is_alive():  # a join with a timeout: Ctrl-C reaches this thread meanwhile
                th.join(0.5)
        writing = time.monotonic() - t0
        say(f"{writing:7.1f} s  writers done ({tally.hands_written:,} hands); waiting for the import to go idle")
        if tally.failure is None:
            status, how = drain(server, args.drain, quiet=5.0, more=5.0)
        settled = time.monotonic() - t0 - writing
        sampling.set()
        ended = not server.running()
        code = server.stop() if not ended else None
    except BaseException as e:  # Ctrl-C, or a bug of the soak's: no writer, no server left behind
        abort.set()
        sampling.set()
        for th in [*threads, chaos]:
            if th.is_alive():
                th.join(10)
        if server.running():
            server.stop()
        if isinstance(e, KeyboardInterrupt):
            print(f"soak: interrupted; the files and database are in {work}", file=sys.stderr)
            return 130
        raise
    time.sleep(1.0)  # workers of the last server see it gone within half a second
    left = leftovers(server)
    c = check_database(db, written)
    ok = (not c.missing and not c.duplicated and not c.unexpected and not c.differs and not c.failed and not c.conflicts
          and c.stored == args.hands and tally.failure is None and not left and tally.hands_written == args.hands and code == 0
          and not tally.crashes)

    longest = max(tally.mid_pauses, default=0.0)
    lines = [
        f"soak of the live import: seed {args.seed}, {args.writers} writers, pauses up to {args.max_pause:g} s",
        f"  hands written     {tally.hands_written:>7,}   in {len(files)} files ({kinds.get('gz', 0)} .gz, {kinds.get('renamed', 0)} renamed,"
        f" {kinds.get('burst', 0)} bursts)",
        f"  hands stored      {c.stored:>7,}   ({c.distinct:,} distinct)",
        f"  missing           {len(c.missing):>7,}",
        f"  duplicated        {len(c.duplicated):>7,}",
        f"  text differs      {len(c.differs):>7,}",
        f"  not written       {len(c.unexpected):>7,}",
        f"  failed rows       {len(c.failed):>7,}   ({c.failed_ours:,} of hands written, all of them complete)",
        f"  conflicts         {c.conflicts:>7,}",
        f"  server kills      {tally.server_kills:>7,}   (restarts {max(0, server.starts - 1)}"
        + (f", up in {max(tally.restarts):.1f} s at most" if tally.restarts else "")
        + (f"; {tally.crashes} ended by itself" if tally.crashes else "") + ")",
        f"  worker kills      {tally.worker_hits:>3}/{tally.worker_attempts:<3}   hit/attempted; {len(server.workers_seen)} workers seen,"
        f" {len(left)} left running",
        f"  pauses mid-hand   {len(tally.mid_pauses):>7,}   over {SETTLE:g} s (longest {longest:.2f} s)",
        f"  import stalled    {tally.stall[0]:>7.0f} s at most busy with nothing stored"
        + (f" (from {tally.stall[1]:.0f} s)" if tally.stall[0] else ""),
        f"  run time          {time.monotonic() - began:>7.0f} s (writing {writing:.0f} s, then "
        + (f"idle in {settled:.0f} s)" if how == "idle" else f"{how})"),
        f"  server stopped    " + (f"it had ended by itself (exit {server.proc.returncode if server.proc else '?'})" if ended else
                                 f"by Ctrl-C, exit {code}" if code is not None else "not by Ctrl-C within 60 s: killed"),
    ]
    if tally.stall[0] >= 15:  # the writers finish hands every few tenths of a second: this long is a stuck import
        lines.append(f"  the import, {tally.stall[1] + tally.stall[0]:.0f} s in: {tally.stall[2]}")
    if tally.failure:
        lines.append(f"  soak stopped: {tally.failure}")
    lines.append("result: " + ("OK, every hand stored once with its text" if ok else "MISMATCH"))
    if not ok:
        if c.missing:
            lines.append(f"missing (first {min(10, len(c.missing))} of {len(c.missing):,}): hand, file, bytes, how, mid-hand pauses")
            for x in c.missing[:10]:
                pauses = ",".join(f"{p:.1f}" for p in x.pauses) or "-"
                lines.append(f"  {x.hand.hand_id} {x.file} {x.start}-{x.end} {x.how} {pauses}")
            by_how: dict[str, int] = {}
            for x in c.missing:
                key = x.how + (" + mid-hand pause" if x.pauses else "") + (", its worker killed" if x.file in tally.killed else "")
                by_how[key] = by_how.get(key, 0) + 1
            lines.append("missing by how they were written:")
            lines += [f"  {v:>7,} {k}" for k, v in sorted(by_how.items(), key=lambda kv: -kv[1])]
        if c.failed:
            lines.append(f"failed rows (first {min(5, len(c.failed))} of {len(c.failed):,}): hand, kind, message")
            kinds_failed: dict[str, int] = {}
            for r in c.failed:
                kinds_failed[str(r[1])] = kinds_failed.get(str(r[1]), 0) + 1
            for r in c.failed[:5]:
                lines.append(f"  {r[0]} {r[1]}: {r[2]}")
            lines.append("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds_failed.items())))
        for x, got in c.differs[:3]:
            lines.append(f"text differs: {x.hand.hand_id} {x.file} {x.start}-{x.end}, first line that differs:")
            pairs = list(zip(x.hand.text.split("\n"), got.split("\n"))) + [(x.hand.text, got)]
            want, have = next((a, b) for a, b in pairs if a != b)
            lines += [f"  written {want!r}", f"  stored  {have!r}"]
        for s, h, n in c.duplicated[:5]:
            lines.append(f"duplicated: {s} {h} x{n}")
        for s, h in c.unexpected[:5]:
            lines.append(f"not written: {s} {h}")
        if left:
            lines.append(f"workers left running: {', '.join(map(str, left[:8]))}")
        if status is not None and status.get("errors"):
            lines.append(f"the import's last problems ({len(status['errors'])}):")
            lines += [f"  {e}" for e in status["errors"][-3:]]
        lines.append(f"kept for a look: {work} (watch/, hands.duckdb, logs/)")
    print("\n".join(_fit(line) for line in lines), flush=True)
    if ok and args.dir is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
