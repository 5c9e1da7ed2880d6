"""The long fuzz run: the suite's targets on mutated histories for minutes, every distinct crash listed.

Run: ``python bench/fuzz.py [--minutes 20] [--examples N] [--seed 1] [--hostility all|suite] [--out DIR]``.
Never a test (``tests/test_fuzz.py`` runs the same targets for seconds), nor part of ``make bench``.

One process.  Each input (``tests/fuzzgen.py``: a sample, simulated or
generated history after one to five mutations, drawn by hypothesis from
the seed) goes through every target -- the reader, the parse and writer,
the replay, the audit, the import's worker -- and whatever a target's
check raises is a crash: its signature is the target, the exception type
and the frame of hhtool that raised it (for a failed check, the check's
line).  An input that runs longer than ``--timeout`` seconds in a target
is a crash too.  For each distinct crash the run keeps the smallest
input, shrinks it (lines, then bytes, while the same signature recurs)
and, with ``--out``, writes it and its traceback there.

Prints how many inputs ran per target and in how long, then every
distinct crash; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings  # noqa: E402

from tests import fuzzgen  # noqa: E402

_PACKAGE = str(ROOT / "hhtool")
_CHECKS = str(ROOT / "tests" / "fuzzgen.py")


class _Stop(BaseException):
    """The run's time is up: ends hypothesis's loop."""


class _Timeout(Exception):
    """One input ran longer than ``--timeout`` seconds in one target."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout("ran longer than the per-input timeout")


def signature(target: str, e: BaseException) -> str:
    """``Type at file:line (function)`` of the innermost frame of hhtool; for a failed check, ``target: `` and the check's line."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if f.filename.startswith(_PACKAGE)]
    if isinstance(e, AssertionError) or not ours:
        ours = [f for f in frames if f.filename == _CHECKS] or frames[-1:]
    where = f"{Path(ours[-1].filename).relative_to(ROOT)}:{ours[-1].lineno} ({ours[-1].name})" if ours else "?"
    prefix = f"{target}: " if ours and ours[-1].filename == _CHECKS else ""
    return f"{prefix}{type(e).__name__} at {where}"


@dataclass
class Crash:
    signature: str
    target: str  # the first target it was seen in (the one its input is shrunk against)
    targets: set[str]
    count: int
    data: bytes
    message: str
    trace: str


@dataclass
class Run:
    timeout: float
    inputs: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    crashes: dict[str, Crash] = field(default_factory=dict)

    def attempt(self, target: str, check: Callable[[bytes], object], data: bytes) -> str | None:
        """Run one check on one input; the crash's signature, or None."""
        t0 = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            check(data)
            return None
        except Exception as e:
            sig = signature(target, e)
            known = self.crashes.get(sig)
            if known is None:
                self.crashes[sig] = Crash(sig, target, {target}, 1, data, f"{type(e).__name__}: {str(e)[:500]}", _trace(e))
            else:
                known.count += 1
                known.targets.add(target)
                if len(data) < len(known.data):
                    known.data = data
            return sig
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.inputs[target] = self.inputs.get(target, 0) + 1
            self.seconds[target] = self.seconds.get(target, 0.0) + time.monotonic() - t0


def _trace(e: BaseException) -> str:
    return "".join(traceback.format_exception(type(e), e, e.__traceback__))


def _same(target: str, sig: str, data: bytes, timeout: float) -> bool:
    check = fuzzgen.TARGETS[target]
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        check(data)
        return False
    except Exception as e:
        return signature(target, e) == sig
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _ddmin(parts: list[bytes], join: Callable[[list[bytes]], bytes], same: Callable[[bytes], bool]) -> bytes:
    """Drop runs of ``parts`` (halves, quarters, ... single parts) while ``same`` holds."""
    n = 2
    while len(parts) >= 2:
        size = max(1, len(parts) // n)
        for start in range(0, len(parts), size):
            candidate = parts[:start] + parts[start + size :]
            if same(join(candidate)):
                parts = candidate
                n = max(n - 1, 2)
                break
        else:
            if size == 1:
                break
            n = min(n * 2, len(parts))
    return join(parts)


def _runs(data: bytes, same: Callable[[bytes], bool]) -> bytes:
    """Each run of one byte (8 or more) cut to the shortest length that keeps the crash (a binary search)."""
    for m in sorted(re.finditer(rb"(.)\1{7,}", data, re.S), key=lambda m: -m.start()):
        a, b = m.span()
        unit = data[a : a + 1]
        lo, hi = 0, b - a  # hi keeps the crash
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if same(data[:a] + unit * mid + data[b:]):
                hi = mid
            else:
                lo = mid
        data = data[:a] + unit * hi + data[b:]
    return data


def shrink(target: str, sig: str, data: bytes, seconds: float, timeout: float) -> bytes:
    """Delta debugging, within ``seconds``: drop lines, shorten runs of a byte, drop words, then bytes, while the same crash recurs."""
    stop = time.monotonic() + seconds

    def same(candidate: bytes) -> bool:
        return time.monotonic() < stop and _same(target, sig, candidate, timeout)

    data = _ddmin(data.split(b"\n"), b"\n".join, same)
    data = _runs(data, same)
    data = _ddmin(re.split(rb"(?<=[ \n])", data), b"".join, same)
    if len(data) <= 5000:
        data = _ddmin([bytes([c]) for c in data], b"".join, same)
    return data


def show(data: bytes, limit: int = 600) -> str:
    """The input as a Python bytes literal, runs of one byte written ``<b'9' x 4301>``."""
    out = []
    pos = 0
    for m in re.finditer(rb"(.)\1{15,}", data, re.S):
        out.append(repr(data[pos : m.start()]) + f" + <{data[m.start() : m.start() + 1]!r} x {m.end() - m.start()}> + ")
        pos = m.end()
    text = "".join(out) + repr(data[pos:])
    return text if len(text) <= limit else text[:limit] + "..."


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="stop after this long (default 20)")
    ap.add_argument("--examples", type=int, default=10**9, help="stop after this many inputs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hostility", choices=("all", "suite"), default="all", help="all (default): every mutation; suite: the suite's bounds")
    ap.add_argument("--targets", default=",".join(fuzzgen.TARGETS), help="comma-separated targets (default: all)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds one input may take in one target")
    ap.add_argument("--shrink-seconds", type=float, default=60.0, help="time to shrink each distinct crash")
    ap.add_argument("--out", type=Path, help="write each crash's smallest input and traceback into this folder")
    args = ap.parse_args(argv)
    targets = {name: fuzzgen.TARGETS[name] for name in args.targets.split(",")}
    hostility = fuzzgen.ALL if args.hostility == "all" else fuzzgen.SUITE
    run = Run(args.timeout)
    signal.signal(signal.SIGALRM, _alarm)
    fuzzgen.corpus()
    started = time.monotonic()
    deadline = started + args.minutes * 60
    drawn = 0

    @seed(args.seed)
    @settings(
        max_examples=args.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @given(fuzzgen.mutated(hostility))
    def one(data: bytes) -> None:
        nonlocal drawn
        if time.monotonic() >= deadline:
            raise _Stop
        drawn += 1
        for name, check in targets.items():
            run.attempt(name, check, data)
        if drawn % 500 == 0:
            print(f"  {drawn} inputs, {len(run.crashes)} distinct crashes, {time.monotonic() - started:.0f} s", flush=True)

    try:
        one()
    except _Stop:
        pass
    elapsed = time.monotonic() - started
    print(f"fuzz: seed {args.seed}, hostility {args.hostility}, {drawn} inputs in {elapsed:.0f} s")
    for name in targets:
        n = run.inputs.get(name, 0)
        print(f"  {name:8} {n:7} inputs  {run.seconds.get(name, 0.0):7.1f} s")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for k, crash in enumerate(sorted(run.crashes.values(), key=lambda c: c.signature), 1):
        small = shrink(crash.target, crash.signature, crash.data, args.shrink_seconds, args.timeout)
        seen = ", ".join(t for t in targets if t in crash.targets)
        print(f"crash {k}: {crash.signature}  ({crash.count} times, in {seen})\n  {crash.message[:300]}\n  smallest input ({len(small)} bytes): {show(small)}")
        if args.out:
            (args.out / f"crash-{k}.txt").write_bytes(small)
            (args.out / f"crash-{k}.trace").write_text(f"{crash.signature}\n{crash.count} times, in {seen}\n\n{crash.trace}", encoding="utf-8")
    print(f"{len(run.crashes)} distinct crashes")
    return 1 if run.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
