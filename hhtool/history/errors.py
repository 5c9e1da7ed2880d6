"""Why a hand could not be read, and where.

Three exception types for three failures (as python-chess has for PGN):
:class:`HandParseError` -- the text is not the format (a line no rule
matches, lines out of order); :class:`IncompleteHandError` -- a hand that
stops before its summary, as the last hand of a file being written does;
:class:`InconsistentHandError` -- every line parses but the hand
contradicts itself (two seats with one name, a summary that names another
player, amounts in two currencies).  Whether the hand is *legal* under
the rules is the replay engine's business, not the parser's.

In lenient mode the reader turns any of them into an :class:`ErrorRecord`
and carries on with the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from hhtool.textsafe import term


class HandHistoryError(Exception):
    """A hand that could not be read, with its location."""

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        line_text: str | None = None,
        expected: tuple[str, ...] = (),
        hand_id: str | None = None,
        source: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.line_text = line_text
        self.expected = expected
        self.hand_id = hand_id
        self.source = source

    def location(self) -> str:
        """``file:line:column`` (the parts that are known)."""
        return _location(self.source, self.line, self.column)

    def __str__(self) -> str:
        return self.describe()

    def describe(self, *, raw: bool = False) -> str:
        """One line: where, what, what was expected; terminal-safe unless ``raw`` (see :mod:`hhtool.textsafe`)."""
        return _describe(self.location(), self.message, self.expected, self.hand_id, raw)


class HandParseError(HandHistoryError):
    """The text is not a hand in the format: no rule matches a line, or lines are out of order."""

    kind = "parse"


class IncompleteHandError(HandParseError):
    """A hand that ends before its summary is complete (a truncated file)."""

    kind = "incomplete"


class OutOfRangeError(HandParseError):
    """A number beyond what hhtool accepts (an amount, a seat, a table size, a hand's length: docs/format-notes.md, "Bounds")."""

    kind = "range"


class InconsistentHandError(HandHistoryError):
    """Every line parses, but the hand contradicts itself."""

    kind = "inconsistent"


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """A hand that failed, kept in lenient mode instead of stopping the file."""

    kind: str
    message: str
    source: str
    line: int | None
    column: int | None
    hand_id: str | None
    line_text: str | None
    expected: tuple[str, ...]
    raw: str

    @classmethod
    def from_error(cls, error: HandHistoryError, raw: str) -> ErrorRecord:
        return cls(
            kind=error.kind,
            message=error.message,
            source=error.source,
            line=error.line,
            column=error.column,
            hand_id=error.hand_id,
            line_text=error.line_text,
            expected=error.expected,
            raw=raw,
        )

    def location(self) -> str:
        return _location(self.source, self.line, self.column)

    def __str__(self) -> str:
        return self.describe()

    def describe(self, *, raw: bool = False) -> str:
        """One line: where, what, what was expected; terminal-safe unless ``raw`` (see :mod:`hhtool.textsafe`)."""
        return _describe(self.location(), f"{self.kind}: {self.message}", self.expected, self.hand_id, raw)


def _location(source: str, line: int | None, column: int | None) -> str:
    """``file:line:column``, the parts that are known."""
    parts = [source or "<text>"]
    if line is not None:
        parts.append(str(line))
        if column is not None:
            parts.append(str(column))
    return ":".join(parts)


def _describe(location: str, message: str, expected: tuple[str, ...], hand_id: str | None, raw: bool) -> str:
    """The error as one line.

    The file name and the message may hold text of the hand history (a
    name, the line's text), so unless ``raw`` every control character is
    shown escaped: an error is printed to a terminal.
    """
    text = f"{location}: {message}"
    if expected:
        text += f" (expected {_words(expected)})"
    if hand_id:
        text += f" [hand {hand_id}]"
    return text if raw else term(text)


def _words(items: tuple[str, ...]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]
