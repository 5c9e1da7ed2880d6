"""Mutated hand histories and the checks run on them, for the fuzz tests and ``bench/fuzz.py``.

The inputs start from real text -- every file of ``sample_histories/``
(the broken ones too), a few simulated sessions and generated hands --
and go through one to five mutations, each a hypothesis strategy so that
a failure shrinks to the fewest and simplest mutations: byte flips; lines
inserted, deleted, duplicated, swapped or spliced in from another
history; numbers replaced by zero, negative, huge or very long ones;
control characters; very long tokens; truncation; duplicated headers;
player names in odd Unicode; card codes changed; action words swapped;
and, structure-aware, a parsed hand changed as a hand (a field of an
event, a seat, the header or the summary; an event dropped, doubled,
moved or taken from another hand) and written back as text.

Each ``check_*`` runs one target on the bytes and asserts only what a
user is promised whatever the input: no exception escapes, every record
is a hand, an error record that names its line and says what is wrong,
or skipped junk; the replay and the audit return findings; the import's
worker returns a result with every hand stored or failed.

``Hostility`` bounds the mutations: the suite leaves out, for now, the
inputs that fail today for reasons other helpers of issue 20 are fixing
(numbers of more than 4,300 digits, values over a column's range in the
import, very long lines); ``bench/fuzz.py`` uses them all (the note of
issue 20 lists what they find, with reproducers).
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from hhtool.replay.audit import AuditResult, audit_paths, to_json, to_text
from hhtool.history.errors import ErrorRecord
from hhtool.history.events import Hand
from hhtool.history.jsonify import error_dict, hand_dict
from hhtool.history.reader import Record, Skipped, read_stream, read_text
from hhtool.replay import CODES, replay
from hhtool.game.rules import PROFILES, ROUND_NAMES, STREET_NAMES
from hhtool.history.write import write_hand
from tests.sample_paths import BROKEN, GOOD

# ------------------------------------------------------------------ the corpus


@cache
def corpus() -> tuple[bytes, ...]:
    """The texts mutations start from: the samples, simulated sessions, generated hands."""
    from hhtool.simulate import make_config, simulate_text

    texts = [p.read_bytes() for p in GOOD + BROKEN]
    configs: list[dict[str, object]] = [
        {"rules": "classic", "players": 5},
        {"rules": "stellapoker", "structure": "pot", "players": 3},
        {"rules": "italian", "structure": "no", "italian_options": "vela at start, wild 9", "players": 6},
        {"rules": "italian", "italian_options": "carte coperte", "view": "bob", "players": 4},
        {"rules": "italian", "structure": "pot", "italian_options": "una coperta", "players": 4},
        {"rules": "classic", "structure": "no", "faults": 0.5, "players": 6},
    ]
    for k, kw in enumerate(configs):
        text, _ = simulate_text(make_config(seed=20 + k, **kw), 3)  # type: ignore[arg-type]
        texts.append(text.encode("utf-8"))
    texts += [_generated(seed) for seed in range(4)]
    return tuple(texts)


@cache
def corpus_lines() -> tuple[bytes, ...]:
    """Every distinct line of the corpus, for insertions and splices."""
    return tuple(sorted({line for text in corpus() for line in text.split(b"\n")}))


@cache
def corpus_headers() -> tuple[bytes, ...]:
    return tuple(line for line in corpus_lines() if b" Hand #" in line)


# ------------------------------------------------------------------ the mutations


@dataclass(frozen=True)
class Hostility:
    """How far the mutations may go.

    ``digits``: the longest number written (Python refuses to read an
    integer of more than 4,300 digits); ``magnitude``: the largest value
    a replaced number may have when it is not a run of digits (values
    over 2**63 do not fit the store's BIGINT columns, over 127 its
    TINYINT ones); ``token``: the longest inserted token.
    """

    digits: int
    magnitude: int
    token: int


ALL = Hostility(digits=6000, magnitude=10**40, token=200_000)
"""Everything: what ``bench/fuzz.py`` runs."""

SUITE = Hostility(digits=4000, magnitude=10**40, token=4000)
"""The reader, the parse, the replay and the audit: everything but the known failures (see the module doc)."""

SUITE_IMPORT = Hostility(digits=2, magnitude=127, token=4000)
"""The import's worker: values that fit every column, until the import bounds them (issue 20)."""

_NUMBER = re.compile(rb"\d+")
_CARD = re.compile(rb"(?<![0-9A-Za-z])[2-9TJQKA][cdhs](?![0-9A-Za-z])")
_SEAT_NAME = re.compile(rb"^Seat \d+: (.+?) \(", re.M)
_WORDS = (
    b"folds", b"checks", b"calls", b"bets", b"raises", b"brings in for", b"completes it to", b"posts the ante",
    b"posts small blind", b"posts big blind", b"shows", b"mucks", b"collected", b"won", b"lost", b"showed",
    b"*** 2nd STREET ***", b"*** 3rd STREET ***", b"*** 4th STREET ***", b"*** 5th STREET ***", b"*** VELA ***",
    b"*** SHOW DOWN ***", b"*** SUMMARY ***", b"Total pot", b"Rake", b"Main pot", b"Side pot-1", b"Uncalled bet",
    b"(button)", b"in chips", b"is the button", b"Fixed Limit", b"Pot Limit", b"No Limit", b"classic",
    b"stellapoker", b"italian", b"[vela at start]", b"[wild 7]", b"[carte coperte]", b"[una coperta]", b"and is all-in",
    b"ante", b"bring-in", b"blinds", b"Dealt to", b"Vela", b"6-max", b"Seat #", b"\xe2\x82\xac", b"$", b"\xc2\xa3",
)
_CONTROLS = (
    b"\x00", b"\x07", b"\x08", b"\t", b"\x0b", b"\x0c", b"\r", b"\r\n", b"\x1b", b"\x1b[2J", b"\x1b]0;title\x07",
    b"\x1b]52;c;aGk=\x07", b"\x7f", b"\xc2\x85", b"\xc2\x9b2J", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xef\xbb\xbf",
    b"\xe2\x80\x8b", b"\xe2\x80\xae", b"\xff", b"\xfe", b"\xc3", b"\x80",
)
_CARDS = tuple(r.encode() + s.encode() for r in "23456789TJQKA" for s in "cdhs") + (
    b"Xx", b"1c", b"Tz", b"??", b"10h", b"AS", b"as", b"Ac Ac", b"[]", b"", b"[Ah", b"Ah]", b"A\xe2\x99\xa0",
)
_ODD_NAMES = st.one_of(
    st.sampled_from(
        [
            "", " ", "  x  ", "x:", ": shows", "bob (", "[", "]", "a (b) c", "Seat 1", "collected", "Dealt to",
            "\u202eevil", "\u0301", "e\u0301", "\u200b", "\ufeff", "\U0001f0a1", "名人", "ﬀ", "İ", "ß", "\u00a0",
            "a\nb", "a\rb", "a\x00b", "\x1b[2J", "\x1b]0;pwn\x07", "=1+1", "@x", "-x", "+x", "x" * 300,
        ]
    ),
    st.text(st.characters(codec="utf-8"), min_size=0, max_size=12),
)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: Sequence[bytes]) -> bytes:
    return b"\n".join(lines)


def _number(h: Hostility) -> st.SearchStrategy[bytes]:
    """A number to write in place of another: zero, negative, huge, or a long run of digits."""
    fixed = st.sampled_from(
        [b"0", b"00", b"000", b"-1", b"-0", b"1", b"2", b"7", b"9", b"10", b"11", b"99", b"127", b"128", b"255",
         b"256", b"1000", b"32767", b"32768", b"65536", b"2147483647", b"2147483648", b"4294967296",
         b"9223372036854775807", b"9223372036854775808", b"18446744073709551616", b"1e3", b"1.5", b"0x10", b"\xd9\xa3"]
    ).filter(lambda b: len(b) <= h.digits and (not b.isdigit() or int(b) <= h.magnitude))
    return st.one_of(
        fixed,
        st.integers(0, h.magnitude).map(lambda n: str(n).encode()),
        st.integers(1, h.digits).map(lambda n: b"9" * n),
    )


@st.composite
def _flip_byte(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    if not data:
        return data
    i = draw(st.integers(0, len(data) - 1))
    return data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1 :]


@st.composite
def _delete_line(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    lines = _lines(data)
    i = draw(st.integers(0, len(lines) - 1))
    return _join(lines[:i] + lines[i + 1 :])


@st.composite
def _duplicate_line(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    lines = _lines(data)
    i = draw(st.integers(0, len(lines) - 1))
    return _join(lines[: i + 1] + lines[i:])


@st.composite
def _swap_lines(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    lines = _lines(data)
    i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines)


@st.composite
def _insert_line(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """A line from another history (a header: a duplicated header), or junk."""
    lines = _lines(data)
    i = draw(st.integers(0, len(lines)))
    new = draw(
        st.one_of(
            st.sampled_from(corpus_lines()),
            st.sampled_from(corpus_headers()),
            st.sampled_from(_CONTROLS),
            st.binary(max_size=40),
            st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
        )
    )
    return _join(lines[:i] + [new] + lines[i:])


@st.composite
def _splice(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """A run of lines of another history in place of a run of this one's."""
    lines = _lines(data)
    other = _lines(draw(st.sampled_from(corpus())))
    i = draw(st.integers(0, len(lines)))
    j = draw(st.integers(i, min(len(lines), i + 20)))
    a = draw(st.integers(0, len(other)))
    b = draw(st.integers(a, min(len(other), a + 20)))
    return _join(lines[:i] + other[a:b] + lines[j:])


def _replace_match(draw: st.DrawFn, data: bytes, pattern: re.Pattern[bytes], new: Callable[[bytes], st.SearchStrategy[bytes]]) -> bytes:
    """One match of ``pattern`` (if any) replaced by a value drawn from ``new(match)``."""
    spans = [m.span() for m in pattern.finditer(data)]
    if not spans:
        return data
    a, b = draw(st.sampled_from(spans))
    return data[:a] + draw(new(data[a:b])) + data[b:]


@st.composite
def _replace_number(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    def new(old: bytes) -> st.SearchStrategy[bytes]:
        n = int(old) if len(old) <= 30 else -1
        near = [str(v).encode() for v in (n + 1, n - 1, n * 2, n // 2, n * 100) if 0 <= v <= h.magnitude and len(str(v)) <= h.digits]
        return st.one_of(st.sampled_from(near or [old]), _number(h))

    return _replace_match(draw, data, _NUMBER, new)


@st.composite
def _insert_control(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    i = draw(st.integers(0, len(data)))
    return data[:i] + draw(st.sampled_from(_CONTROLS)) + data[i:]


@st.composite
def _long_token(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    i = draw(st.integers(0, len(data)))
    unit = draw(st.sampled_from([b"x", b" ", b"[", b"(", b"9", b"\xe2\x82\xac", b"Ah ", b"\xf0\x9f\x82\xa1", b"-", b","]))
    n = draw(st.integers(1, max(1, (h.digits if unit == b"9" else h.token) // len(unit))))
    return data[:i] + unit * n + data[i:]


@st.composite
def _truncate(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    return data[: draw(st.integers(0, len(data)))]


@st.composite
def _rename(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """One player's name, everywhere it is written, in odd Unicode (control characters too)."""
    names = sorted(set(_SEAT_NAME.findall(data)))
    if not names:
        return data
    old = draw(st.sampled_from(names))
    new = draw(_ODD_NAMES).encode("utf-8", "surrogatepass")
    everywhere = draw(st.booleans())
    return data.replace(old, new) if everywhere else data.replace(old, new, 1)


@st.composite
def _other_player(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """One line's player is another seated player (out of turn, a fold twice, a stranger's cards)."""
    names = sorted(set(_SEAT_NAME.findall(data)))
    lines = _lines(data)
    if len(names) < 2:
        return data
    old, new = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    where = [k for k, line in enumerate(lines) if old in line]
    if not where:
        return data
    k = draw(st.sampled_from(where))
    lines[k] = lines[k].replace(old, new, 1)
    return _join(lines)


@st.composite
def _change_card(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    return _replace_match(draw, data, _CARD, lambda old: st.sampled_from(_CARDS))


@st.composite
def _swap_word(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """An action, street, structure or summary word in place of another."""
    present = [w for w in _WORDS if w in data]
    if not present:
        return data
    old = draw(st.sampled_from(present))
    starts = [m.start() for m in re.finditer(re.escape(old), data)]
    a = draw(st.sampled_from(starts))
    return data[:a] + draw(st.sampled_from(_WORDS)) + data[a + len(old) :]


_LITERALS: dict[str, tuple[object, ...]] = {
    "Blind": ("small", "big"),
    "Blind | None": ("small", "big", None),
    "PotName": ("pot", "main", "side"),
    "StreetName": STREET_NAMES,
    "RoundName | None": (*ROUND_NAMES, None),
    "OutcomeKind": ("folded", "won", "lost", "mucked", "collected"),
    "Exposure": ("standard", "carte_coperte", "una_coperta"),
    "Structure": ("fixed", "pot", "no"),
}
_CARD_VALUE = st.integers(8, 59)  # rank * 4 + suit, ranks 2..14 (hhtool.game.cards)


def _value(draw: st.DrawFn, kind: str, name: str, old: object, players: Sequence[str], h: Hostility) -> object:
    """A new value for a field of an event, a seat, the header, the table or the summary, of its type."""
    if kind in _LITERALS:
        return draw(st.sampled_from(_LITERALS[kind]))
    optional = kind.endswith(" | None")
    if optional and draw(st.integers(0, 4)) == 0:
        return None
    kind = kind.removesuffix(" | None")
    if kind == "int":
        n = old if isinstance(old, int) else 0
        near = [v for v in (n + 1, n - 1, n * 2, n // 2, n * 10, 0, 1, 2) if 0 <= v <= h.magnitude]
        return draw(st.one_of(st.sampled_from(near), st.integers(0, h.magnitude)))
    if kind == "bool":
        return not old
    if kind == "str" and name == "player":
        return draw(st.one_of(st.sampled_from(list(players) or ["x"]), _ODD_NAMES))
    if kind == "str":
        return draw(_ODD_NAMES)
    if kind == "Card":
        return draw(_CARD_VALUE)
    if kind == "tuple[Card, ...]":
        return tuple(draw(st.lists(_CARD_VALUE, max_size=7)))
    if kind == "tuple[int, ...]":
        return tuple(draw(st.lists(st.integers(0, h.magnitude), max_size=4)))
    return old  # a datetime, the outcomes: left as they are


def _new_fields(draw: st.DrawFn, obj: Any, players: Sequence[str], h: Hostility) -> Any:
    """``obj`` (a dataclass of hhtool.history.events) with one field changed."""
    import dataclasses

    fields = [f for f in dataclasses.fields(obj) if f.name != "line"]
    if not fields:
        return obj
    f = draw(st.sampled_from(fields))
    value = _value(draw, str(f.type), f.name, getattr(obj, f.name), players, h)
    return dataclasses.replace(obj, **{f.name: value})


@cache
def _corpus_hands() -> tuple[Hand, ...]:
    return tuple(r for text in corpus() for r in records(text) if isinstance(r, Hand))


def _edit_list(draw: st.DrawFn, items: tuple[Any, ...], foreign: Sequence[Any], players: Sequence[str], h: Hostility) -> tuple[Any, ...]:
    """One item of a list deleted, doubled, moved, changed, or one from another hand put in."""
    out = list(items)
    op = draw(st.sampled_from(["delete", "double", "move", "change", "foreign"]))
    if op == "foreign" or not out:
        if foreign:
            out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(list(foreign))))
        return tuple(out)
    k = draw(st.integers(0, len(out) - 1))
    if op == "delete":
        del out[k]
    elif op == "double":
        out.insert(k, out[k])
    elif op == "move":
        out.insert(draw(st.integers(0, len(out) - 1)), out.pop(k))
    else:
        out[k] = _new_fields(draw, out[k], players, h)
    return tuple(out)


@st.composite
def _edit_hand(draw: st.DrawFn, data: bytes, h: Hostility) -> bytes:
    """Structure-aware: one parsed hand of the text, changed as a hand (an event, a seat, the header,
    the summary), written back as text -- a hand that mostly still parses, for the replay to judge."""
    import dataclasses

    try:
        parsed = [r for r in records(data) if isinstance(r, Hand)]
    except Exception:  # the reader's crashes are check_reader's to report
        return data
    if not parsed:
        return data
    hand = draw(st.sampled_from(parsed))
    players = hand.players
    others = _corpus_hands()
    part = draw(st.sampled_from(["events", "events", "events", "seats", "outcomes", "header", "table", "summary"]))
    if part == "events":
        new = dataclasses.replace(hand, events=_edit_list(draw, hand.events, [e for o in others for e in o.events], players, h))
    elif part == "seats":
        new = dataclasses.replace(hand, seats=_edit_list(draw, hand.seats, [s for o in others for s in o.seats], players, h))
    elif part == "outcomes":
        outcomes = _edit_list(draw, hand.summary.outcomes, [x for o in others for x in o.summary.outcomes], players, h)
        new = dataclasses.replace(hand, summary=dataclasses.replace(hand.summary, outcomes=outcomes))
    else:
        whole = getattr(hand, part)
        new = dataclasses.replace(hand, **{part: _new_fields(draw, whole, players, h)})
    try:
        return write_hand(new).encode("utf-8", "surrogatepass")
    except Exception:  # a hand no parse could give (the writer's own crashes are check_parse's)
        return data


Mutator = Callable[[bytes, Hostility], st.SearchStrategy[bytes]]
MUTATORS: tuple[Mutator, ...] = (
    _edit_hand, _edit_hand, _replace_number, _swap_word, _change_card, _delete_line, _duplicate_line, _swap_lines, _insert_line,
    _splice, _rename, _other_player, _insert_control, _flip_byte, _truncate, _long_token,
)


def _generated(seed: int) -> bytes:
    import random

    from tests.handgen import generate_hand

    return generate_hand(random.Random(seed), seed).encode("utf-8")


@st.composite
def mutated(draw: st.DrawFn, h: Hostility = SUITE) -> bytes:
    """A text of the corpus, or a generated hand, after one to five mutations."""
    data = draw(st.one_of(st.sampled_from(corpus()), st.integers(0, 2**32).map(_generated)))
    for _ in range(draw(st.integers(1, 5))):
        data = draw(draw(st.sampled_from(MUTATORS))(data, h))
    return data


# ------------------------------------------------------------------ the checks

SOURCE = "fuzz.txt"
VERDICTS = {"ok", "disputed", "invalid"}


def _check_error(e: ErrorRecord, lines: int) -> None:
    """An error record says where (a line of the file) and what."""
    assert isinstance(e.message, str) and e.message.strip(), e
    # an incomplete hand is reported at the line after it, where the missing lines were due: at the end
    # of a file without a last line end, one past the last line (a choice of parse.py, noted in issue 20)
    last = lines + 1 if e.kind == "incomplete" else lines
    assert e.line is not None and 1 <= e.line <= last, (e.line, lines, str(e))
    assert e.source == SOURCE, e.source
    assert f"{SOURCE}:{e.line}" in str(e), str(e)
    assert e.raw, e


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + 1


def records(data: bytes, split: int | None = None) -> list[Record]:
    """The reader's records of ``data`` (given in two pieces cut at ``split``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pieces = [data] if split is None else [data[:split], data[split:]]
        return list(read_stream(pieces, SOURCE))


def check_reader(data: bytes, split: int | None = None) -> list[Record]:
    """Every record is a hand, a clean error or junk; pieces and strings read the same."""
    out = records(data, split)
    lines = _line_count(data)
    for r in out:
        if isinstance(r, ErrorRecord):
            _check_error(r, lines)
        elif isinstance(r, Hand):
            assert 1 <= r.first_line <= lines, (r.first_line, lines)
        else:
            assert isinstance(r, Skipped), r
    if split is not None:
        assert out == records(data), "the reader depends on where the stream's reads end"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return out
    assert list(read_text(text, SOURCE)) == out, "read_text and read_stream disagree"
    return out


def check_parse(data: bytes) -> None:
    """Every parsed hand writes back to text that parses to the same hand; hands and errors go to JSON."""
    for r in records(data):
        if isinstance(r, Hand):
            written = write_hand(r)
            again = [x for x in read_text(written, SOURCE) if not isinstance(x, Skipped)]
            assert again == [r], (written, again)
            json.dumps(hand_dict(r))
        elif isinstance(r, ErrorRecord):
            json.dumps(error_dict(r))


def check_replay(data: bytes) -> int:
    """Every parsed hand replays, under its own rules and under each profile, to a verdict; returns the replays."""
    count = 0
    for r in records(data):
        if not isinstance(r, Hand):
            continue
        for rules in (None, *PROFILES.values()):
            rep = replay(r, rules)
            quiet = replay(r, rules, explain=False)
            assert rep.verdict in VERDICTS and quiet.verdict == rep.verdict, (rep.verdict, quiet.verdict)
            assert quiet.findings == rep.findings
            for f in rep.findings:
                assert f.code in CODES, f
            count += 1
    return count


@cache
def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="hhtool-fuzz-"))


def check_audit(data: bytes) -> int:
    """``audit_paths`` on a real file, under the hands' rules and one profile's (``--rules``): no hand is
    an internal failure; every result renders as text and JSON."""
    path = _scratch() / SOURCE
    path.write_bytes(data)
    override = list(PROFILES.values())[len(data) % len(PROFILES)]
    results: list[AuditResult] = list(audit_paths([path])) + list(audit_paths([path], rules=override))
    for a in results:
        assert a.error is None or a.error.kind != "internal", a.error.message
        text = to_text(a)
        assert text.endswith("\n") and f"verdict: {a.verdict}" in text, text
        obj = to_json(a)
        assert obj["verdict"] == a.verdict
        json.dumps(obj)
    return len(results)


def chunk_tasks(data: bytes, chunk_bytes: int) -> Iterator[object]:
    """The import's tasks for one file of these bytes, cut as :func:`hhtool.store.sources.tasks` cuts them."""
    from hhtool.store.sources import read_chunks
    from hhtool.store.worker import ChunkTask

    cp1252 = False
    for index, (piece, lines, unread) in enumerate(read_chunks(io.BytesIO(data), chunk_bytes)):
        yield ChunkTask(0, index, SOURCE, piece, lines, cp1252, unread)
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            cp1252 = True


def check_worker(data: bytes, chunk_bytes: int = 1 << 20) -> int:
    """``process_chunk`` on the import's tasks: a result, every hand stored or failed, none lost."""
    from hhtool.store.worker import ChunkTask, process_chunk

    want = sum(1 for r in records(data) if not isinstance(r, Skipped))
    got = 0
    for task in chunk_tasks(data, chunk_bytes):
        assert isinstance(task, ChunkTask)
        result = process_chunk(task)
        assert result.replay_errors == 0, "the replay failed inside the import"
        assert result.frames["hands"].height == result.hands and result.frames["failed"].height == result.failed
        got += result.hands + result.failed
    assert got == want, (got, want)
    return got


TARGETS: dict[str, Callable[[bytes], object]] = {
    "reader": check_reader,
    "parse": check_parse,
    "replay": check_replay,
    "audit": check_audit,
    "worker": check_worker,
}
"""Each target's check, by name (``bench/fuzz.py`` runs them all on each input)."""
