"""``hhtool serve``: the app on uvicorn, one process holding the database, its address beside the file.

While it runs, ``FILE.serve`` beside the database holds the server's
address, process id and a secret token (JSON, readable by its owner
only), so that another ``hhtool`` command that finds the database locked
says where the server is instead of only that the file is in use
(:func:`hhtool.store.db.connect` reads it), and ``stats``, ``query``,
``report`` and ``export`` read the database through the server
(:mod:`hhtool.web.cli_api`, :mod:`hhtool.web.client`).  The file
is written after the database is opened (the lock is ours) and removed
when the server stops: Ctrl-C (or SIGTERM) finishes the requests under
way, closes the connection and ends.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.store.marker import marker_path, new_token, remove_marker, write_marker
from hhtool.web.app import LOOPBACK, Progress, create_app, open_database
from hhtool.web.progress import progress_doc


IMPORT_NICE = 10
"""The nice value of the live import's worker processes: they parse and replay on the cores the pages leave idle."""

IMPORT_WORKERS = 1
"""The live import's worker processes at most (``--workers``): one holds about 130 MB, and the server with its
workers stays under 1.5 GB with one on a million hands; a second stored 100,000 hands in 15 s instead of 22 on an
idle 2-core machine, a rate a watched folder does not need (docs/serve.md, "Speed and memory")."""


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


HEAP_KEPT = 32 << 20
"""Bytes of freed memory glibc's malloc keeps for reuse in ``hhtool serve`` (:func:`keep_freed_memory`)."""


def keep_freed_memory(kept: int = HEAP_KEPT) -> bool:
    """Have glibc's malloc reuse the memory a page frees, instead of handing it back and faulting it in again.

    A cold player's page builds arrays of a few MB a column (442,050 hands
    for the busiest of ``bench/serve.py``'s players), each from fresh
    pages: by default glibc maps an allocation that large on its own and
    unmaps it when freed, or trims the heap it came from, so the next page
    takes the page faults again (2,475 for the graph's running totals
    alone, a quarter of their time).  With allocations up to ``kept``
    taken from the heap and up to four times that kept at its top, the
    graph and sessions of that page took 58 against 71 ms (p50, in one
    process); the server's peak memory stays under its 1.5 GB goal
    (``docs/performance.md``).  Returns whether the settings took (False
    where the C library is not glibc's).
    """
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3  # <malloc.h>
    return all(mallopt(option, value) == 1 for option, value in
               ((m_mmap_threshold, kept), (m_trim_threshold, 4 * kept), (m_top_pad, kept)))


def serve(
    db: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    watch: Sequence[str | Path] = (),
    workers: int = IMPORT_WORKERS,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    rooms: Rooms = NO_ROOMS,
) -> None:
    """Serve the database ``db`` until Ctrl-C or SIGTERM, importing every hand written under the folders ``watch``.

    Raises :class:`~hhtool.store.db.StoreError` (the database cannot be
    opened, or another process holds it), :class:`ServeError` (the
    address, a folder to watch that is none) before anything is served.
    The live import (:class:`hhtool.store.live.LiveImport`) runs in this
    process on the server's connection, its progress on every page; its
    worker processes at :data:`IMPORT_NICE`, so that a big folder dropped
    in takes the cores only when no page asks for them; ``workers`` of them
    at most (:data:`IMPORT_WORKERS`; 0: the import reads in this process);
    each hand it imports replayed under its room of ``rooms`` (room files, :func:`hhtool.game.room.load_rooms`).
    """
    with sigterm_as_ctrl_c():
        _serve(db, host=host, port=port, watch=watch, workers=workers, say=say, rooms=rooms)


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (``kill PID``, a service manager's stop) does what Ctrl-C does: the server stops cleanly.

    uvicorn catches both signals while it serves, finishes the requests
    under way, then raises the signal again for whoever called it, with
    the handler that was there before: Python's for SIGINT raises
    :class:`KeyboardInterrupt`, which :func:`serve` expects, but the
    default for SIGTERM ends the process at once (exit 143, ``FILE.serve``
    left behind, no ``stopped``).  Here SIGTERM raises
    :class:`KeyboardInterrupt` too, there and before the server serves.
    Only the main thread may set a handler: elsewhere nothing changes.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve(
    db: Path, *, host: str, port: int, watch: Sequence[str | Path], workers: int, say: Callable[[str], None], rooms: Rooms = NO_ROOMS
) -> None:
    """:func:`serve`, its signals set."""
    import uvicorn

    from hhtool.store.live import LiveImport
    from hhtool.store.sources import ImportPathError
    from hhtool.web.connections import BoundedH11Protocol

    keep_freed_memory()
    con = open_database(db)
    try:
        sock = bind(host, port)
    except BaseException:
        con.close()
        raise
    url = url_of(sock, host)
    marker = marker_path(db)
    live: LiveImport | None = None
    try:
        progress: Progress | None = None
        version: Callable[[], object] | None = None
        if watch:
            try:
                live = LiveImport(con, watch, exclude=(marker,), nice=IMPORT_NICE, max_workers=workers, rooms=rooms)  # the database and its log are never read
            except ImportPathError as e:
                raise ServeError(str(e)) from None
            live.start()
            running = live

            def progress() -> dict[str, Any]:
                return progress_doc(running.status())

            def version() -> object:
                return running.status().hands_stored

            say(f"watching {', '.join(str(w) for w in watch)}: every hand written there is imported")
        token = new_token()  # the local CLI's stats, query, report and export ask through the server with it
        app = create_app(db, con=con, progress=progress, hosts=LOOPBACK if is_loopback(host) else None,
                         on_close=None if live is None else live.stop, version=version, token=token)
        write_marker(db, url, token)
        say(f"serving {db} at {url} (Ctrl-C to stop)")
        if not is_loopback(host):
            say(f"warning: listening on {host}: anyone who can reach this machine can read every hand; there is no password")
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5,
                                http=BoundedH11Protocol, ws="none")
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:  # uvicorn stops on the signal, then raises it again for whoever called it
            pass
    finally:
        sock.close()
        if live is not None:
            live.stop()  # already, if the app started: its stop is the lifespan's
        remove_marker(marker)
        con.close()  # the app's lifespan closed it already, unless it never started
    say("stopped")

