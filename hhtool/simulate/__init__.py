"""``hhtool simulate``: synthetic Telesina hand histories that audit ``ok``, with faults on demand.

Modules: :mod:`.config` (the request, stakes, sites), :mod:`.table`
(seats, stacks, button, sit-outs and newcomers between hands),
:mod:`.bots` (four playing styles), :mod:`.play` (one hand, driven by the
game's betting machine, the replay's too: its state and deal :mod:`.hand`, the bots'
choices :mod:`.choices`, the showdown and pots :mod:`.settle`, the history
written :mod:`.record`), :mod:`.view` (a player's own view),
:mod:`.faults` (faults on demand and the manifest entries), :mod:`.mutate`
(the fault classes), :mod:`.collusion` (colluding pairs and their
manifest), :mod:`.pool` (population mode: players joining and leaving
tables), :mod:`.session` (sessions of hands from a seed).  ``docs/simulate.md``
documents the choices.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hhtool.simulate.collusion import pair_entries
from hhtool.simulate.config import SimConfig, SimulationError, make_config
from hhtool.simulate.session import SessionOutput, check_view, run_session, session_hands, sessions

__all__ = [
    "SimConfig",
    "SimulationError",
    "SimulationResult",
    "Simulated",
    "make_config",
    "simulate_run",
    "simulate_text",
    "write_simulation",
]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What was written: hands, faults injected, and where; the colluding pairs' manifest when pairs were asked for."""

    hands: int
    faults: int
    out: Path
    manifest: Path | None
    collusion: Path | None = None
    deviations: int = 0  # hands in which a pair deviated


@dataclass(frozen=True, slots=True)
class Simulated:
    """A run in memory: the file's text, the faults manifest, the collusion manifest (pairs first, then hands)."""

    text: str
    faults: list[dict[str, object]]
    collusion: list[dict[str, object]]


def _run(args: tuple[SimConfig, int, int]) -> SessionOutput:
    return run_session(*args)


def _outputs(config: SimConfig, hands: int, jobs: int) -> Iterator[SessionOutput]:
    work = [(config, k, n) for k, n in sessions(hands)]
    if jobs <= 1 or len(work) <= 1:
        for item in work:
            yield _run(item)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(_run, work)


def simulate_text(config: SimConfig, hands: int) -> tuple[str, list[dict[str, object]]]:
    """The file's text and its manifest entries, in memory (for tests and small runs)."""
    run = simulate_run(config, hands)
    return run.text, run.faults


def simulate_run(config: SimConfig, hands: int, jobs: int = 1) -> Simulated:
    """The file's text and both manifests, in memory (for tests and small runs)."""
    check_view(config)
    parts: list[str] = []
    manifest: list[dict[str, object]] = []
    collusion = pair_entries(config.collusion)
    line = 1
    for out in _outputs(config, hands, jobs):
        for entry in out.manifest:
            manifest.append(_in_file(entry, line))
        for entry in out.collusion:
            collusion.append(_collusion_in_file(entry, line))
        parts.append(out.text)
        line += out.lines + 1
    return Simulated("\n".join(parts), manifest, collusion)


def _in_file(entry: dict[str, object], first: int) -> dict[str, object]:
    """A session's manifest entry with its lines counted from the file's first line (the session's is ``first``)."""
    return {**entry, "line": int(str(entry["line"])) + first - 1, "fault_line": int(str(entry["fault_line"])) + first - 1}


def _collusion_in_file(entry: dict[str, object], first: int) -> dict[str, object]:
    """A session's collusion entry with the hand's line and its deviations' counted from the file's first line."""
    deviations = entry["deviations"]
    assert isinstance(deviations, list)
    moved = [{**d, "line": int(d["line"]) + first - 1} for d in deviations]
    return {**entry, "line": int(str(entry["line"])) + first - 1, "deviations": moved}


def collusion_path(out: Path) -> Path:
    """The colluding pairs' manifest sits beside the output: ``FILE.collusion.jsonl``."""
    return out.with_name(out.name + ".collusion.jsonl")


def manifest_path(out: Path) -> Path:
    """The manifest sits beside the output: ``FILE.faults.jsonl``."""
    return out.with_name(out.name + ".faults.jsonl")


def write_simulation(config: SimConfig, hands: int, out: Path, jobs: int = 1) -> SimulationResult:
    """Simulate ``hands`` hands into ``out`` (and the manifest when faults were asked for)."""
    check_view(config)
    faults = 0
    deviated = 0
    line = 1
    mpath = manifest_path(out) if config.fault_rate > 0 else None
    cpath = collusion_path(out) if config.collusion else None
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        mfile = open(mpath, "w", encoding="utf-8", newline="\n") if mpath is not None else None
        cfile = open(cpath, "w", encoding="utf-8", newline="\n") if cpath is not None else None
        try:
            if cfile is not None:
                for entry in pair_entries(config.collusion):
                    cfile.write(json.dumps(entry, ensure_ascii=False) + "\n")
            first = True
            for part in _outputs(config, hands, jobs):
                if not first:
                    f.write("\n")
                first = False
                f.write(part.text)
                for entry in part.manifest:
                    faults += 1
                    if mfile is not None:
                        record = _in_file(entry, line)
                        mfile.write(json.dumps(record, ensure_ascii=False) + "\n")
                if cfile is not None:
                    for entry in part.collusion:
                        deviated += bool(entry["deviated"])
                        cfile.write(json.dumps(_collusion_in_file(entry, line), ensure_ascii=False) + "\n")
                line += part.lines + 1
        finally:
            if mfile is not None:
                mfile.close()
            if cfile is not None:
                cfile.close()
    return SimulationResult(hands, faults, out, mpath, cpath, deviated)


def iter_hands(config: SimConfig, hands: int) -> Iterator[object]:
    """The hands as :class:`~hhtool.history.events.Hand` values, before faults (for tests)."""
    check_view(config)
    for k, n in sessions(hands):
        yield from session_hands(config, k, n)
