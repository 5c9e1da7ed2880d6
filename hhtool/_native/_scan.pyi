"""Type stub of the C accelerator ``hhtool/_native/_scan.c`` (see :func:`hhtool.history.parse._accelerator`)."""

from collections.abc import Callable, Mapping, Sequence
from datetime import tzinfo
from typing import Any

from hhtool.history.events import Hand

TERMINALS: dict[str, str]
"""The terminals it reads by hand, each as its skeleton: the pattern with its words taken out."""

def configure(
    classes: Sequence[tuple[type[Any], str]],
    kinds: list[tuple[str, str, tuple[str, ...], type[Any] | None, str | None, int, bool, str | None]],
    terminals: Mapping[str, tuple[tuple[tuple[str, object, int], ...], ...]],
    zone_info: Callable[[str], tzinfo],
    header_accepted: Callable[[Any], bool],
) -> tuple[str, ...]: ...
def parse_hand(text: str, first_line: int, source: str) -> Hand | None: ...
def newlines(text: str) -> int: ...
