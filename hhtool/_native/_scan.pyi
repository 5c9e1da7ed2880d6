"""Type stub of the C accelerator ``hhtool/_native/_scan.c`` (see :func:`hhtool.history.parse._accelerator`)."""

from collections.abc import Callable, Mapping, Sequence
from datetime import tzinfo
from typing import Any

from hhtool.history.events import Hand

def configure(
    classes: Sequence[tuple[type[Any], str]],
    kinds: list[tuple[str, str, tuple[str, ...], type[Any] | None, str | None, int, bool]],
    terminals: Mapping[str, str],
    zone_info: Callable[[str], tzinfo],
    header_accepted: Callable[[Any], bool],
) -> tuple[str, ...]: ...
def parse_hand(text: str, first_line: int, source: str) -> Hand | None: ...
