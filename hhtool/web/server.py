"""``hhtool serve``: the app on uvicorn, one process holding the database, its address beside the file.

While it runs, ``FILE.serve`` beside the database holds the server's
address and process id (JSON), so that another ``hhtool`` command that
finds the database locked says where the server is instead of only that
the file is in use (:func:`hhtool.store.db.connect` reads it).  The file
is written after the database is opened (the lock is ours) and removed
when the server stops: Ctrl-C (or SIGTERM) finishes the requests under
way, closes the connection and ends.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from hhtool.web.app import LOOPBACK, Progress, create_app
from hhtool.web.marker import marker_path, remove_marker, write_marker


class ServeError(Exception):
    """The server cannot start: the address is taken or cannot be bound (a usage error, exit 2)."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (``port`` 0: any free one), or :class:`ServeError` in words."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ServeError(f"--host {host}: not an address of this machine ({e.strerror})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        why = "it is in use (another server?); give another --port" if e.errno == 98 else e.strerror
        raise ServeError(f"cannot listen on {host}:{port}: {why}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def serve(
    db: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    progress: Progress | None = None,
    on_start: Callable[[object], None] | None = None,
    on_close: Callable[[], None] | None = None,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> None:
    """Serve the database ``db`` until Ctrl-C or SIGTERM.

    Raises :class:`~hhtool.store.db.StoreError` (the database cannot be
    opened, or another process holds it) or :class:`ServeError` (the
    address) before anything is served.  ``on_start`` is given the open
    connection before the first request (the live import starts there);
    ``on_close`` runs as the server stops.
    """
    import uvicorn

    from hhtool.store.db import connect

    con = connect(db)
    try:
        sock = bind(host, port)
    except BaseException:
        con.close()
        raise
    url = url_of(sock, host)
    marker = marker_path(db)
    try:
        if on_start is not None:
            on_start(con)
        app = create_app(db, con=con, progress=progress, hosts=LOOPBACK if is_loopback(host) else None, on_close=on_close)
        write_marker(db, url)
        say(f"serving {db} at {url} (Ctrl-C to stop)")
        if not is_loopback(host):
            say(f"warning: listening on {host}: anyone who can reach this machine can read every hand; there is no password")
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:  # uvicorn stops on the signal, then raises it again for whoever called it
            pass
    finally:
        sock.close()
        remove_marker(marker)
        con.close()  # the app's lifespan closed it already, unless it never started
    say("stopped")

