"""What ``hhtool parse`` and ``hhtool audit`` read: the same inputs as ``hhtool import``.

A path is a file, a folder (walked recursively), a glob (``**``
recurses), a ``.zip`` archive (its members) or a ``.gz`` file (its
content): :func:`hhtool.history.files.find_units` finds them, for the
import and for these commands alike, so that one command line works with
all three.  Records come out one file at a time, in the order the import
reads them, each with the name a person recognises (the path as it was
given, a folder's files under the folder as it was given,
``archive.zip!member`` for a member).

What the import only counts is said here too: an input with no hand in
it (a ``Makefile`` named by mistake, an empty folder) and a file that
cannot be read (a truncated ``.gz``, a damaged archive) are reported in
:class:`InputReport`, so the command can say so and exit 1 instead of
printing "0 hands" as if that were an answer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hhtool.history.archives import ARCHIVE_ERRORS, unreadable_reason
from hhtool.history.files import find_units
from hhtool.history.reader import Record, Skipped, read_stream


@dataclass(slots=True)
class InputReport:
    """What the inputs held besides hands: files with none, files that could not be read."""

    files: int = 0
    hands: int = 0  # hand records (parsed or failed)
    empty: list[str] = field(default_factory=list)  # files named by the user that hold no hand
    not_histories: list[str] = field(default_factory=list)  # files found in a folder or archive with no hand (a README)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why) not read on purpose: a loop, a FIFO, a device
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (shown as, name in the archive) of unsafe zip member names
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (name, why) of each file that could not be read

    def problems(self) -> list[str]:
        """One line per input that gave nothing, for a person; empty when all is well."""
        lines = [f"{name}: cannot be read ({why}); skipped" for name, why in self.unreadable]
        lines += [f"{name}: no hand in it" for name in self.empty]
        if self.hands == 0 and not lines:
            lines.append("no hand in the inputs" + (f" ({self.files:,} file(s) read)" if self.files else " (no file found)"))
        return lines

    def notes(self) -> list[str]:
        """What was passed over on purpose, as the import says it."""
        lines = list(dict.fromkeys(f"skipped {path}: {why}" for path, why in self.skipped))  # a path met twice (a glob and a walk) once
        lines += [f"note: read {shown} (named {name!r} in the archive, an unsafe name)" for shown, name in self.renamed]
        if self.not_histories:
            shown = ", ".join(self.not_histories[:5])
            more = f" and {len(self.not_histories) - 5:,} more" if len(self.not_histories) > 5 else ""
            lines.append(f"skipped, no hand in them: {shown}{more}")
        return lines

    @property
    def ok(self) -> bool:
        """At least one hand was read, and no input was unreadable or, named by the user, empty."""
        return not self.problems()


class _Names:
    """A file's name as the user wrote it: the path given, or the folder given joined with the rest.

    ``collect_units`` works on resolved paths (to read each file once);
    messages should show ``sample_histories/x.txt`` when that is what was
    typed, not ``/home/…/sample_histories/x.txt``.
    """

    def __init__(self, paths: Iterable[str | Path]) -> None:
        self.given: dict[Path, str] = {}
        for p in paths:
            path = Path(p)
            self.given.setdefault(Path(os.path.abspath(path)), str(p))
            try:
                if path.exists():
                    self.given.setdefault(path.resolve(), str(p))
            except (OSError, RuntimeError):  # a link loop: its absolute path is enough
                pass

    def __call__(self, fs_path: Path, member: str | None = None) -> str:
        name = self.given.get(fs_path)
        if name is None:
            for parent in fs_path.parents:
                folder = self.given.get(parent)
                if folder is not None:
                    name = os.path.join(folder, str(fs_path.relative_to(parent)))
                    break
        if name is None:  # a glob's match: relative to the working folder when under it
            rel = os.path.relpath(fs_path)
            name = str(fs_path) if rel.startswith("..") else rel
        return f"{name}!{member}" if member is not None else name


def read_inputs(
    paths: Iterable[str | Path],
    *,
    strict: bool = False,
    notes: list[str] | None = None,
    report: InputReport | None = None,
) -> Iterator[tuple[str, Record]]:
    """Every record of every input, as ``(name, record)``, one file after the other.

    Raises :class:`~hhtool.history.files.NoSuchPath` (the import's
    ``ImportPathError``) for a path that does not exist or a glob that
    matches nothing (a usage error), before anything is read.  A file that
    cannot be read is named in ``report`` and skipped; the others are read.
    """
    report = report if report is not None else InputReport()
    paths = list(paths)
    inputs = find_units(paths)
    names = _Names(paths)
    report.files = len(inputs.units)
    report.unreadable.extend((names(Path(path)), why) for path, why in inputs.unreadable)
    report.skipped.extend((names(Path(path)), why) for path, why in inputs.skipped)
    report.renamed.extend((path, name) for path, name, _ in inputs.renamed)
    for unit in inputs.units:
        name = names(unit.fs_path, unit.path.split("!", 1)[1] if unit.member is not None else None)
        found = False
        try:
            with unit.open() as stream:
                for record in read_stream(stream, name, strict=strict, notes=notes):
                    if not isinstance(record, Skipped):
                        found = True
                        report.hands += 1
                    yield name, record
        except ARCHIVE_ERRORS as e:
            report.unreadable.append((name, unreadable_reason(e)))
            continue
        if not found:
            (report.empty if unit.named else report.not_histories).append(name)
