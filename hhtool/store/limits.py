"""A time limit on DuckDB statements: :func:`time_limit`, which ``hhtool query`` and ``hhtool serve`` both use.

DuckDB has no setting that bounds a statement's time, and a statement can
run for ever (``SELECT count(*) FROM range(10^12)``) or for minutes with
the memory it may take (a query of the server that a web page had the
browser send).  What DuckDB has is ``interrupt()``: the connection's
statement in progress ends with an ``InterruptException``, its
transaction rolls back, and the connection answers the next statement as
before.  So a watchman thread (one for the process) interrupts the
statement once its time is up, and the block's exception becomes
:class:`TimeLimitError`, a message a person can act on.

``interrupt()`` acts on one connection object only: a cursor of a shared
connection (``con.cursor()``) is one of its own, so interrupting a
request's cursor leaves the other requests' cursors and the live import
(a cursor of its own) running.  The watchman never calls it once
the block has left (a cursor closed after it is never touched), and
calls it again every :data:`AGAIN` seconds while the block is still
running past its time: a statement started after the first interrupt
(the block may run several) is not given a new budget.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hhtool.store.db import StoreError

if TYPE_CHECKING:
    import duckdb

AGAIN = 0.05
"""Seconds between two interrupts of a block past its time: an interrupt reaches only the statement running then."""


class TimeLimitError(StoreError):
    """Statements that ran past their time limit and were interrupted; the message says which limit and what to do."""


class _Limit:
    """One block under a time limit: its connection, when its time is up, whether an interrupt was sent."""

    __slots__ = ("con", "deadline", "fired")

    def __init__(self, con: duckdb.DuckDBPyConnection, deadline: float) -> None:
        self.con = con
        self.deadline = deadline
        self.fired = False


class _Watchman:
    """One thread for every block under a time limit, asleep until the nearest deadline.

    A thread of each block's own took 0.4 ms to start on a busy 2-core
    machine, for every request of the server; this one starts once, and a
    block costs it 4 microseconds.
    An interrupt is sent under the lock that :meth:`leave` takes, so none
    reaches a connection after its block has left.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._limits: set[_Limit] = set()
        self._until: float | None = None  # the deadline the thread sleeps until (None: no limit to watch)
        self._thread: threading.Thread | None = None

    def watch(self, con: duckdb.DuckDBPyConnection, seconds: float) -> _Limit:
        limit = _Limit(con, time.monotonic() + seconds)
        with self._cond:
            self._limits.add(limit)
            if self._thread is None or not self._thread.is_alive():  # the first, or the first in a forked process
                self._thread = threading.Thread(target=self._run, name="hhtool-time-limit", daemon=True)
                self._thread.start()
            elif self._until is None or limit.deadline < self._until:
                self._cond.notify()
        return limit

    def leave(self, limit: _Limit) -> bool:
        """Stop watching ``limit``; whether its time ran out (an interrupt was sent)."""
        with self._cond:
            self._limits.discard(limit)
            return limit.fired

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for limit in self._limits:
                    if limit.deadline <= now:
                        limit.fired = True
                        limit.deadline = now + AGAIN
                        try:
                            limit.con.interrupt()
                        except Exception:  # the connection closed under the block (the server stopping): nothing to interrupt
                            pass
                self._until = min((limit.deadline for limit in self._limits), default=None)
                self._cond.wait(None if self._until is None else self._until - now)


_WATCHMAN = _Watchman()


@contextmanager
def time_limit(con: duckdb.DuckDBPyConnection, seconds: float | None, message: str) -> Iterator[None]:
    """Run the block's statements on ``con`` for ``seconds`` at most (None, 0 or infinity: no limit).

    Past that, the statement running is interrupted, and the exception it
    ends with (DuckDB's ``InterruptException``, or whatever the code in
    the block made of it) is raised as :class:`TimeLimitError` with
    ``message``.  A block that finishes as its time runs out is not an
    error: what it computed stands.
    """
    if seconds is None or not 0 < seconds < math.inf:  # 0, infinity (and NaN): no limit
        yield
        return
    limit = _WATCHMAN.watch(con, seconds)
    try:
        yield
    except Exception as e:
        if _WATCHMAN.leave(limit):
            raise TimeLimitError(message) from e
        raise
    finally:
        _WATCHMAN.leave(limit)
