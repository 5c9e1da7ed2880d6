"""``FILE.serve``: the address of the server holding a database, beside the database file.

``hhtool serve`` writes it once the database is open (the lock is its
own) and removes it as it stops (:mod:`hhtool.web.server`);
:func:`hhtool.store.db.connect` reads it when it finds the database
locked, to say where the server is, and ``stats``, ``query``, ``report``
and ``export`` read it to ask the server instead (:mod:`hhtool.web.client`).
It holds a random token the server asks of those requests
(:mod:`hhtool.web.cli_api`), so the file is made readable by its owner
only (mode 0600): whoever can read it can read the database through the
server, as whoever can read the database file can.  A file left by a server that was
killed names a process that is gone, and is not believed.  It lives with
the database's code rather than the server's because both read or write
it and the store comes first (docs/architecture.md): the server may
import the store, never the other way.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

MARKER_SUFFIX = ".serve"


def marker_path(db: Path) -> Path:
    """``FILE.serve`` beside the database ``FILE``."""
    return db.with_name(db.name + MARKER_SUFFIX)


def read_marker(db: Path) -> dict[str, object] | None:
    """The running server's ``{"url", "pid", "token"}`` for the database, or None (no file, not ours, its process gone).

    ``token`` is absent from a file written by an earlier hhtool, and from one this user may not read.
    """
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


def new_token() -> str:
    """A secret for the requests of the local CLI (:data:`hhtool.web.cli_api.TOKEN_HEADER`): 256 random bits."""
    return secrets.token_urlsafe(32)


def write_marker(db: Path, url: str, token: str | None = None) -> None:
    """Write ``FILE.serve``: mode 0600 from its creation (a file beside it, renamed over it), never readable by others for a moment.

    The file beside it is hidden (a name starting with ``.``), so a live
    import watching the database's folder never reads it.
    """
    path = marker_path(db)
    doc: dict[str, object] = {"url": url, "pid": os.getpid()}
    if token is not None:
        doc["token"] = token
    aside = path.with_name(f".{path.name}.{os.getpid()}")
    aside.unlink(missing_ok=True)
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc) + "\n")
        os.replace(aside, path)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise


def remove_marker(marker: Path) -> None:
    """Remove ``FILE.serve`` if this process wrote it (a server started since on the same file keeps its own)."""
    try:
        if json.loads(marker.read_text(encoding="utf-8")).get("pid") == os.getpid():
            marker.unlink(missing_ok=True)
    except (OSError, ValueError, AttributeError):
        pass
