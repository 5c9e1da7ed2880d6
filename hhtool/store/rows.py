"""The worker's half of an import: a chunk of a file's bytes in, polars frames of rows out.

A worker process gets :class:`ChunkTask` (a piece of a file cut at a blank
line, with the number of lines before it), splits it into hands with the
reader, parses and replays each, and returns a :class:`ChunkResult`: one
polars frame per table, every hand numbered by ``local`` (its position in
the chunk) instead of the ``hand_key`` that only the writer can give.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from ..cards import card_str
from ..errors import ErrorRecord, HandHistoryError
from ..events import (
    Bet,
    BringIn,
    Call,
    Check,
    Complete,
    Deal,
    DoesNotShow,
    Expose,
    Fold,
    Hand,
    Mucks,
    PostAnte,
    PostBlind,
    RaiseTo,
    ShowDown,
    Shows,
    Street,
    UncalledBet,
    Vela,
)
from .schema import ACTIONS, CARDS, FAILED, FINDINGS, HANDS, POTS, SEATS, TableSpec

if TYPE_CHECKING:
    import polars as pl

    from ..replay import Replay

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_US = timedelta(microseconds=1)


def text_hash(text: str) -> int:
    """64-bit BLAKE2b of the text, as a signed BIGINT."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """A piece of one file: whole hands, cut at a blank line."""

    unit: int  # the file's number in this import
    index: int  # the chunk's number within the file
    source: str  # files.path
    data: bytes
    line_offset: int  # lines of the file before this chunk
    cp1252: bool  # the file switched to Windows-1252 before this chunk


@dataclass(slots=True)
class ChunkResult:
    unit: int
    index: int
    frames: dict[str, pl.DataFrame]
    hands: int = 0  # parsed
    failed: int = 0
    junk_lines: int = 0
    replay_errors: int = 0
    cp1252: bool = False
    verdicts: dict[str, int] = field(default_factory=dict)


def polars_dtype(sql: str) -> Any:
    import polars as pl

    simple: dict[str, Any] = {
        "BIGINT": pl.Int64,
        "INTEGER": pl.Int32,
        "SMALLINT": pl.Int16,
        "TINYINT": pl.Int8,
        "BOOLEAN": pl.Boolean,
        "VARCHAR": pl.Utf8,
        "TIMESTAMPTZ": pl.Datetime("us", "UTC"),
    }
    if sql.endswith("[]"):
        return pl.List(simple[sql[:-2]])
    return simple[sql]


def frame_schema(spec: TableSpec) -> dict[str, Any]:
    """The polars schema of a worker frame for ``spec``: ``local`` for ``hand_key``, no ``imported_at``."""
    import polars as pl

    out: dict[str, Any] = {}
    for c in spec.columns:
        if c.name == "hand_key":
            out["local"] = pl.Int32
        elif c.name != "imported_at":
            out[c.name] = polars_dtype(c.sql)
    return out


class _Columns:
    """Rows of one table, kept as a list per column."""

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.schema = frame_schema(spec)
        self.cols: dict[str, list[Any]] = {name: [] for name in self.schema}

    def frame(self) -> pl.DataFrame:
        import polars as pl

        schema = dict(self.schema)
        if "started_at" in schema:  # built as epoch microseconds, cast below
            schema["started_at"] = pl.Int64
        df = pl.DataFrame(self.cols, schema=schema)
        if "started_at" in self.schema:
            df = df.with_columns(pl.col("started_at").cast(self.schema["started_at"]))
        return df


_ACTION_KIND: dict[type, str] = {
    BringIn: "bring_in",
    Complete: "complete",
    Bet: "bet",
    Call: "call",
    RaiseTo: "raise",
    Check: "check",
    Fold: "fold",
}


class RowBuilder:
    """Accumulates the rows of many hands (and failures) for one chunk."""

    def __init__(self) -> None:
        self.hands = _Columns(HANDS)
        self.seats = _Columns(SEATS)
        self.actions = _Columns(ACTIONS)
        self.cards = _Columns(CARDS)
        self.pots = _Columns(POTS)
        self.findings = _Columns(FINDINGS)
        self.failed = _Columns(FAILED)
        self.local = 0

    def frames(self) -> dict[str, pl.DataFrame]:
        return {
            "hands": self.hands.frame(),
            "seats": self.seats.frame(),
            "actions": self.actions.frame(),
            "cards": self.cards.frame(),
            "pots": self.pots.frame(),
            "findings": self.findings.frame(),
            "failed": self.failed.frame(),
        }

    # ------------------------------------------------------------ failures

    def add_failed(self, err: ErrorRecord, source: str, first_line: int, offset: int) -> None:
        c = self.failed.cols
        c["raw_hash"].append(text_hash(err.raw))
        c["file"].append(source)
        c["line"].append(err.line + offset if err.line is not None else first_line)
        c["col"].append(err.column)
        c["first_line"].append(first_line)
        c["hand_id"].append(err.hand_id)
        c["kind"].append(err.kind)
        c["message"].append(err.message)
        c["line_text"].append(err.line_text)
        c["expected"].append(", ".join(err.expected) if err.expected else None)
        c["raw_text"].append(err.raw)

    # ------------------------------------------------------------ hands

    def add_hand(self, hand: Hand, raw: str, source: str, offset: int, result: Replay | None, error: str | None) -> str:
        """Add a parsed hand's rows; returns its verdict."""
        local = self.local
        self.local += 1
        h = hand.header
        t = hand.table
        s = hand.summary
        verdict = result.verdict if result is not None else "error"

        # findings
        fc = self.findings.cols
        findings: list[tuple[str, str, int, str]] = []
        if result is not None:
            findings = [(f.code, f.severity, f.line, f.message) for f in result.findings]
        else:
            findings = [("replay_error", "error", h.line, error or "the replay failed")]
        for seq, (code, severity, line, message) in enumerate(findings):
            fc["local"].append(local)
            fc["seq"].append(seq)
            fc["code"].append(code)
            fc["severity"].append(severity)
            fc["line"].append(line + offset)
            fc["message"].append(message)

        # actions and cards, walking the events once
        ac = self.actions.cols
        cc = self.cards.cols
        street = "2nd"
        seq = 0
        seen: dict[tuple[str | None, int], int] = {}  # (owner, card) -> row in cards
        exposure = h.exposure
        showdown_players: set[str] = set()
        dealt: set[str] = set()
        has_showdown = False
        vela_card = None

        def card(owner: str | None, c: int, st: str, up: bool, exposed: bool = False) -> None:
            key = (owner, c)
            row = seen.get(key)
            if row is not None:
                if exposed:
                    cc["up"][row] = True
                return
            seen[key] = len(cc["card"])
            cc["local"].append(local)
            cc["player"].append(owner)
            cc["street"].append(st)
            cc["card"].append(card_str(c))
            cc["up"].append(up)

        def action(line: int, player: str, kind: str, amount: int | None, to: int | None, all_in: bool) -> None:
            nonlocal seq
            ac["local"].append(local)
            ac["seq"].append(seq)
            ac["line"].append(line + offset)
            ac["street"].append(street)
            ac["player"].append(player)
            ac["kind"].append(kind)
            ac["amount"].append(amount)
            ac["to_amount"].append(to)
            ac["all_in"].append(all_in)
            seq += 1

        for e in hand.events:
            tp = type(e)
            kind = _ACTION_KIND.get(tp)
            if kind is not None:
                if tp is RaiseTo:
                    assert isinstance(e, RaiseTo)
                    action(e.line, e.player, kind, e.by, e.to, e.all_in)
                elif tp is Complete:
                    assert isinstance(e, Complete)
                    action(e.line, e.player, kind, None, e.to, e.all_in)
                elif tp is Check or tp is Fold:
                    assert isinstance(e, (Check, Fold))
                    action(e.line, e.player, kind, None, None, False)
                else:
                    assert isinstance(e, (BringIn, Bet, Call))
                    action(e.line, e.player, kind, e.amount, None, e.all_in)
            elif tp is Deal:
                assert isinstance(e, Deal)
                if street == "2nd":
                    dealt.add(e.player)
                if e.new is None:
                    known = e.known or ()
                    if street == "2nd":
                        last = len(known) - 1
                        for i, c in enumerate(known):
                            card(e.player, c, street, i == last and exposure != "carte_coperte")
                    else:
                        for c in known:
                            card(e.player, c, street, exposure == "standard")
                else:
                    for c in e.known or ():
                        card(e.player, c, street, exposure != "carte_coperte")
                    up = exposure == "standard" or (exposure == "una_coperta" and street != "5th")
                    for c in e.new:
                        card(e.player, c, street, up)
            elif tp is Street:
                assert isinstance(e, Street)
                street = e.name
            elif tp is PostAnte:
                assert isinstance(e, PostAnte)
                dealt.add(e.player)
                action(e.line, e.player, "ante", e.amount, None, e.all_in)
            elif tp is PostBlind:
                assert isinstance(e, PostBlind)
                dealt.add(e.player)
                action(e.line, e.player, f"{e.blind}_blind", e.amount, None, e.all_in)
            elif tp is UncalledBet:
                assert isinstance(e, UncalledBet)
                action(e.line, e.player, "uncalled", e.amount, None, False)
            elif tp is Vela:
                assert isinstance(e, Vela)
                street = "vela"
                vela_card = e.card
                card(None, e.card, "vela", True)
            elif tp is Expose:
                assert isinstance(e, Expose)
                for c in e.cards:
                    card(e.player, c, street, True, exposed=True)
            elif tp is Shows:
                assert isinstance(e, Shows)
                has_showdown = True
                showdown_players.add(e.player)
                for c in e.cards:
                    card(e.player, c, "showdown", False)
            elif tp is Mucks or tp is DoesNotShow:
                assert isinstance(e, (Mucks, DoesNotShow))
                has_showdown = True
                showdown_players.add(e.player)
            elif tp is ShowDown:
                has_showdown = True
        if vela_card is None and s.vela is not None:
            vela_card = s.vela
            card(None, s.vela, "vela", True)

        # seats
        sc = self.seats.cols
        outcomes = {o.seat: o for o in s.outcomes}
        claimed = result.claimed if result is not None else {}
        due = result.payouts if result is not None else {}
        stacks = result.stacks if result is not None else {}
        if result is not None:
            dealt = set(stacks)
        for seat in hand.seats:
            p = seat.player
            o = outcomes.get(seat.seat)
            sc["local"].append(local)
            sc["seat"].append(seat.seat)
            sc["player"].append(p)
            sc["stack"].append(seat.stack)
            sc["dealt_in"].append(p in dealt)
            sc["button"].append(seat.seat == t.button)
            got = claimed.get(p, 0)
            if result is None:
                invested: int | None = None
            elif p in stacks:
                invested = seat.stack + due.get(p, 0) - stacks[p]
            else:
                invested = 0
            sc["invested"].append(invested)
            sc["collected"].append(got if result is not None else None)
            sc["due"].append(due.get(p, 0) if result is not None else None)
            sc["net"].append(got - invested if invested is not None else None)
            went = p in showdown_players
            sc["went_to_showdown"].append(went)
            sc["won_at_showdown"].append(went and got > 0)
            sc["outcome"].append(o.outcome if o is not None else None)
            sc["fold_street"].append(o.street if o is not None else None)

        # pots
        if result is not None:
            pc = self.pots.cols
            for i, pot in enumerate(result.pots):
                pc["local"].append(local)
                pc["pot"].append(i)
                pc["name"].append(pot.name)
                pc["amount"].append(pot.amount)
                pc["rake"].append(pot.rake)
                pc["eligible"].append(list(pot.eligible))
                pc["winners"].append(list(pot.winners))
                pc["shares"].append(list(pot.winners.values()))

        # the hand
        hc = self.hands.cols
        m = hand.money
        hc["local"].append(local)
        hc["site"].append(h.site)
        hc["hand_id"].append(h.hand_id)
        hc["file"].append(source)
        hc["first_line"].append(h.line + offset)
        hc["profile"].append(h.profile)
        hc["vela_at_start"].append(h.vela_at_start)
        hc["wild_rank"].append(h.wild)
        hc["exposure"].append(h.exposure)
        hc["structure"].append(h.structure)
        hc["currency"].append(m.symbol)
        hc["unit"].append("cent" if m.cents else "chip")
        hc["small_bet"].append(h.small_bet)
        hc["big_bet"].append(h.big_bet)
        hc["ante"].append(h.ante)
        hc["bring_in"].append(h.bring_in)
        hc["small_blind"].append(h.small_blind)
        hc["big_blind"].append(h.big_blind)
        hc["started_at"].append((h.started - _EPOCH) // _US)
        hc["zone"].append(h.zone)
        hc["table_name"].append(t.name)
        hc["max_seats"].append(t.max_seats)
        hc["button"].append(t.button)
        hc["players"].append(len(hand.seats))
        hc["dealt_in"].append(len(dealt))
        hc["total_pot"].append(s.total)
        hc["rake"].append(s.rake)
        hc["vela"].append(card_str(vela_card) if vela_card is not None else None)
        hc["showdown"].append(has_showdown)
        hc["verdict"].append(verdict)
        hc["findings"].append(len(findings))
        hc["text_hash"].append(text_hash(raw))
        hc["raw_text"].append(raw)
        return verdict


def _hand_texts(task: ChunkTask, notes: list[str]) -> Iterator[Any]:
    """The reader's splitting of a chunk: ``(first line, text)`` per hand, or ``Skipped`` junk.

    Uses the reader's own decoder and splitter (the same reading as
    :func:`hhtool.reader.read_file`) on the chunk; lines are relative to it.
    """
    from .. import reader

    decoder = reader._Decoder(task.source, notes)
    decoder.first = task.index == 0
    decoder.cp1252 = task.cp1252
    return reader._split_pieces(reader._pieces([task.data], decoder), task.source)


def process_chunk(task: ChunkTask) -> ChunkResult:
    """Parse and replay every hand of a chunk into rows (runs in a worker process)."""
    from ..parse import parse_hand_text
    from ..reader import Skipped
    from ..replay import replay

    builder = RowBuilder()
    result = ChunkResult(task.unit, task.index, {})
    notes: list[str] = []
    offset = task.line_offset
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for item in _hand_texts(task, notes):
            if isinstance(item, Skipped):
                result.junk_lines += item.count
                continue
            start, text = item
            raw = text + "\n"
            try:
                hand = parse_hand_text(text, first_line=start, source=task.source)
            except HandHistoryError as e:
                builder.add_failed(ErrorRecord.from_error(e, raw), task.source, start + offset, offset)
                result.failed += 1
                continue
            error = None
            try:
                rep: Replay | None = replay(hand)
            except Exception as e:  # a bug of ours must not lose the hand
                rep = None
                error = f"the replay failed ({type(e).__name__}: {e}); please report this hand"
                result.replay_errors += 1
            verdict = builder.add_hand(hand, raw, task.source, offset, rep, error)
            result.hands += 1
            result.verdicts[verdict] = result.verdicts.get(verdict, 0) + 1
    result.cp1252 = bool(notes)
    result.frames = builder.frames()
    return result
