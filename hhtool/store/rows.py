"""A parsed and replayed hand to the rows of every table, in the columns of :mod:`hhtool.store.schema`.

Runs in the import's worker processes (:mod:`hhtool.store.worker`), once
per hand: each row goes into one list per column of its table, which
:mod:`hhtool.store.frames` turns into polars frames once per chunk.  Rows
are numbered by ``local``, the hand's position in its chunk; the writer
replaces it with ``hand_key``.  Compiled with mypyc (``setup.py``), so it
imports nothing of polars.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Final

from hhtool.game.cards import card_str
from hhtool.game.rules import RuleSet, RulesError
from hhtool.history.errors import ErrorRecord
from hhtool.history.events import (
    Bet,
    BringIn,
    Call,
    Check,
    Complete,
    Fold,
    Hand,
    PostAnte,
    PostBlind,
    RaiseTo,
    Street,
    UncalledBet,
    Vela,
)
from hhtool.replay.equities import allin_adjustments
from hhtool.replay.facts import card_facts, dealt_in
from hhtool.replay.result import has_all_in
from hhtool.store.flags import FLAG_BITS, NO_SEAT, NOT_DEALT_IN, STREETS, HandFlags, saw_bits
from hhtool.store.schema import ACTIONS, CARDS, FAILED, FINDINGS, HANDS, POTS, SEAT_FLAG_COLUMNS, SEATS, TableSpec

if TYPE_CHECKING:
    from hhtool.replay import Replay

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_US: Final = timedelta(microseconds=1)
_ORDINAL_1970: Final = 719163  # date(1970, 1, 1).toordinal()


try:  # the C helper of hhtool/_native/_columns.c (not built with HHTOOL_PURE=1)
    from hhtool._native._columns import epoch_us as _epoch_us
    from hhtool._native._columns import utf8 as _utf8

    _C: Final = True
except ImportError:  # pragma: no cover - the pure build
    _C: Final = False  # type: ignore[misc]


def text_hash(text: str) -> int:
    """64-bit BLAKE2b of the text's UTF-8, as a signed BIGINT.

    Compiled, the UTF-8 comes from the string's own cache, where polars
    finds it again when the text becomes a column (one encoding, not two).
    """
    return _blake(text, b"")


def hand_hash(text: str) -> int:
    """:func:`text_hash` of ``text + "\n"`` (a hand's ``raw_text``), without making that string.

    The hand's text as the reader holds it (no final line end) already has
    its UTF-8 cache, made by the C reader; ``text + "\n"``, a new string,
    would be encoded again (twice: here and by polars) and copied.
    """
    return _blake(text, b"\n")


def _blake(text: str, end: bytes) -> int:
    """The signed 64-bit BLAKE2b of ``text``'s UTF-8 followed by ``end``."""
    h = hashlib.blake2b(_utf8(text) if _C else text.encode("utf-8"), digest_size=8)
    if end:
        h.update(end)
    return int.from_bytes(h.digest(), "little", signed=True)


def epoch_us(t: datetime) -> int:
    """``(t - 1970-01-01 UTC) // 1 µs`` of an aware datetime, from its fields.

    The same integer as the subtraction and floor division of datetimes
    and timedeltas (``tests/test_rows_epoch.py``), which cost 6,300
    instructions a hand: each made timedeltas and Python integers, and a
    floor division of timedeltas multiplies through Python integers.
    Compiled, in C (``_columns.epoch_us``): mypyc reads a datetime's fields
    as any object's attributes, 4,800 instructions a hand.
    """
    if _C:
        us = _epoch_us(t)
        if us is not None:
            return us
    off = t.utcoffset()
    if off is None:  # naive: what the subtraction says of it
        return (t - _EPOCH) // _US
    days: int = t.toordinal() - _ORDINAL_1970
    seconds: int = days * 86400 + t.hour * 3600 + t.minute * 60 + t.second - (off.days * 86400 + off.seconds)
    return seconds * 1_000_000 + t.microsecond - off.microseconds


class Rows:
    """Rows of one table, kept column by column (``names``), turned into a frame at the end.

    polars builds a frame from one list per column three to five times
    faster than from one tuple per row, and in compiled code the appends
    cost less than that difference.  The rows of every hand go in through
    the fixed-arity ``put3`` to ``put9``, each value straight to its column:
    compiled, :meth:`add`'s tuple a row (built, then read back in a loop)
    cost 1,240 instructions a row of ``actions``; value by value, a hand's
    rows take 185,000 instructions instead of 205,000 (the all-in EV apart).

    Each column is a list made ``reserve`` long at the start (of ``None``)
    whose values are written in place (:meth:`row` gives the index), not
    appended: a list grown by appends is copied every eighth of its length
    (``realloc``), which for a chunk's columns was 29,000 instructions a hand,
    3.7 % of a worker's.  The room left over is given back when the columns
    are read (:attr:`cols`); a chunk that outgrows it grows it by a quarter.
    """

    def __init__(self, names: list[str], reserve: int = 0) -> None:
        self.names = names
        self.n = 0  # the rows written
        self.cap = reserve  # the rows the columns have room for
        self.store: list[list[Any]] = [[None] * reserve for _ in names]  # the columns, with the room past ``n``

    @staticmethod
    def of(spec: TableSpec, reserve: int = 0) -> Rows:
        """The columns of a worker's frame of ``spec``: ``local`` for ``hand_key``, no ``imported_at``.

        ``seats`` has one column, ``flag_bits``, for its boolean statistics flags (see :func:`worker_columns`).
        """
        return Rows(worker_columns(spec), reserve)

    @property
    def cols(self) -> list[list[Any]]:
        """The columns, each exactly the rows written (the room past them given back)."""
        n = self.n
        if self.cap > n:
            for col in self.store:
                del col[n:]
            self.cap = n
        return self.store

    def row(self) -> int:
        """The index of a new row in every column, the room grown by a quarter first when it is used up.

        A quarter, not double: a worker's first chunk starts with no room, and the slack of doubling
        (up to half of each column) raised a worker's peak by 10 MB (docs/performance.md, "Import").
        """
        n = self.n
        if n == self.cap:
            more = (self.cap >> 2) + 64
            room: list[Any] = [None] * more
            for col in self.store:
                col.extend(room)
            self.cap += more
        self.n = n + 1
        return n

    def add(self, row: tuple[Any, ...]) -> None:
        """A row as a tuple, in the order of ``names``."""
        i = self.row()
        cols = self.store
        for k in range(len(cols)):  # compiled: an index loop, no zip iterator and pairs
            cols[k][i] = row[k]

    def put3(self, a: Any, b: Any, c: Any) -> None:
        i = self.row()
        cols = self.store
        cols[0][i] = a
        cols[1][i] = b
        cols[2][i] = c

    def put4(self, a: Any, b: Any, c: Any, d: Any) -> None:
        i = self.row()
        cols = self.store
        cols[0][i] = a
        cols[1][i] = b
        cols[2][i] = c
        cols[3][i] = d

    def put5(self, a: Any, b: Any, c: Any, d: Any, e: Any) -> None:
        i = self.row()
        cols = self.store
        cols[0][i] = a
        cols[1][i] = b
        cols[2][i] = c
        cols[3][i] = d
        cols[4][i] = e

    def put7(self, a: Any, b: Any, c: Any, d: Any, e: Any, f: Any, g: Any) -> None:
        i = self.row()
        cols = self.store
        cols[0][i] = a
        cols[1][i] = b
        cols[2][i] = c
        cols[3][i] = d
        cols[4][i] = e
        cols[5][i] = f
        cols[6][i] = g

    def put9(self, a: Any, b: Any, c: Any, d: Any, e: Any, f: Any, g: Any, h: Any, i_: Any) -> None:
        i = self.row()
        cols = self.store
        cols[0][i] = a
        cols[1][i] = b
        cols[2][i] = c
        cols[3][i] = d
        cols[4][i] = e
        cols[5][i] = f
        cols[6][i] = g
        cols[7][i] = h
        cols[8][i] = i_

    def keep(self, rows: list[int]) -> None:
        """Only the rows of these indexes, in this order."""
        self.store = [[col[i] for i in rows] for col in self.cols]
        self.n = self.cap = len(rows)


def worker_columns(spec: TableSpec) -> list[str]:
    """The columns a worker fills for ``spec``: ``local`` for ``hand_key``, no ``imported_at``, and in
    ``seats`` the one ``flag_bits`` where the table has its first boolean statistics column (and none of the others)."""
    flags = {c.name for c in SEAT_FLAG_COLUMNS}
    out: list[str] = []
    for c in spec.columns:
        if c.name == "hand_key":
            out.append("local")
        elif c.name in flags:
            if FLAG_BITS not in out:
                out.append(FLAG_BITS)
        elif c.name != "imported_at":
            out.append(c.name)
    return out


_ACTION_KIND: Final[dict[type, str]] = {BringIn: "bring_in", Bet: "bet", Call: "call", Check: "check", Fold: "fold"}
"""The ``actions.kind`` of the lines that store their type's name (the others are written where they are built)."""


POT_LISTS: Final = ("eligible", "winners", "shares")
_INT_RANGES: Final[dict[str, int]] = {"TINYINT": 2**7, "SMALLINT": 2**15, "INTEGER": 2**31, "BIGINT": 2**63, "BIGINT[]": 2**63}
"""The integer column types: a value ``v`` fits when ``-limit <= v < limit``."""
_STREET_INDEX: Final = {name: i for i, name in enumerate(STREETS)}
_N_COUNTS: Final = len(NOT_DEALT_IN) - 1
"""The per-street counts after a seat's ``flag_bits`` (:func:`hhtool.store.flags.seat_values`)."""


def _or_null(v: Any, sql: str) -> Any:
    """``v``, or None when it does not fit the integer type ``sql``."""
    limit = _INT_RANGES[sql]
    return v if v is None or -limit <= v < limit else None


def _header_rules(hand: Hand) -> RuleSet | None:
    """The rules a hand's header names (its profile and italian options), for a hand whose replay raised; None if none."""
    try:
        return hand.header.ruleset()
    except RulesError:
        return None


class RowBuilder:
    """Accumulates the rows of many hands (and failures) for one chunk."""

    def __init__(self, reserve: dict[str, int] | None = None) -> None:
        """``reserve``: the rows to make room for in each table's columns (by attribute: :meth:`sizes` of a chunk like it)."""
        room = reserve if reserve is not None else {}
        self.hands = Rows.of(HANDS, room.get("hands", 0))
        self.seats = Rows.of(SEATS, room.get("seats", 0))
        self.actions = Rows.of(ACTIONS, room.get("actions", 0))
        self.cards = Rows.of(CARDS, room.get("cards", 0))
        pots = worker_columns(POTS)
        self.pots = Rows([n for n in pots if n not in POT_LISTS], room.get("pots", 0))  # the lists come from the two below
        self.pot_eligible = Rows(["local", "pot", "eligible"], room.get("pot_eligible", 0))  # one row per player, in order
        self.pot_winners = Rows(["local", "pot", "winners", "shares"], room.get("pot_winners", 0))  # a row per winner and share
        self.findings = Rows.of(FINDINGS, room.get("findings", 0))
        self.failed = Rows.of(FAILED)
        self.local = 0

    def sizes(self) -> dict[str, int]:
        """The rows written in each table of hand rows (what a builder for a chunk like this one may reserve)."""
        return {
            "hands": self.hands.n, "seats": self.seats.n, "actions": self.actions.n, "cards": self.cards.n, "pots": self.pots.n,
            "pot_eligible": self.pot_eligible.n, "pot_winners": self.pot_winners.n, "findings": self.findings.n,
        }

    def _hand_rows(self) -> list[tuple[Rows, TableSpec]]:
        """Every table of hand rows (first column ``local``) with the table its columns are of."""
        return [
            (self.hands, HANDS), (self.seats, SEATS), (self.actions, ACTIONS), (self.cards, CARDS), (self.pots, POTS),
            (self.pot_eligible, POTS), (self.pot_winners, POTS), (self.findings, FINDINGS),
        ]

    # ------------------------------------------------------------ hands that cannot be stored

    def discard_last(self, local: int) -> None:
        """Forget the rows of hand ``local``, the last one added (an :meth:`add_hand` that raised half way)."""
        for rows, _ in self._hand_rows():
            locals_ = rows.cols[0]
            n = len(locals_)
            while n and locals_[n - 1] >= local:
                n -= 1
            if n < len(locals_):
                rows.keep(list(range(n)))
        self.local = local

    def out_of_range(self) -> dict[int, str]:
        """The hands with a value beyond its column's type (``local`` -> what and where), found by looking at every value.

        The import's last line of defence (:func:`hhtool.store.worker.process_chunk`
        calls it only when a chunk's frames could not be built): the parser's
        bounds keep the values it reads inside their columns, but not, say,
        the number of findings the replay makes.  A value of a ``failed`` row
        that does not fit (a line past 2**31) becomes NULL: it has no other row to go to.
        """
        bad: dict[int, str] = {}
        for rows, spec in self._hand_rows():
            types = {c.name: c.sql for c in spec.columns}
            locals_ = rows.cols[0]
            for name, col in zip(rows.names, rows.cols):
                sql = types.get(name, "")
                limit = _INT_RANGES.get(sql)
                if limit is None:
                    continue
                for i, v in enumerate(col):
                    if v is not None and not -limit <= v < limit and locals_[i] not in bad:
                        shown = f"{v:,}" if abs(v) < 10**30 else f"{'-' if v < 0 else ''}about 2**{abs(v).bit_length() - 1}"
                        bad[locals_[i]] = (
                            f"{spec.name}.{name} would be {shown}, beyond its type {sql} "
                            f"({-limit:,} to {limit - 1:,}): the hand cannot be stored (docs/schema.md, \"Bounds\")"
                        )
        types = {c.name: c.sql for c in FAILED.columns}
        for name, col in zip(self.failed.names, self.failed.cols):
            sql = types.get(name, "")
            if sql in _INT_RANGES and name != "raw_hash":
                for i, v in enumerate(col):
                    col[i] = _or_null(v, sql)
        return bad

    def drop(self, bad: dict[int, str]) -> list[str]:
        """Move the hands ``bad`` names to ``failed`` (kind ``range``, with their text and why); returns their verdicts.

        The other hands are numbered again from 0, in order, as the writer expects.
        """
        h = self.hands
        col = {name: c for name, c in zip(h.names, h.cols)}
        verdicts = []
        for local in sorted(bad):
            first = _or_null(col["first_line"][local], "INTEGER")
            raw = col["raw_text"][local] + "\n"  # the column holds the text without its final line end (frames add it)
            self.failed.add((
                text_hash(raw), col["file"][local], first, None, first, col["hand_id"][local], "range", bad[local],
                None, None, raw,
            ))
            verdicts.append(str(col["verdict"][local]))
        number: dict[int, int] = {}
        for local in range(self.local):
            if local not in bad:
                number[local] = len(number)
        for rows, _ in self._hand_rows():
            locals_ = rows.cols[0]
            rows.keep([i for i in range(len(locals_)) if locals_[i] not in bad])
            rows.cols[0] = [number[v] for v in rows.cols[0]]
        self.local = len(number)
        return verdicts

    # ------------------------------------------------------------ failures

    def add_failed(self, err: ErrorRecord, source: str, first_line: int, offset: int) -> None:
        self.failed.add((
            text_hash(err.raw),
            source,
            err.line + offset if err.line is not None else first_line,
            err.column,
            first_line,
            err.hand_id,
            err.kind,
            err.message,
            err.line_text,
            ", ".join(err.expected) if err.expected else None,
            err.raw,
        ))

    # ------------------------------------------------------------ hands

    def add_hand(
        self, hand: Hand, raw: str, source: str, offset: int, result: Replay | None, error: str | None,
        room: str | None = None, rules_digest: str | None = None,
    ) -> str:
        """Add a parsed hand's rows; returns its verdict.

        ``raw``: the hand's text, stored (``raw_text``) ending with a line end:
        the worker gives it as the reader holds it, without one, whose UTF-8
        the C reader has made already (:func:`hand_hash`); a text that ends
        with one is stored as it is.  The column holds the text without that
        line end, which :func:`hhtool.store.frames.frames` adds in polars.
        ``room`` and ``rules_digest``: the name and :attr:`~hhtool.game.room.Room.digest`
        of the room whose file governed the replay (None: the profile's own rules).
        """
        number = self.local
        self.local = number + 1
        # boxed once: compiled, an int passed where a value is Any is boxed at each call, and a hand's local
        # (past 256 in most of a chunk) is a new Python int at each of its 45 rows or so
        local: object = number
        text = raw[:-1] if raw.endswith("\n") else raw
        h = hand.header
        t = hand.table
        s = hand.summary
        verdict = result.verdict if result is not None else "error"

        # findings
        if result is not None:
            findings = [(f.code, f.severity, f.line, f.message, f.caused_by) for f in result.findings]
        else:
            findings = [("replay_error", "error", h.line, error or "the replay failed", None)]
        finding_rows = self.findings
        for seq, (code, severity, line, message, cause) in enumerate(findings):
            finding_rows.put7(local, seq, code, severity, line + offset, message, cause)

        # the cards, as the replay read them (or, when it raised, the same reading of the events alone)
        facts = result.facts if result is not None else card_facts(hand)
        card_rows = self.cards
        for seen in facts.cards:
            card_rows.put5(local, seen.holder, seen.street, card_str(seen.card), seen.up)

        # actions, the history's money lines with their line numbers, each fed to the statistics' flags
        action_rows = self.actions
        rules = result.rules if result is not None else _header_rules(hand)
        if result is not None:
            dealt = set(result.stacks)
        else:
            dealt = dealt_in(hand)
        flags = HandFlags(
            h.bring_in is not None,
            rules.cap_bets if rules is not None and h.structure == "fixed" else 0,
            rules is not None and rules.cap_heads_up,
            {seat.player: seat.stack for seat in hand.seats if seat.player in dealt},
            rules is not None and rules.big_blind_is_bet,
        )
        street = "2nd"
        si = 0  # the street's index in _STREET_INDEX
        seq = 0
        for e in hand.events:
            if isinstance(e, (Check, Fold)):
                action_rows.put9(local, seq, e.line + offset, street, e.player, _ACTION_KIND[type(e)], None, None, False)
            elif isinstance(e, (BringIn, Bet, Call)):
                action_rows.put9(local, seq, e.line + offset, street, e.player, _ACTION_KIND[type(e)], e.amount, None, e.all_in)
            elif isinstance(e, RaiseTo):
                action_rows.put9(local, seq, e.line + offset, street, e.player, "raise", e.by, e.to, e.all_in)
            elif isinstance(e, Complete):
                action_rows.put9(local, seq, e.line + offset, street, e.player, "complete", None, e.to, e.all_in)
            elif isinstance(e, PostAnte):
                action_rows.put9(local, seq, e.line + offset, street, e.player, "ante", e.amount, None, e.all_in)
            elif isinstance(e, PostBlind):
                action_rows.put9(local, seq, e.line + offset, street, e.player, f"{e.blind}_blind", e.amount, None, e.all_in)
            elif isinstance(e, UncalledBet):
                action_rows.put9(local, seq, e.line + offset, street, e.player, "uncalled", e.amount, None, False)
            else:
                if isinstance(e, Street):
                    street = e.name
                    si = _STREET_INDEX[street]
                elif isinstance(e, Vela):
                    street = "vela"
                    si = _STREET_INDEX["vela"]
                continue
            flags.line(si, e)
            seq += 1

        # seats, with the statistics' flags of each
        seat_rows = self.seats
        outcomes = {o.seat: o for o in s.outcomes}
        answers = flags.answers()
        vela_card = facts.vela
        has_vela = vela_card is not None
        vela_rules = rules.has_vela if rules is not None else has_vela
        reached = facts.reached
        showdown_players = facts.showdown
        starting = facts.starting
        categories: dict[str, str] = {}
        adjust: dict[str, int] = {}
        if result is not None:
            claimed = result.claimed
            due = result.payouts
            stacks = result.stacks
            categories = result.categories
            if has_all_in(result):  # only hands with an all-in pay for the pricing
                adjust = allin_adjustments(result)
        for seat in hand.seats:
            p = seat.player
            o = outcomes.get(seat.seat)
            went = p in showdown_players
            fold_street = o.street if o is not None else None
            dealt_in_hand = p in dealt
            pair = starting.get(p)
            invested: int | None = None
            got: int | None = None
            owed: int | None = None
            net: int | None = None
            allin_net: int | None = None
            won = False
            if result is not None:
                got = claimed.get(p, 0)
                owed = due.get(p, 0)
                invested = seat.stack + owed - stacks[p] if p in stacks else 0
                net = got - invested
                allin_net = net + adjust.get(p, 0)
                won = went and got > 0
            # each value straight to its column (see Rows): the order of ``seats.names``
            r = seat_rows.row()
            sc = seat_rows.store
            sc[0][r] = local
            sc[1][r] = seat.seat
            sc[2][r] = p
            sc[3][r] = seat.stack
            sc[4][r] = dealt_in_hand
            sc[5][r] = seat.seat == t.button
            sc[6][r] = invested
            sc[7][r] = got
            sc[8][r] = owed
            sc[9][r] = net
            sc[10][r] = went
            sc[11][r] = won
            sc[12][r] = o.outcome if o is not None else None
            sc[13][r] = fold_street
            # the statistics: the flags' bits, then the counts (flags.seat_values, without its tuple)
            if dealt_in_hand:
                answer = answers.get(p)
                sf = NO_SEAT if answer is None else answer
                sc[14][r] = sf.bits | saw_bits(reached, has_vela, fold_street, vela_rules)
                counts = sf.counts
                for j in range(_N_COUNTS):
                    sc[15 + j][r] = counts[j]
            else:
                for j in range(_N_COUNTS + 1):
                    sc[14 + j][r] = 0
            k = 15 + _N_COUNTS
            sc[k][r] = None if pair is None else card_str(pair[0])
            sc[k + 1][r] = None if pair is None else card_str(pair[1])
            sc[k + 2][r] = categories.get(p)
            sc[k + 3][r] = allin_net

        # pots
        if result is not None:
            pot_rows = self.pots
            eligible_rows = self.pot_eligible
            winner_rows = self.pot_winners
            for i, pot in enumerate(result.pots):
                pot_rows.put5(local, i, pot.name, pot.amount, pot.rake)
                for player in pot.eligible:
                    eligible_rows.put3(local, i, player)
                for player, share in pot.winners.items():
                    winner_rows.put4(local, i, player, share)

        # the hand
        m = hand.money
        self.hands.add((
            local, h.site, h.hand_id, source, h.line + offset, h.profile, h.vela_at_start, h.wild, h.exposure,
            h.structure, m.symbol, "cent" if m.cents else "chip", h.small_bet, h.big_bet, h.ante, h.bring_in,
            h.small_blind, h.big_blind, epoch_us(h.started), h.zone, t.name, t.max_seats, t.button,
            len(hand.seats), len(dealt), s.total, s.rake, card_str(vela_card) if vela_card is not None else None,
            facts.has_showdown, verdict, len(findings), hand_hash(text), text, room, rules_digest,
        ))
        return verdict
