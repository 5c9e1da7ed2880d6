"""Type stub of the C helper ``hhtool/_native/_columns.c`` (used by :mod:`hhtool.store.rows` and :mod:`hhtool.store.frames`)."""

from datetime import datetime
from typing import Any

def utf8(text: str) -> memoryview: ...
def epoch_us(t: datetime) -> int | None: ...

class ArrowTable:
    """A table's columns as one Arrow struct array, for ``pl.DataFrame`` (its arrays can be taken once)."""

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...

def arrow_table(columns: list[tuple[str, str, list[Any], int]], n: int) -> ArrowTable: ...
