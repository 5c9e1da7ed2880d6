"""Pickling for the frozen dataclasses that setup.py compiles with mypyc.

A frozen dataclass pickles by its fields; the default way back sets them
one by one on an empty instance, which a compiled frozen class refuses
(``FrozenInstanceError``).  Registered here, an instance pickles as a call
of its class with its fields in order, which every build accepts: hands,
events and rule sets still cross process boundaries (the simulator's
workers, a user's own pool).
"""

from __future__ import annotations

import copyreg
import dataclasses
from typing import Any


def _reduce(obj: Any) -> tuple[type, tuple[Any, ...]]:
    return type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init)


def picklable(*classes: type) -> None:
    """Pickle instances of ``classes`` (frozen dataclasses) as a call of the class with their fields."""
    for cls in classes:
        copyreg.pickle(cls, _reduce)


def registered(cls: type) -> bool:
    """Whether ``cls`` was given to :func:`picklable`: the question of the tests, which run the pure build too.

    An unregistered class pickles in the pure build and fails only
    compiled, when an instance crosses to another process; the test asks
    this in either build, of every class that must be registered.
    """
    return copyreg.dispatch_table.get(cls) is _reduce
