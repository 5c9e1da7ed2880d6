"""``FILE.serve``: the address of the server holding a database, beside the database file.

``hhtool serve`` writes it once the database is open (the lock is its
own) and removes it as it stops (:mod:`hhtool.web.server`);
:func:`hhtool.store.db.connect` reads it when it finds the database
locked, to say where the server is.  A file left by a server that was
killed names a process that is gone, and is not believed.  It lives with
the database's code rather than the server's because both read or write
it and the store comes first (docs/architecture.md): the server may
import the store, never the other way.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

MARKER_SUFFIX = ".serve"


def marker_path(db: Path) -> Path:
    """``FILE.serve`` beside the database ``FILE``."""
    return db.with_name(db.name + MARKER_SUFFIX)


def read_marker(db: Path) -> dict[str, object] | None:
    """The running server's ``{"url", "pid"}`` for the database, or None (no file, not ours, its process gone)."""
    try:
        doc = json.loads(marker_path(db).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("url"), str) or not isinstance(doc.get("pid"), int):
        return None
    try:
        os.kill(doc["pid"], 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # another user's process: alive
    return doc


def write_marker(db: Path, url: str) -> None:
    marker_path(db).write_text(json.dumps({"url": url, "pid": os.getpid()}) + "\n", encoding="utf-8")


def remove_marker(marker: Path) -> None:
    """Remove ``FILE.serve`` if this process wrote it (a server started since on the same file keeps its own)."""
    try:
        if json.loads(marker.read_text(encoding="utf-8")).get("pid") == os.getpid():
            marker.unlink(missing_ok=True)
    except (OSError, ValueError, AttributeError):
        pass
