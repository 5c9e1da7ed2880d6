"""Frozen dataclasses with a written ``__init__``, fast when compiled and still frozen when not.

Compiled by mypyc, a frozen dataclass is still built by the ``__init__``
its decorator writes in Python, which sets each field through
``object.__setattr__``: 0.8 µs for three fields, 2 to 3 µs for the
replay's results, several of which every hand builds.  Declared
``@dataclass(frozen=True, init=False)`` with an ``__init__`` that assigns
its fields (``self.key = key``), the compiled class stores them directly
(56 ns for three), and its instances stay frozen to every other code:
the decorator's ``__setattr__`` still refuses later assignments, and
equality, hashing, ``repr`` and ``dataclasses.fields`` are the
decorator's.

Interpreted (``HHTOOL_PURE=1``), those assignments would meet that same
``__setattr__``; :func:`written_init` gives such a class one that sets a
field once, while it has no value, and refuses afterwards as frozen does.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _set_once(self: Any, name: str, value: Any) -> None:
    try:
        getattr(self, name)
    except AttributeError:  # not set yet: the written __init__ is setting it
        object.__setattr__(self, name, value)
        return
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def written_init(*classes: type) -> None:
    """Let the written ``__init__`` of each frozen dataclass set its fields when it runs interpreted.

    A no-op for classes compiled by mypyc (they have ``__mypyc_attrs__``),
    whose ``__init__`` stores fields without calling ``__setattr__``.
    """
    for cls in classes:
        if "__mypyc_attrs__" in cls.__dict__:
            continue
        if not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen):  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__name__} is not a frozen dataclass")
        if "__slots__" not in cls.__dict__:
            # without slots, a field's class-level default would read as "set", and new attributes could be added
            raise TypeError(f"{cls.__name__} needs slots=True")
        cls.__setattr__ = _set_once  # type: ignore[method-assign]
