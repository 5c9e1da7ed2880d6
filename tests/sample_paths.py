"""Where the sample histories are, for the tests."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_histories"
GOOD = sorted(SAMPLES.glob("*.txt"))
BROKEN = sorted((SAMPLES / "broken").glob("*.txt"))
