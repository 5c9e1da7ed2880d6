"""Strings from a hand history made safe for a terminal, a spreadsheet and ``cat``-ed JSON.

Every string a hand history holds (player and table names, chat, the site,
the text of a line quoted in an error, even the names of the files it came
in) is written by someone else, and a player name may hold any character
but a line end.  Written raw to a terminal, ``ESC ] 0 ; ... BEL`` sets the
window title, ``ESC [ 2 J`` clears the screen, OSC 52 writes the clipboard,
the one-byte C1 CSI ``\\x9b`` does what ``ESC [`` does, and a bare CR moves
the cursor back so that what follows overwrites the line.  Opened in a
spreadsheet, a CSV cell ``=HYPERLINK(...)`` is a formula.

So the renderers write every such string through these functions, and the
commands that print hand-history strings take ``--raw`` for programs that
want the bytes as they were.  The rule (also in ``docs/format-notes.md``):

* :func:`term` shows each *unsafe* code point as a visible escape, the way
  Python writes it in a string literal: ``\\t``, ``\\n``, ``\\r`` by name,
  others ``\\xNN`` (up to U+00FF) or ``\\uNNNN``.  Unsafe: C0 controls
  U+0000-U+001F (tab and newline too: inside a value they would break a
  table's columns or forge a line), DEL U+007F, C1 controls U+0080-U+009F,
  the line and paragraph separators U+2028/U+2029 (line breaks to some
  terminals and tools), the bidirectional marks and controls U+061C,
  U+200E, U+200F, U+202A-U+202E, U+2066-U+2069 (they reorder what is shown,
  as in "Trojan Source", CVE-2021-42574), and lone surrogates
  U+D800-U+DFFF (a file name that is not UTF-8; they cannot be encoded).
  Everything else, accents, CJK, emoji with their joiners, is kept.  A
  backslash is not doubled: the display is for people (a name typed as
  ``a\\x1b`` looks like one holding ESC); ``--raw`` and JSON are exact.
* :func:`term_lines` does the same but keeps ``\\n``, for a text of several
  lines that we composed ourselves (a report, DuckDB's error message).
* :func:`csv_cell` applies OWASP's CSV-injection rule to a *string* cell:
  one starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading
  ``'``, which spreadsheets show as text and hide.  Numbers are never
  passed to it (a numeric column stays a number, ``-5`` included), but a
  string ``"-5"`` from a name is prefixed like any other.
* :func:`json_text` escapes, in JSON text, the unsafe code points JSON
  leaves raw (DEL, C1, U+2028/2029, bidi controls, lone surrogates) as
  ``\\uNNNN``: the JSON means exactly the same, so it needs no ``--raw``.

None of this is on the import's hot path: it runs when results are shown.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

_UNSAFE_RANGES: Final = (
    (0x00, 0x1F),  # C0
    (0x7F, 0x9F),  # DEL, C1
    (0x061C, 0x061C),  # Arabic letter mark
    (0x200E, 0x200F),  # LRM, RLM
    (0x2028, 0x202E),  # line and paragraph separators; LRE, RLE, PDF, LRO, RLO
    (0x2066, 0x2069),  # LRI, RLI, FSI, PDI
)
_SURROGATES: Final = (0xD800, 0xDFFF)


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


_UNSAFE: Final = re.compile(_class((*_UNSAFE_RANGES, _SURROGATES)))
_UNSAFE_BUT_NEWLINE: Final = re.compile(_class(((0x00, 0x09), (0x0B, 0x1F), *_UNSAFE_RANGES[1:], _SURROGATES)))
# what JSON text can still hold raw: json.dumps(ensure_ascii=False) and polars escape C0 themselves
_JSON_RAW: Final = re.compile(_class((*_UNSAFE_RANGES[1:], _SURROGATES)))
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
FORMULA_PATTERN: Final = "^[=+@\\-\t\r]"
"""The start of a CSV cell that a spreadsheet runs as a formula (OWASP); a pattern both Python and polars read."""
_FORMULA: Final = re.compile(FORMULA_PATTERN)


def _show(ch: str) -> str:
    """How :func:`term` shows one unsafe code point."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _escape(m: re.Match[str]) -> str:
    return _show(m.group())


ESCAPES: Final = {chr(c): _show(chr(c)) for a, b in _UNSAFE_RANGES for c in range(a, b + 1)}
"""Each unsafe code point but the surrogates, and how :func:`term` shows it: for vectorised replacement (polars)."""


def term(s: str) -> str:
    """``s`` with every unsafe code point (newline included) shown as a visible escape."""
    if _UNSAFE.search(s) is None:
        return s
    return _UNSAFE.sub(_escape, s)


def term_lines(s: str) -> str:
    """Like :func:`term`, but line ends stay line ends: for a text of several lines we composed."""
    if _UNSAFE_BUT_NEWLINE.search(s) is None:
        return s
    return _UNSAFE_BUT_NEWLINE.sub(_escape, s)


def csv_cell(s: str) -> str:
    """A string cell that a spreadsheet will not run as a formula (OWASP: a leading ``'``)."""
    return "'" + s if _FORMULA.match(s) else s


def csv_text(s: str) -> str:
    """A string cell of CSV that is shown on a terminal or opened in a spreadsheet: :func:`term`, then :func:`csv_cell`."""
    return csv_cell(term(s))


def json_text(text: str) -> str:
    """JSON text with the code points that JSON leaves raw but a terminal obeys written as ``\\uNNNN``.

    Outside strings, JSON text holds only ASCII punctuation, digits,
    letters and white space, so every such code point is inside a string,
    where ``\\uNNNN`` means the same character.
    """
    if _JSON_RAW.search(text) is None:
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False, ...)``, safe to ``cat`` to a terminal (see :func:`json_text`)."""
    return json_text(json.dumps(obj, ensure_ascii=False, **kwargs))


def columns(text: str) -> int:
    """The columns ``text`` takes in a terminal: East Asian wide characters two, combining marks and format characters
    (zero-width joiners, variation selectors) none.  What the players grid, the forum text and the import's summary
    measure a name by, so that a line cut to 80 columns is 80 on the screen."""
    if text.isascii():
        return len(text)
    import unicodedata

    n = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def wrap(text: str, width: int = 80, indent: str = "    ") -> list[str]:
    """``text`` (one line, already made safe) in lines of at most ``width`` columns (:func:`columns`), the lines after the first indented.

    Broken at spaces; a word wider than a line (a long name) is cut where the line is full.
    """
    out: list[str] = []
    line: str | None = None  # the line being filled, its indent included; None: no word on it yet
    for word in text.split(" "):
        candidate = f"{line} {word}" if line is not None else (indent if out else "") + word
        if columns(candidate) <= width:
            line = candidate
            continue
        if line is not None:
            out.append(line)
            candidate = indent + word
            if columns(candidate) <= width:
                line = candidate
                continue
        while columns(candidate) > width:
            cut = _fit(candidate, width)
            out.append(candidate[:cut])
            candidate = indent + candidate[cut:]
        line = candidate
    if line is not None:
        out.append(line)
    return [o.rstrip() for o in out] or [""]


def _fit(text: str, width: int) -> int:
    """How many characters of ``text`` fit in ``width`` columns."""
    used = 0
    for k, ch in enumerate(text):
        used += columns(ch)
        if used > width:
            return max(k, 1)
    return len(text)
