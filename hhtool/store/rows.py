"""A parsed and replayed hand to the rows of every table, in the columns of :mod:`hhtool.store.schema`.

Runs in the import's worker processes (:mod:`hhtool.store.worker`), once
per hand: rows are tuples appended to one list per table and become polars
frames once per chunk.  Rows are numbered by ``local``, the hand's position
in its chunk; the writer replaces it with ``hand_key``.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from ..cards import card_str
from ..stats.flags import NOT_DEALT_IN, hand_flags, saw_bits, seat_values
from ..errors import ErrorRecord
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


class _Rows:
    """Rows of one table as tuples in :func:`frame_schema` order, turned into a frame at the end.

    One ``list.append`` of a tuple per row: appending to a list per column
    cost a dictionary lookup and an append per value, which was most of
    the time of building rows.
    """

    def __init__(self, spec: TableSpec) -> None:
        self.schema = frame_schema(spec)
        self.rows: list[tuple[Any, ...]] = []

    def frame(self) -> pl.DataFrame:
        import polars as pl

        schema = dict(self.schema)
        if "started_at" in schema:  # built as epoch microseconds, cast below
            schema["started_at"] = pl.Int64
        df = pl.DataFrame(self.rows, schema=schema, orient="row")
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


_POT_LISTS = ("eligible", "winners", "shares")
_STREET_INDEX = {"2nd": 0, "3rd": 1, "4th": 2, "5th": 3, "vela": 4}
_REACH_BIT = {"3rd": 1, "4th": 2, "5th": 4}  # a card dealt on it: :func:`hhtool.stats.flags.saw_bits`


class RowBuilder:
    """Accumulates the rows of many hands (and failures) for one chunk."""

    def __init__(self) -> None:
        self.hands = _Rows(HANDS)
        self.seats = _Rows(SEATS)
        self.actions = _Rows(ACTIONS)
        self.cards = _Rows(CARDS)
        self.pots = _Rows(POTS)  # without the list columns, which come from the two below
        self.pots.schema = {n: t for n, t in self.pots.schema.items() if n not in _POT_LISTS}
        self.pot_eligible: list[tuple[int, int, str]] = []  # (local, pot, player) in order
        self.pot_winners: list[tuple[int, int, str, int]] = []  # (local, pot, player, share) in order
        self.findings = _Rows(FINDINGS)
        self.failed = _Rows(FAILED)
        self.local = 0

    def frames(self) -> dict[str, pl.DataFrame]:
        return {
            "hands": self.hands.frame(),
            "seats": self.seats.frame(),
            "actions": self.actions.frame(),
            "cards": self.cards.frame(),
            "pots": self.pots_frame(),
            "findings": self.findings.frame(),
            "failed": self.failed.frame(),
        }

    def pots_frame(self) -> pl.DataFrame:
        """The pots, their list columns gathered from flat rows.

        polars builds a list column from Python lists at about 8 µs a list;
        from flat rows grouped by pot it is several times cheaper.
        """
        import polars as pl

        schema = frame_schema(POTS)
        key = ["local", "pot"]
        base = self.pots.frame()
        eligible = pl.DataFrame(
            self.pot_eligible, schema={"local": schema["local"], "pot": schema["pot"], "eligible": pl.Utf8}, orient="row"
        ).group_by(key, maintain_order=True).agg(pl.col("eligible"))
        winners = pl.DataFrame(
            self.pot_winners,
            schema={"local": schema["local"], "pot": schema["pot"], "winners": pl.Utf8, "shares": pl.Int64},
            orient="row",
        ).group_by(key, maintain_order=True).agg(pl.col("winners"), pl.col("shares"))
        return (
            base.join(eligible, on=key, how="left", maintain_order="left")
            .join(winners, on=key, how="left", maintain_order="left")
            .select([pl.col(n).fill_null([]).cast(t) if n in _POT_LISTS else pl.col(n) for n, t in schema.items()])
        )

    # ------------------------------------------------------------ failures

    def add_failed(self, err: ErrorRecord, source: str, first_line: int, offset: int) -> None:
        self.failed.rows.append((
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

    def add_hand(self, hand: Hand, raw: str, source: str, offset: int, result: Replay | None, error: str | None) -> str:
        """Add a parsed hand's rows; returns its verdict."""
        local = self.local
        self.local += 1
        h = hand.header
        t = hand.table
        s = hand.summary
        verdict = result.verdict if result is not None else "error"

        # findings
        if result is not None:
            findings = [(f.code, f.severity, f.line, f.message) for f in result.findings]
        else:
            findings = [("replay_error", "error", h.line, error or "the replay failed")]
        add_finding = self.findings.rows.append
        for seq, (code, severity, line, message) in enumerate(findings):
            add_finding((local, seq, code, severity, line + offset, message))

        # actions and cards, walking the events once
        add_action = self.actions.rows.append
        street = "2nd"
        si = 0  # the street's index in _STREET_INDEX
        lines: list[tuple[int, str, str]] = []  # (street index, player, kind) of every money line: the statistics' flags
        add_line = lines.append
        reached = 0  # _REACH_BIT of the streets a card was dealt on
        starting: dict[str, tuple[int, int]] = {}  # player -> (hole, door): both 2nd-street cards known, one up
        face_down: dict[str, tuple[int, ...]] = {}  # carte coperte: 2nd-street cards, until one is exposed on 2nd street
        seq = 0
        cards: dict[tuple[str | None, int], list[Any]] = {}  # (owner, card) -> [street, up], first seen first
        exposure = h.exposure
        showdown_players: set[str] = set()
        dealt: set[str] = set()
        has_showdown = False
        vela_card: int | None = None

        for e in hand.events:
            tp = type(e)
            kind = _ACTION_KIND.get(tp)
            if kind is not None:
                if isinstance(e, RaiseTo):
                    add_action((local, seq, e.line + offset, street, e.player, kind, e.by, e.to, e.all_in))
                elif isinstance(e, Complete):
                    add_action((local, seq, e.line + offset, street, e.player, kind, None, e.to, e.all_in))
                elif isinstance(e, (Check, Fold)):
                    add_action((local, seq, e.line + offset, street, e.player, kind, None, None, False))
                else:
                    assert isinstance(e, (BringIn, Bet, Call))
                    add_action((local, seq, e.line + offset, street, e.player, kind, e.amount, None, e.all_in))
                add_line((si, e.player, kind))
                seq += 1
            elif isinstance(e, Deal):
                owner = e.player
                if street == "2nd":
                    dealt.add(owner)
                    if e.new is None and e.known is not None and len(e.known) == 2:
                        if exposure == "carte_coperte":
                            face_down[owner] = e.known  # the door card is the one exposed on 2nd street
                        else:
                            starting[owner] = (e.known[0], e.known[1])
                else:
                    reached |= _REACH_BIT.get(street, 0)
                if e.new is None:
                    known = e.known or ()
                    if street == "2nd":
                        last = len(known) - 1
                        for i, c in enumerate(known):
                            if (owner, c) not in cards:
                                cards[(owner, c)] = [street, i == last and exposure != "carte_coperte"]
                    else:
                        for c in known:
                            if (owner, c) not in cards:
                                cards[(owner, c)] = [street, exposure == "standard"]
                else:
                    for c in e.known or ():
                        if (owner, c) not in cards:
                            cards[(owner, c)] = [street, exposure != "carte_coperte"]
                    up = exposure == "standard" or (exposure == "una_coperta" and street != "5th")
                    for c in e.new:
                        if (owner, c) not in cards:
                            cards[(owner, c)] = [street, up]
            elif isinstance(e, Street):
                street = e.name
                si = _STREET_INDEX[street]
            elif isinstance(e, PostAnte):
                dealt.add(e.player)
                add_action((local, seq, e.line + offset, street, e.player, "ante", e.amount, None, e.all_in))
                add_line((si, e.player, "ante"))
                seq += 1
            elif isinstance(e, PostBlind):
                dealt.add(e.player)
                blind = f"{e.blind}_blind"
                add_action((local, seq, e.line + offset, street, e.player, blind, e.amount, None, e.all_in))
                add_line((si, e.player, blind))
                seq += 1
            elif isinstance(e, UncalledBet):
                add_action((local, seq, e.line + offset, street, e.player, "uncalled", e.amount, None, False))
                add_line((si, e.player, "uncalled"))
                seq += 1
            elif isinstance(e, Vela):
                street = "vela"
                si = 4
                vela_card = e.card
                if (None, e.card) not in cards:
                    cards[(None, e.card)] = ["vela", True]
            elif isinstance(e, Expose):
                if street == "2nd":
                    down = face_down.pop(e.player, None)
                    if down is not None and len(e.cards) == 1 and e.cards[0] in down:
                        starting[e.player] = (down[1] if e.cards[0] == down[0] else down[0], e.cards[0])
                    elif e.player in starting and starting[e.player][0] in e.cards:
                        del starting[e.player]  # the hole card up too: none is a hole card
                for c in e.cards:
                    seen = cards.get((e.player, c))
                    if seen is None:
                        cards[(e.player, c)] = [street, True]
                    else:
                        seen[1] = True
            elif isinstance(e, Shows):
                has_showdown = True
                showdown_players.add(e.player)
                for c in e.cards:
                    if (e.player, c) not in cards:
                        cards[(e.player, c)] = ["showdown", False]
            elif isinstance(e, (Mucks, DoesNotShow)):
                has_showdown = True
                showdown_players.add(e.player)
            elif isinstance(e, ShowDown):
                has_showdown = True
        if vela_card is None and s.vela is not None:
            vela_card = s.vela
            if (None, s.vela) not in cards:
                cards[(None, s.vela)] = ["vela", True]
        add_card = self.cards.rows.append
        for (holder, dealt_card), (st, shown) in cards.items():
            add_card((local, holder, st, card_str(dealt_card), shown))

        # seats, with the statistics' flags of each
        add_seat = self.seats.rows.append
        outcomes = {o.seat: o for o in s.outcomes}
        flags = hand_flags(lines, h.bring_in is not None)
        has_vela = vela_card is not None
        categories: dict[str, str] = {}
        if result is not None:
            claimed = result.claimed
            due = result.payouts
            stacks = result.stacks
            dealt = set(stacks)
            categories = result.categories
        for seat in hand.seats:
            p = seat.player
            o = outcomes.get(seat.seat)
            went = p in showdown_players
            fold_street = o.street if o is not None else None
            dealt_in = p in dealt
            stats = seat_values(flags.get(p), saw_bits(reached, has_vela, fold_street)) if dealt_in else NOT_DEALT_IN
            pair = starting.get(p)
            extra = (
                None if pair is None else card_str(pair[0]),
                None if pair is None else card_str(pair[1]),
                categories.get(p),
            )
            if result is None:
                add_seat((
                    local, seat.seat, p, seat.stack, dealt_in, seat.seat == t.button, None, None, None, None,
                    went, False, o.outcome if o is not None else None, fold_street, *stats, *extra,
                ))
                continue
            got = claimed.get(p, 0)
            invested = seat.stack + due.get(p, 0) - stacks[p] if p in stacks else 0
            add_seat((
                local, seat.seat, p, seat.stack, dealt_in, seat.seat == t.button, invested, got, due.get(p, 0),
                got - invested, went, went and got > 0, o.outcome if o is not None else None, fold_street,
                *stats, *extra,
            ))

        # pots
        if result is not None:
            add_pot = self.pots.rows.append
            add_eligible = self.pot_eligible.append
            add_winner = self.pot_winners.append
            for i, pot in enumerate(result.pots):
                add_pot((local, i, pot.name, pot.amount, pot.rake))
                for player in pot.eligible:
                    add_eligible((local, i, player))
                for player, share in pot.winners.items():
                    add_winner((local, i, player, share))

        # the hand
        m = hand.money
        self.hands.rows.append((
            local, h.site, h.hand_id, source, h.line + offset, h.profile, h.vela_at_start, h.wild, h.exposure,
            h.structure, m.symbol, "cent" if m.cents else "chip", h.small_bet, h.big_bet, h.ante, h.bring_in,
            h.small_blind, h.big_blind, (h.started - _EPOCH) // _US, h.zone, t.name, t.max_seats, t.button,
            len(hand.seats), len(dealt), s.total, s.rake, card_str(vela_card) if vela_card is not None else None,
            has_showdown, verdict, len(findings), text_hash(raw), raw,
        ))
        return verdict
