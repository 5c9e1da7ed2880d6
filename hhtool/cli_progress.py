"""The terminal's side of ``hhtool import``: its progress bar, and Ctrl-C as the import's cancel signal.

The library (:func:`hhtool.store.importer.import_paths`) takes a progress
callback and a cancel signal and knows nothing of terminals or signals;
this module is what the CLI gives it.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from hhtool.store.cancel import Cancel


class Progress:
    """A one-line progress bar on a terminal, drawn at most every 0.2 s; nothing otherwise.

    Called as the import's progress callback: ``progress(bytes done, bytes total, hands)``.
    """

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start: float | None = None  # the first call: the rate counts from there
        self.last = 0.0

    def __call__(self, done_bytes: int, total_bytes: int, hands: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.start is None:
            self.start = now
        if now - self.last < 0.2:
            return
        self.last = now
        frac = min(done_bytes / max(total_bytes, 1), 1.0)
        width = 30
        bar = "#" * int(frac * width)
        elapsed = now - self.start
        rate = hands / elapsed if elapsed > 0 else 0.0
        self.stream.write(f"\r[{bar:<{width}}] {frac:4.0%}  {hands:,} hands  {rate:,.0f} hands/s ")
        self.stream.flush()

    def close(self) -> None:
        """Clear the bar's line."""
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


@contextmanager
def ctrl_c_cancels(cancel: Cancel) -> Iterator[None]:
    """Within the block, Ctrl-C sets ``cancel`` (the import stops after the transaction in progress); a second one aborts.

    The first Ctrl-C only sets the signal, which the import checks between
    chunks, where no DuckDB statement runs.  A second stops at once: with
    a writer thread, :meth:`~hhtool.store.cancel.Cancel.abort` interrupts
    its statement (the transaction rolls back) instead of raising here,
    where it could land anywhere, the process pool's shutdown included;
    without one (the import runs in this thread) it raises
    :class:`KeyboardInterrupt`, which the import counts as interrupted.
    Outside the main thread (no signal can be handled there) nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # polars, when first imported, puts its own SIGINT handler in place, and a Ctrl-C then raises
    # KeyboardInterrupt in whatever thread runs polars code -- the process pool's, unpickling a
    # chunk's frames, which breaks the pool.  Imported first, its handler is replaced by ours.
    import polars  # noqa: F401

    def handler(signum: int, frame: object) -> None:
        if not cancel.is_set():
            cancel.set()
        elif not cancel.abort():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
