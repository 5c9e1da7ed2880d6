"""What a Spark import did (:class:`SparkSummary`) and the error of one that cannot start or run (:class:`SparkImportError`).

Apart from the run because every part of it -- the JVM's start, the
inputs' discovery, the decisions, the commit -- adds to the one or raises
the other, and the CLI and ``spark-submit``'s application read both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class SparkImportError(Exception):
    """A Spark import that cannot start or run: Java or PySpark missing, a path Spark cannot read (the CLI exits 2)."""


@dataclass(slots=True)
class SparkSummary:
    """What a run did; the same counts as :class:`~hhtool.store.summary.ImportSummary` where they mean the same."""

    out: str
    run: int = 0
    files: int = 0  # files found (a zip member is one)
    imported: int = 0  # files committed by this run
    unchanged: int = 0  # content already committed: not read again
    hands: int = 0  # hand records read (parsed and failed)
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    conflicts_new: int = 0
    failed: int = 0
    failed_new: int = 0
    replay_errors: int = 0
    junk_lines: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    not_histories: list[str] = field(default_factory=list)
    cp1252_files: list[str] = field(default_factory=list)  # not UTF-8: read as Windows-1252
    unreadable: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not read, nothing lost (a loop, a FIFO, a virtual file system)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.failed or self.conflicts or self.replay_errors or self.unreadable)

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)

    def text(self) -> str:
        """The summary for a terminal, in the DuckDB import's words (file names escaped: they may come from an archive)."""
        from dataclasses import fields

        from hhtool.store.importer import ImportSummary
        from hhtool.textsafe import term

        same = {f.name for f in fields(ImportSummary)} & {f.name for f in fields(self)}
        return term(f"run {self.run} committed under {self.out}") + "\n" + ImportSummary(**{n: getattr(self, n) for n in same}).text()
