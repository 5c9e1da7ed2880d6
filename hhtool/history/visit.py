"""A visitor of a hand's events, in the manner of python-chess's PGN visitor.

python-chess reads a game through a visitor: the reader calls
``visit_header``, ``visit_move``, ... and what the game becomes is the
visitor's choice, not a flag of the reader.  Here the parts are the events
of :data:`~hhtool.history.events.Event`: a subclass of :class:`EventVisitor`
writes a method for each kind it cares about, named after the class
(``visit_post_ante(self, e: PostAnte)``, ``visit_raise_to``,
``visit_does_not_show``: :func:`method_name`), :meth:`~EventVisitor.visit_other`
says what every other kind is to it, and :meth:`~EventVisitor.visit` calls
the method of an event's class.

Why a table of methods and not a chain of ``isinstance`` tests: each kind's
meaning to the visitor is one method, typed with its class, and the table is
made once per subclass, when it is defined, from the union.  A kind added to
the union reaches every visitor (by ``visit_other`` until it has a method of
its own) with no edit here, and a method named after no event class is
refused then (``TypeError``), not silently never called.  Interpreted, a
visit costs no more than a chain of three ``isinstance`` tests.

For interpreted code: a class compiled by mypyc (``setup.py``) that took
this one as its base would be compiled as a plain Python class, and there
a chain of type tests, a comparison of type pointers and a direct call
each, takes a ninth of a visit's time (``docs/architecture.md``, "One
registry of events").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from hhtool.history.events import EVENTS, Event

T = TypeVar("T")


def method_name(cls: type) -> str:
    """The visitor's method for an event class.

    >>> from hhtool.history.events import DoesNotShow
    >>> method_name(DoesNotShow)
    'visit_does_not_show'
    """
    return "visit_" + re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


METHODS: dict[type[Event], str] = {cls: method_name(cls) for cls in EVENTS}
"""Each event class's method, in the union's order."""


class EventVisitor(Generic[T]):
    """What each kind of event is to the visitor: ``visit_<class>`` methods and :meth:`visit_other`.

    ``T`` is what a visit returns (None for a visitor that keeps what it
    learns, as python-chess's builders do until ``result()``).
    """

    _methods: ClassVar[dict[type, Callable[[Any, Any], Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        known = set(METHODS.values())
        unknown = sorted(n for n in dir(cls) if n.startswith("visit_") and n != "visit_other" and n not in known)
        if unknown:
            raise TypeError(f"{cls.__name__}.{unknown[0]} is named after no event class of hhtool.history.events.Event")
        cls._methods = {event: getattr(cls, name, cls.visit_other) for event, name in METHODS.items()}

    def visit(self, e: Event) -> T:
        """The method of ``e``'s class, called with it."""
        method: Callable[[EventVisitor[T], Event], T] = self._methods[type(e)]
        return method(self, e)

    def visit_other(self, e: Event) -> T:
        """An event of a kind the visitor has no method for: an error, unless the visitor says what such events are to it."""
        raise NotImplementedError(f"{type(self).__name__} has no {method_name(type(e))}")


EventVisitor._methods = {event: EventVisitor.visit_other for event in METHODS}
