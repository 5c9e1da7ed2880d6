"""Every command's help, as a newcomer reads it: an example that runs, readable option types, the allowed values."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from contextlib import chdir
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hhtool import __version__
from hhtool.cli import app
from tests.inprocess import hhtool

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def command_paths() -> list[tuple[str, ...]]:
    """Every command and, under a group, every subcommand, as the words that call it (``("import",)``), from the CLI itself."""
    import typer.main
    from typer.core import TyperGroup

    paths: list[tuple[str, ...]] = []

    def walk(group: TyperGroup, prefix: tuple[str, ...]) -> None:
        for name, command in sorted(group.commands.items()):
            paths.append((*prefix, name))
            if isinstance(command, TyperGroup):  # a group of subcommands (``app.add_typer``)
                walk(command, (*prefix, name))

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    walk(root, ())
    return paths


COMMANDS = command_paths()


def help_text(*args: str) -> str:
    result = runner.invoke(app, [*args], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_tested_here() -> None:
    """The commands walked are the ones ``hhtool --help`` lists (so none escapes the checks below)."""
    listed = help_text("--help")
    found = set(re.findall(r"^  ([\w-]+) ", listed.split("Commands:")[1], re.M))
    assert found == {path[0] for path in COMMANDS}
    assert {"rank", "equity", "parse", "audit", "import", "query", "export", "simulate", "stats", "report"} <= found


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_has_an_example_and_readable_types(command: tuple[str, ...]) -> None:
    """Each command's and subcommand's help: a summary, an example calling that very command, readable types, 80 columns."""
    text = help_text(*command, "-h")
    assert text == help_text(*command, "--help")
    summary = text.split("\n\n")[1].strip() if "\n\n" in text else ""
    assert summary and not summary.startswith(("Options:", "Arguments:")), f"hhtool {' '.join(command)} --help says nothing of what it does"
    examples = re.findall(r"^    hhtool (.+)$", text, re.M)
    assert examples, f"hhtool {' '.join(command)} --help shows no example"
    assert all(tuple(shlex.split(e)[: len(command)]) == command for e in examples)
    assert not re.search(r"<(?:list\[|bool>|int>|str>|int range|path>|float>)", text), text
    assert max(len(line) for line in text.splitlines()) <= 80, "help wider than 80 columns"


def test_choices_show_their_allowed_values() -> None:
    assert "<classic|stellapoker|italian|FILE>" in help_text("audit", "-h")  # a profile, or a room file (docs/rooms.md)
    assert "<table|detail|csv|json>" in help_text("stats", "-h")
    assert "<fixed|pot|no>" in help_text("simulate", "-h")
    bad = runner.invoke(app, ["audit", "--rules", "texas", "x.txt"])
    assert bad.exit_code == 2 and "classic" in bad.output


def test_version_and_short_help() -> None:
    r = subprocess.run([sys.executable, "-m", "hhtool.cli", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == f"hhtool {__version__}"
    assert "Commands:" in help_text("-h")


def test_the_examples_that_need_no_files_of_their_own_run(tmp_path: Path) -> None:
    """The rank, audit and parse examples on the bundled samples: exit codes as documented, no traceback.

    In the test's process (:mod:`tests.inprocess`: an unmapped exception fails the test); the console
    script's own path is the internal-error, closed-pipe and ``--version`` tests'."""
    for line in (
        'rank --rules classic --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
        'rank --json --vela Ks "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"',
        "audit sample_histories/000_format_example.txt",
        "parse sample_histories/",
        f"simulate --hands 20 --faults 0.1 --seed 7 --out {tmp_path / 'faulty.txt'}",
    ):
        with chdir(ROOT):  # the examples name the samples from the project's folder
            r = hhtool(*shlex.split(line))
        assert r.returncode in (0, 1), (line, r.stderr)
        assert "Traceback" not in r.stderr, (line, r.stderr)


def _run_with_command(body: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real entry point with one extra command registered (the way a bug would surface in any command)."""
    import os

    code = f"import sys\nimport hhtool.cli as cli\n@cli.app.command('boom')\ndef boom() -> None:\n    {body}\nsys.argv = ['hhtool', 'boom']\ncli.main()\n"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})})


def test_an_internal_error_is_one_line_of_words_not_a_traceback() -> None:
    r = _run_with_command("raise KeyError('seat \\x1b[2J 9')")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "hhtool: internal error: KeyError" in r.stderr and "please report it" in r.stderr
    assert "\x1b" not in r.stderr and "\\x1b" in r.stderr
    debug = _run_with_command("raise KeyError('seat')", env={"HHTOOL_DEBUG": "1"})
    assert "Traceback" in debug.stderr


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``hhtool parse --json big.txt | head -c 10``: far more output than a pipe holds, and the reader goes away."""
    example = (ROOT / "sample_histories" / "000_format_example.txt").read_text(encoding="utf-8")
    big = tmp_path / "big.txt"
    big.write_text("\n\n".join(example.replace("C-1001", f"C-{n}") for n in range(400)), encoding="utf-8")
    code = f"import sys\nimport hhtool.cli as cli\nsys.argv = ['hhtool', 'parse', '--json', {str(big)!r}]\ncli.main()\n"
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 1
    assert "Traceback" not in err and err == ""
