"""The live import's status as the pages show it: a line of words, and the counts for the API (``/api/progress``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hhtool.store.live import LiveStatus


def progress_doc(s: LiveStatus) -> dict[str, Any]:
    """``{"text": ..., "active": ..., counts...}`` of a live import's snapshot (:meth:`hhtool.store.live.LiveImport.status`).

    ``active``: a file is being read, or files are pending or waiting for
    their last hand's end; else the import is idle, watching.  The text
    names files from the file system: the pages escape it as any string.
    """
    folders = ", ".join(s.folders)
    active = s.current is not None or s.pending > 0 or s.waiting > 0
    if not s.running:
        text = f"the live import of {folders} stopped" + (f": {s.errors[-1]}" if s.errors else "")
    elif active:
        what = f"importing {s.current}" if s.current is not None else f"importing from {folders}"
        more = [f"{s.pending:,} pending"] if s.pending else []
        more += [f"{s.waiting:,} waiting for a hand's end"] if s.waiting else []
        text = f"{what}: {s.hands_stored:,} hands stored since the server started" + (f" ({', '.join(more)})" if more else "")
    else:
        text = f"watching {folders}: {s.hands_stored:,} hands stored since the server started"
    if s.retrying:
        text += f"; {s.retrying:,} file{'s' if s.retrying != 1 else ''} to read again after a failed run"
    if s.incomplete:
        text += (
            f"; {s.incomplete:,} file{'s' if s.incomplete != 1 else ''} whose last hand stopped half written "
            "(kept as failed, read again if the file grows)"
        )
    if s.errors:
        text += f"; {len(s.errors)} problem{'s' if len(s.errors) != 1 else ''}, the last: {s.errors[-1]}"
    return {
        "text": text,
        "active": active,
        "running": s.running,
        "folders": list(s.folders),
        "current": s.current,
        "pending": s.pending,
        "waiting": s.waiting,
        "files": s.files,
        "hands_read": s.hands_read,
        "hands_stored": s.hands_stored,
        "duplicates": s.duplicates,
        "conflicts": s.conflicts,
        "failed": s.failed,
        "imports": s.imports,
        "last_import": s.last_import.isoformat() if s.last_import is not None else None,
        "errors": list(s.errors),
        "worker_restarts": s.worker_restarts,
        "retrying": s.retrying,
        "incomplete": s.incomplete,
    }
