"""Shared fixtures and hypothesis settings for the suite."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _stale_compiled_modules() -> list[str]:
    """Compiled modules (mypyc, ``_scan.c`` and ``_columns.c``, see setup.py) older than their source: Python would run the old code."""
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "hhtool"
    stale = []
    for so in package.rglob("*.so"):
        for suffix in (".py", ".c"):
            source = so.with_name(so.name.split(".", 1)[0] + suffix)
            if source.exists() and source.stat().st_mtime > so.stat().st_mtime:
                stale.append(str(source.relative_to(package.parent)))
    return stale


def pytest_configure(config: object) -> None:
    stale = _stale_compiled_modules()
    if stale:
        import pytest

        pytest.exit(f"compiled modules are older than their sources ({', '.join(stale)}): run `make install`", returncode=2)
