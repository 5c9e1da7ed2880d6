"""The integrity screen's strata read from a database, for the tests that check them against a walk of the hands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from hhtool.collusion import spots
from hhtool.stats.filters import Filters
from hhtool.store.db import connect

if TYPE_CHECKING:
    import duckdb


@contextmanager
def strata_tables(db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to ``db`` holding the screen's temporary tables up to ``istr`` (every hand in scope)."""
    con = connect(db, read_only=True)
    try:
        spots.scoped_hands(con, Filters())
        spots.decisions(con)
        spots.quick_reads(con)
        spots.read_strata(con)
        yield con
    finally:
        con.close()
