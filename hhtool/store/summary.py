"""What an import did, counted as it goes: :class:`ImportSummary`, as lines for a terminal or as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hhtool.textsafe import columns

SHOWN_SKIPS = 20
"""Skipped paths listed one a line in the text summary; the others are counted (``--json`` lists all)."""

SHOWN_FAILED = 10
"""Failed hands of a run named in its summary (text and ``--json``): the first by file and line; the others counted,
and :meth:`ImportSummary.failed_command` lists them all."""

WIDTH = 80
"""The columns the failed hands' lines are wrapped to (file:line and hand id are never cut)."""

REAUDIT_HINT = "run hhtool import --reaudit to audit them again"
"""The last words of an import that found stored hands audited under other rules than the rooms' files give now."""


def reaudit_hint(folder: str | None) -> str:
    """:data:`REAUDIT_HINT`, with ``--rooms FOLDER`` when the rooms were not the default folder's (the re-audit must read the same)."""
    import shlex

    from hhtool.game.room import default_rooms_dir

    if folder is None or folder == str(default_rooms_dir()):
        return REAUDIT_HINT
    return REAUDIT_HINT.replace("--reaudit", f"--reaudit --rooms {shlex.quote(folder)}")


@dataclass(frozen=True, slots=True)
class RoomNotice:
    """Stored hands audited under other rules than the room files give now (:mod:`hhtool.store.rooms`), in one case.

    ``kind``: ``changed`` (the room's file has other rules than when the
    hands were audited: ``changes`` says what), ``governed`` (a room's file
    now names the site of hands audited without one), ``gone`` (no file
    governs any more the hands audited under ``room``), ``moved`` (hands
    audited under room ``was`` are now another room's).  ``room``: the room
    that governs them now (``gone``: the one they were audited under);
    ``source``: its file (None when gone); ``hands``: how many;
    ``sites``: their sites and profiles, ``Vela (classic)``.
    """

    kind: str
    room: str
    source: str | None
    hands: int
    sites: tuple[str, ...]
    changes: tuple[str, ...] = ()
    was: str | None = None

    def text(self) -> str:
        """The notice in words, one line."""
        n = f"{self.hands:,} stored hand{'s' if self.hands != 1 else ''}"
        sites = ", ".join(self.sites)
        if self.kind == "changed":
            what = "; ".join(self.changes) or "its rules differ"
            return f"room {self.room!r} ({self.source}) has changed since {n} of {sites} were audited under it: {what}"
        if self.kind == "governed":
            return f"room {self.room!r} ({self.source}) now governs {n} of {sites}, audited without a room file"
        if self.kind == "gone":
            return f"room {self.room!r}: no room file governs {sites} any more; {n} were audited under it"
        return f"room {self.room!r} ({self.source}) now governs {n} of {sites}, audited under room {self.was!r}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "room": self.room, "source": self.source, "hands": self.hands, "sites": list(self.sites),
            "changes": list(self.changes), "was": self.was, "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class FailedHand:
    """A hand that failed and was stored in ``failed`` by this run: its row's columns (docs/schema.md), as the writer stored them."""

    file: str
    line: int
    first_line: int
    hand_id: str | None
    kind: str
    message: str
    expected: str | None  # what the parser expected there, comma separated

    @property
    def key(self) -> tuple[str, int]:
        """Its place in the listing: by file, then line (as ``ORDER BY file, line``)."""
        return (self.file, self.line)

    def reason(self) -> str:
        """``kind: message (expected ...)``."""
        return f"{self.kind}: {self.message}" + (f" (expected {self.expected})" if self.expected else "")

    def lines(self, *, raw: bool = False, width: int = WIDTH) -> list[str]:
        """The hand in at most three lines of ``width`` columns: ``FILE:LINE hand ID: REASON``, the reason wrapped, cut with "…".

        The file is shown relative to the working folder when under it
        (``failed.file`` is absolute); every string is terminal-safe unless
        ``raw`` (the hand id and the message come from the history).
        """
        import os

        from hhtool.textsafe import term

        def safe(text: str) -> str:
            return text if raw else term(text)

        rel = os.path.relpath(self.file) if os.path.isabs(self.file) else self.file
        name = self.file if rel.startswith("..") else rel
        hand = f"hand {safe(self.hand_id)}" if self.hand_id else "no hand id"
        return _wrap(f"  {safe(name)}:{self.line} {hand}:", safe(self.reason()), width)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "line": self.line, "first_line": self.first_line, "hand_id": self.hand_id, "kind": self.kind,
            "message": self.message, "expected": self.expected,
        }


def _cut(text: str, cols: int) -> str:
    """The longest start of ``text`` that fits in ``cols`` columns."""
    out = []
    used = 0
    for ch in text:
        w = columns(ch)
        if used + w > cols:
            break
        out.append(ch)
        used += w
    return "".join(out)


def _wrap(head: str, text: str, width: int, indent: int = 6, max_lines: int = 3) -> list[str]:
    """``head`` whole on the first line, then ``text`` word by word to ``width`` columns, on at most ``max_lines`` lines.

    A word longer than a line is cut where the line ends; what does not fit
    in ``max_lines`` lines is left out, and the last line ends with "…".
    """
    pad = " " * indent
    lines = [head]
    used = columns(head)
    words = text.split(" ")
    i = 0
    while i < len(words):
        word = words[i]
        w = columns(word)
        sep = 0 if lines[-1] == pad else 1
        if used + sep + w <= width:
            lines[-1] += " " * sep + word
            used += sep + w
            i += 1
            continue
        if w > width - indent:  # it fits on no line: as much of it here as fits
            part = _cut(word, width - used - sep)
            if part:
                lines[-1] += " " * sep + part
                words[i] = word[len(part):]
        if len(lines) == max_lines:  # more than fits: cut with an ellipsis
            lines[-1] = _cut(lines[-1], width - 1).rstrip() + "…"
            break
        lines.append(pad)
        used = indent
    return lines


@dataclass(slots=True)
class ImportSummary:
    """What an import did: files and hands read, stored, passed by, failed; what could not be read and why."""

    files: int = 0  # files found
    imported: int = 0  # files read to the end this run
    unchanged: int = 0  # skipped: content already imported
    hands: int = 0  # hand records read (parsed and failed)
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    conflicts_new: int = 0
    failed: int = 0  # hands that did not parse
    failed_new: int = 0  # ... stored this run (the others were already in `failed`)
    failed_shown: list[FailedHand] = field(default_factory=list)  # the first SHOWN_FAILED of those, by file and line
    failed_since: int | None = None  # imported_at (epoch µs) of the first transaction that stored failed rows this run
    failed_until: int | None = None  # ... and of the last: failed_command lists the rows between
    superseded: int = 0  # failed rows of hands read before they were whole, dropped when read whole (or longer) this run
    worker_restarts: int = 0  # times the worker processes were started again after one died (kill -9, out of memory)
    replay_errors: int = 0
    junk_lines: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # of the hands stored this run
    cp1252_files: list[str] = field(default_factory=list)
    not_histories: list[str] = field(default_factory=list)  # files found in folders or archives with no hand
    no_hand: list[str] = field(default_factory=list)  # files named by the user (or a glob) with no hand in them
    unreadable: list[str] = field(default_factory=list)  # "path: error" of each file that could not be read (skipped)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not read, nothing lost (a loop, a FIFO, a device...)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)  # zip members with unsafe names: (path read as, name, why)
    bytes: int = 0
    seconds: float = 0.0
    hash_seconds: float = 0.0  # reading every file once for its hash
    writer_seconds: float = 0.0  # in the writer's transactions
    interrupted: bool = False
    rooms: list[str] = field(default_factory=list)  # the room files the hands were replayed under ("name (file)")
    rooms_folder: str | None = None  # their folder (None: no folder of rooms)
    stale: list[RoomNotice] = field(default_factory=list)  # stored hands audited under other rules than the rooms' now
    reaudit: bool = False  # --reaudit was asked for
    reaudited: int = 0  # stored hands replayed again under the rooms of now (their rows replaced)
    reaudit_failed: int = 0  # stored hands that could not be replayed again (their text no longer parses): left as they were
    verdict_changes: dict[str, int] = field(default_factory=dict)  # of the hands re-audited: "ok → disputed" -> hands

    @property
    def ok(self) -> bool:
        """Nothing failed to parse or replay, no file was unreadable, and no conflict."""
        return not (self.failed or self.conflicts or self.replay_errors or self.unreadable)

    def add_failed(self, stored: int, first: list[FailedHand], stamp: int | None) -> None:
        """Count ``stored`` failed rows committed by one writer transaction whose ``now()`` was ``stamp`` (epoch µs).

        ``first``: the first :data:`SHOWN_FAILED` of them by file and line;
        :attr:`failed_shown` keeps the first of the run's.
        """
        self.failed_new += stored
        if first:
            self.failed_shown = sorted([*self.failed_shown, *first], key=lambda f: f.key)[:SHOWN_FAILED]
        if stored and stamp is not None:
            self.failed_since = stamp if self.failed_since is None else min(self.failed_since, stamp)
            self.failed_until = stamp if self.failed_until is None else max(self.failed_until, stamp)

    def failed_sql(self) -> str | None:
        """The SQL that lists every failed hand this run stored (None: none), by its ``imported_at``: its transactions' time."""
        if self.failed_since is None or self.failed_until is None:
            return None
        since, until = _timestamp(self.failed_since), _timestamp(self.failed_until)
        return (
            "SELECT file, line, hand_id, kind, message, expected FROM failed "
            f"WHERE imported_at BETWEEN '{since}' AND '{until}' ORDER BY file, line"
        )

    def failed_command(self, db: str | Path) -> str | None:
        """``hhtool query --db DB "SQL"`` of :meth:`failed_sql` (None: nothing failed this run); the path quoted for a shell."""
        import shlex

        sql = self.failed_sql()
        return None if sql is None else f'hhtool query --db {shlex.quote(str(db))} "{sql}"'

    def failed_lines(self, *, raw: bool = False, db: str | Path | None = None, width: int = WIDTH) -> list[str]:
        """The failed hands this run stored, for a terminal: the first :data:`SHOWN_FAILED`, the count of the rest, the command for all.

        Empty when this run stored none; a note only when the hands that
        failed were all in ``failed`` already (an earlier import, or the same
        text twice). Strings from the histories are terminal-safe unless ``raw``.
        """
        from hhtool.textsafe import term

        lines: list[str] = []
        again = self.failed - self.failed_new
        if self.failed_shown:
            n = self.failed_new
            what = f"{n:,} hand{'s' if n != 1 else ''} stored in the failed table"
            lines.append(f"failed: {what}" + (f"; the first {len(self.failed_shown)} by file and line:" if n > len(self.failed_shown) else ", by file and line:"))
            for f in self.failed_shown:
                lines += f.lines(raw=raw, width=width)
            more = n - len(self.failed_shown)
            command = self.failed_command(db) if db is not None else None
            if command is not None:
                lines.append(f"and {more:,} more; to list all {n:,}:" if more > 0 else "to list them with nothing cut:")
                lines.append("  " + (command if raw else term(command)))
            elif more > 0:
                lines.append(f"and {more:,} more (the failed table lists them all)")
        if again > 0 and (self.failed_shown or not self.failed_new):
            lines.append(f"failed: {again:,} hand{'s' if again != 1 else ''} already in the failed table (read before), not listed again")
        return lines

    def text(self, *, raw: bool = False, db: str | Path | None = None) -> str:
        """The summary as lines for a terminal; file names (which may come from an archive) escaped unless ``raw``.

        ``db``: the database, for the command that lists the failed hands (none: no command).
        """
        from hhtool.textsafe import term

        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        verdicts = ", ".join(f"{n:,} {v}" for v, n in sorted(self.verdicts.items())) or "none"
        lines = [
            f"files: {self.files:,} ({self.imported:,} imported, {self.unchanged:,} unchanged and skipped"
            + (f", {len(self.not_histories):,} without any hand and skipped)" if self.not_histories else ")"),
            f"hands: {self.hands:,} read, {self.stored:,} stored, {self.duplicates:,} duplicates, "
            f"{self.conflicts:,} conflicts, {self.failed:,} failed",
            f"verdicts of the hands stored: {verdicts}",
            f"time: {self.seconds:.1f} s ({rate:,.0f} hands/s)",
        ]
        if self.replay_errors:
            lines.append(f"replay errors: {self.replay_errors:,} (stored with verdict 'error'; please report them)")
        if self.junk_lines:
            lines.append(f"junk lines outside any hand, skipped: {self.junk_lines:,}")
        if self.superseded:
            lines.append(f"hands read whole that an earlier import had read half: {self.superseded:,} (their failed rows dropped)")
        if self.worker_restarts:
            lines.append(
                f"note: a worker process died {self.worker_restarts:,} time(s) (killed, or out of memory); "
                "new workers read its chunks again"
            )
        for f in self.unreadable:
            lines.append(f"error: cannot read {f}; skipped (its hands are not imported)")
        for path, why in self.skipped[:SHOWN_SKIPS]:
            lines.append(f"skipped {path}: {why}")
        if len(self.skipped) > SHOWN_SKIPS:
            lines.append(f"skipped {len(self.skipped) - SHOWN_SKIPS:,} more paths (--json lists them all)")
        for path, name, why in self.renamed:
            lines.append(f"note: {path}: read from the zip member {name!r}, an unsafe name ({why}); members are never extracted")
        for f in self.cp1252_files:
            lines.append(f"warning: {f}: not UTF-8; read as Windows-1252")
        if self.not_histories:
            shown = ", ".join(Path(p).name for p in self.not_histories[:5])
            more = f" and {len(self.not_histories) - 5:,} more" if len(self.not_histories) > 5 else ""
            lines.append(f"skipped, no hand in them: {shown}{more}")
        lines += self.failed_lines(raw=raw, db=db)
        if self.reaudit:
            changed = ", ".join(f"{k}: {n:,}" for k, n in sorted(self.verdict_changes.items())) or "none"
            lines.append(f"re-audited under the rooms of now: {self.reaudited:,} stored hands; verdicts changed: {changed}")
            if self.reaudit_failed:
                lines.append(f"not re-audited: {self.reaudit_failed:,} stored hands whose text no longer reads (left as they were)")
        if self.stale:
            hands = sum(n.hands for n in self.stale)
            lines += [f"note: {n.text()}" for n in self.stale]
            lines.append(
                f"note: {hands:,} stored hand{'s' if hands != 1 else ''} audited under other rules than the room files give now: "
                + reaudit_hint(self.rooms_folder)
            )
        if self.interrupted:
            lines.append("interrupted: everything above is committed; run the same command again to finish")
        return "\n".join(lines if raw else map(term, lines))


def _timestamp(epoch_us: int) -> str:
    """A ``TIMESTAMPTZ`` literal of microseconds since the epoch, exact: ``2025-06-01 12:00:00.123456+00``."""
    from datetime import datetime, timedelta, timezone

    t = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=epoch_us)
    return t.strftime("%Y-%m-%d %H:%M:%S.%f+00")


def summary_dict(s: ImportSummary, db: str | Path | None = None) -> dict[str, Any]:
    """The summary as plain data (for ``--json`` and tests); ``db``: the database, for ``failed_command``."""
    return {
        "files": s.files,
        "imported": s.imported,
        "unchanged": s.unchanged,
        "hands": s.hands,
        "stored": s.stored,
        "duplicates": s.duplicates,
        "conflicts": s.conflicts,
        "failed": s.failed,
        "failed_new": s.failed_new,
        "failed_hands": [f.as_dict() for f in s.failed_shown],
        "failed_sql": s.failed_sql(),
        "failed_command": s.failed_command(db) if db is not None else None,
        "superseded": s.superseded,
        "worker_restarts": s.worker_restarts,
        "replay_errors": s.replay_errors,
        "junk_lines": s.junk_lines,
        "verdicts": dict(s.verdicts),
        "seconds": round(s.seconds, 3),
        "hash_seconds": round(s.hash_seconds, 3),
        "writer_seconds": round(s.writer_seconds, 3),
        "bytes": s.bytes,
        "interrupted": s.interrupted,
        "not_histories": list(s.not_histories),
        "no_hand": list(s.no_hand),
        "unreadable": list(s.unreadable),
        "skipped": [{"path": p, "reason": why} for p, why in s.skipped],
        "renamed": [{"path": p, "member": name, "reason": why} for p, name, why in s.renamed],
        "rooms": list(s.rooms),
        "rooms_folder": s.rooms_folder,
        "stale": [n.as_dict() for n in s.stale],
        "stale_hands": sum(n.hands for n in s.stale),
        "reaudited": s.reaudited,
        "reaudit_failed": s.reaudit_failed,
        "verdict_changes": dict(s.verdict_changes),
    }
