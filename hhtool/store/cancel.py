"""Stopping an import from outside it: :class:`Cancel`, set from any thread (a signal handler, a server's stop, a test).

The library installs no signal handler: whoever runs an import decides
what stops it (``hhtool import``'s Ctrl-C handling is in
:mod:`hhtool.cli_progress`) and sets the import's cancel signal.  The
import checks it between chunks, where no DuckDB statement runs, and ends
as an interrupted import always has: the batch in progress rolls back,
everything committed before stays, and the same import run again adds the rest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Cancelled(Exception):
    """Raised inside an import once its cancel signal is set; the import catches it and reports ``interrupted``."""


class Cancel(threading.Event):
    """A cancel signal (a :class:`threading.Event`) that can also cut the transaction in progress short.

    ``set()``: stop after the transaction in progress.  ``abort()``:
    besides, interrupt the statement the import's writer thread is running
    (its transaction rolls back), for someone who will not wait for a
    commit (a second Ctrl-C).  A plain :class:`threading.Event` serves as
    a cancel signal too; it can only ``set()``.
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._interrupters: list[Callable[[], None]] = []

    def abort(self) -> bool:
        """Set, and interrupt the writer thread's statement; False when no writer thread runs (the caller's thread writes).

        In that case only the caller can stop the write at once: by raising
        :class:`KeyboardInterrupt` in the thread running the import (what a
        signal handler does), which the import also counts as interrupted.
        """
        self.set()
        with self._lock:
            interrupters = list(self._interrupters)
        for interrupt in interrupters:
            try:
                interrupt()
            except Exception:  # closed already (the import is ending): nothing left to interrupt
                pass
        return bool(interrupters)

    def on_abort(self, interrupt: Callable[[], None]) -> Callable[[], None]:
        """Have :meth:`abort` call ``interrupt`` (a writer thread's connection's); returns what undoes it."""
        with self._lock:
            self._interrupters.append(interrupt)

        def remove() -> None:
            with self._lock:
                if interrupt in self._interrupters:
                    self._interrupters.remove(interrupt)

        return remove


def check(cancel: threading.Event | None) -> None:
    """Raise :class:`Cancelled` when ``cancel`` is set."""
    if cancel is not None and cancel.is_set():
        raise Cancelled
