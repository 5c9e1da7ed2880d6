"""Run every benchmark in bench/ in turn (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = 0
    # import.py first: it makes and caches the files allin_ev.py and writer.py read
    for script in sorted(HERE.glob("*.py"), key=lambda p: (p.name != "import.py", p.name)):
        # fuzz.py is a search for crashes; instructions.py a workload for callgrind (a mode and a file of hands); soak.py
        # ten minutes of writers and kill -9s checking that nothing is lost (docs/live.md): not benchmarks of speed;
        # procs.py and corpus.py what they share; deviations.py where a simulated room's colluding decisions fall among the
        # integrity screen's spots (an analysis of rooms integrity.py built)
        if script.name in ("run.py", "__init__.py", "fuzz.py", "instructions.py", "soak.py", "procs.py", "corpus.py", "deviations.py"):
            continue
        print(f"\n=== {script.name}", flush=True)
        failed += subprocess.run([sys.executable, str(script)]).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
