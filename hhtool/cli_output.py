"""How a command ends and what it says besides its result: exit codes, ``hhtool: ...`` lines, text written as it is.

Every command module reports through these, so that a usage error reads
the same whichever command met it, and the exit codes are those of the
help: 0 ok, 1 findings or failures, 2 usage errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from hhtool.history.inputs import InputReport

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Say ``message`` on standard error as ``hhtool: ...``; the exit to raise (a usage error unless told)."""
    from hhtool.textsafe import term_lines

    typer.echo(f"hhtool: {term_lines(message)}", err=True)  # it may name a file or quote a hand
    return typer.Exit(code)


def echo(text: str, *, raw: bool, err: bool = False) -> None:
    """``typer.echo``, but with ``raw`` exactly the text: click would cut ``ESC [ ... m`` out when not on a terminal."""
    typer.echo(text, err=err, color=True if raw else None)


def input_problems(report: "InputReport", raw: bool = False) -> bool:
    """Say what the inputs held besides hands (on standard error); True when that is a failure (exit 1)."""
    from hhtool.textsafe import term

    for note in report.notes():
        echo(note if raw else term(note), raw=raw, err=True)
    problems = report.problems()
    for problem in problems:
        echo(f"hhtool: {problem if raw else term(problem)}", raw=raw, err=True)
    return bool(problems)
