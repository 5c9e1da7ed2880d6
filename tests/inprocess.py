"""``hhtool ARGS`` run inside the test process, its outcome shaped as a finished process's.

A real ``hhtool`` process spends most of a short command starting
(Python, typer, DuckDB: about half a second, several seconds on a busy
machine), so a test that runs dozens of commands to check their words
and exit codes runs them here, through typer's ``CliRunner``, and keeps
one real process for what only a process shows (the console script's
last line of defence in ``hhtool.cli.main``, signals, the exit status).

An exception that no command maps to an exit code is not turned into the
one-line "internal error" the console script prints: it is raised here,
with its traceback, and fails the test, as the real process's exit 1 would.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from typer.testing import CliRunner

from hhtool.cli import app


def _help_width(env: Mapping[str, str] | None) -> int:
    """The width click wraps help at in a process whose output is no terminal (``COLUMNS`` or 80, at most 80, less 2).

    ``CliRunner`` would wrap at 80 whatever ``COLUMNS`` says; a real process wraps as computed here.
    """
    columns = (env or {}).get("COLUMNS", os.environ.get("COLUMNS", ""))
    width = int(columns) if columns.isdigit() and int(columns) > 0 else 80
    return max(min(width, 80) - 2, 50)


def hhtool(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``hhtool *args`` in this process (``env`` set for its duration): its exit code, stdout and stderr."""
    result = CliRunner().invoke(app, list(args), env=dict(env) if env is not None else None, terminal_width=_help_width(env))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["hhtool", *args], result.exit_code, result.stdout, result.stderr)
