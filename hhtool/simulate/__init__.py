"""``hhtool simulate``: synthetic Telesina hand histories that audit ``ok``, with faults on demand.

Modules: :mod:`.config` (the request, stakes, sites), :mod:`.table`
(seats, stacks, button, sit-outs and newcomers between hands),
:mod:`.bots` (four playing styles), :mod:`.play` (one hand, driven by the
game's betting machine, the replay's too: its state and deal :mod:`.hand`, the bots'
choices :mod:`.choices`, the showdown and pots :mod:`.settle`, the history
written :mod:`.record`), :mod:`.view` (a player's own view),
:mod:`.faults` (faults on demand and the manifest entries), :mod:`.mutate`
(the fault classes),
:mod:`.session` (sessions of hands from a seed).  ``docs/simulate.md``
documents the choices.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hhtool.simulate.config import SimConfig, SimulationError, make_config
from hhtool.simulate.session import SessionOutput, check_view, run_session, session_hands, sessions

__all__ = ["SimConfig", "SimulationError", "SimulationResult", "make_config", "simulate_text", "write_simulation"]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What was written: hands, faults injected, and where."""

    hands: int
    faults: int
    out: Path
    manifest: Path | None


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
    check_view(config)
    parts: list[str] = []
    manifest: list[dict[str, object]] = []
    line = 1
    for out in _outputs(config, hands, 1):
        for entry in out.manifest:
            manifest.append(_in_file(entry, line))
        parts.append(out.text)
        line += out.lines + 1
    return "\n".join(parts), manifest


def _in_file(entry: dict[str, object], first: int) -> dict[str, object]:
    """A session's manifest entry with its lines counted from the file's first line (the session's is ``first``)."""
    return {**entry, "line": int(str(entry["line"])) + first - 1, "fault_line": int(str(entry["fault_line"])) + first - 1}


def manifest_path(out: Path) -> Path:
    """The manifest sits beside the output: ``FILE.faults.jsonl``."""
    return out.with_name(out.name + ".faults.jsonl")


def write_simulation(config: SimConfig, hands: int, out: Path, jobs: int = 1) -> SimulationResult:
    """Simulate ``hands`` hands into ``out`` (and the manifest when faults were asked for)."""
    check_view(config)
    faults = 0
    line = 1
    mpath = manifest_path(out) if config.fault_rate > 0 else None
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        mfile = open(mpath, "w", encoding="utf-8", newline="\n") if mpath is not None else None
        try:
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
                line += part.lines + 1
        finally:
            if mfile is not None:
                mfile.close()
    return SimulationResult(hands, faults, out, mpath)


def iter_hands(config: SimConfig, hands: int) -> Iterator[object]:
    """The hands as :class:`~hhtool.history.events.Hand` values, before faults (for tests)."""
    check_view(config)
    for k, n in sessions(hands):
        yield from session_hands(config, k, n)
