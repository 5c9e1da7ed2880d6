"""Many hands: table sessions of a fixed length, each from its own seed, written in order.

The output of a seed must not depend on how many processes wrote it, so
the hands are cut into *sessions* of :data:`SESSION_HANDS` hands; session
``k`` is one table with its own random generator seeded from
``(seed, k)``, and its hands are numbered ``<seed>-<k>-<n>``.  Workers
(``jobs``) take whole sessions and the parent writes them in order.
A session's text never depends on another's, so the same seed gives the
same bytes with one process or many.  In population mode (``--pool``) the
sessions of a block of ``tables`` run at once, seated by the block's
schedule (:mod:`.pool`), itself a function of the seed and the block.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from hhtool._native.pickling import picklable
from hhtool.history.events import Hand
from hhtool.history.write import write_hand
from hhtool.simulate.collusion import Deviation, hand_entries
from hhtool.simulate.config import DeckExhausted, SimConfig, SimulationError
from hhtool.simulate.faults import inject
from hhtool.simulate.hand import HandState
from hhtool.simulate.play import HandPlay
from hhtool.simulate.names import FIRST_NAMES
from hhtool.simulate.table import Table
from hhtool.simulate.view import own_view

REDEALS = 1000
"""Deals of one hand tried before giving up when the deck keeps running out (:class:`~hhtool.simulate.config.DeckExhausted`)."""

SESSION_HANDS = 2000
_ZONES = {"CET": 1, "ET": -5, "UTC": 0, "+01:00": 1}


@dataclass(frozen=True, slots=True)
class SessionOutput:
    """One session written: its text, its manifest lines (JSON) and counts.

    Worker processes send it back pickled: registered with
    :func:`~hhtool._native.pickling.picklable`, as a frozen dataclass
    compiled by mypyc (setup.py) must be to cross to another process.
    """

    text: str
    manifest: list[dict[str, object]]  # "line": the hand's first line, "fault_line" the line changed, counted from the session's first
    lines: int
    hands: int
    collusion: list[dict[str, object]]  # the colluding pairs' hands ("line"s counted from the session's first line)


picklable(SessionOutput)


def check_view(config: SimConfig) -> None:
    """The viewer must be one of the players who sit down first (they never leave)."""
    if config.view is not None and config.view not in FIRST_NAMES[: config.players]:
        names = ", ".join(FIRST_NAMES[: config.players])
        raise SimulationError(f"--view {config.view!r}: not a player at the table ({names}), nor 'audit'")


def session_rng(seed: int, session: int, stream: str) -> random.Random:
    """A generator for one stream (table, faults) of one session, from the seed alone."""
    return random.Random(f"{seed}:{session}:{stream}")


def session_hands(
    config: SimConfig,
    session: int,
    count: int,
    on_redeal: Callable[[str], None] | None = None,
    deviations: list[list[Deviation]] | None = None,
) -> Iterator[Hand]:
    """``count`` hands of session ``session``, as written (view applied, before faults).

    ``on_redeal`` is told the id of every hand whose deal ran out of cards
    and is dealt again; ``deviations``, given, gets each hand's colluding
    decisions (a list a hand, in step with the hands yielded).
    """
    rng = session_rng(config.seed, session, "table")
    offset = _ZONES.get(config.site.zone, 0)
    tz = timezone(timedelta(hours=offset))
    if config.pool:
        from hhtool.simulate.pool import block_schedule, pool_styles

        block, at = divmod(session, config.tables)
        schedule = block_schedule(config, block, SESSION_HANDS)[at]
        table = Table(config, rng, schedule, pool_styles(config))
        start = session_rng(config.seed, block, "pool-start").randint(0, 12)  # the block's tables open together
        when = datetime(2026, 1, 1, tzinfo=tz) + timedelta(days=block % 300, hours=start)
    else:
        table = Table(config, rng)
        when = datetime(2026, 1, 1, tzinfo=tz) + timedelta(days=session % 300, hours=rng.randint(0, 12))
    table_name = f"{config.site.table} {session + 1}"
    for n in range(count):
        deal = table.next_deal()
        hand_id = f"{config.seed}-{session}-{n + 1}"
        for _ in range(REDEALS):
            play = HandPlay(HandState(config, rng, hand_id, table_name, table.max_seats, deal.seats, deal.button, when))
            try:
                stacks = play.run()
                break
            except DeckExhausted:
                if on_redeal is not None:
                    on_redeal(hand_id)
                continue  # no valid ending (see DeckExhausted): the same players play the deal again, new cards
        else:
            raise SimulationError(f"hand {hand_id}: the deck ran out in {REDEALS} deals in a row")
        table.settle(stacks)
        hand = play.build(table.arrivals, table.departures)
        if config.view is not None:
            hand = own_view(hand, config.view)
        if deviations is not None:
            deviations.append(play.bots.deviations)
        yield hand
        when += timedelta(seconds=rng.randint(25, 240))


def run_session(config: SimConfig, session: int, count: int) -> SessionOutput:
    """Write one session: hands separated by a blank line; faults applied and listed."""
    faults_rng = session_rng(config.seed, session, "faults")
    parts: list[str] = []
    manifest: list[dict[str, object]] = []
    collusion: list[dict[str, object]] = []
    deviations: list[list[Deviation]] = []
    line = 1
    hands = 0
    for hand in session_hands(config, session, count, deviations=deviations):
        played = hand
        if config.fault_rate and faults_rng.random() < config.fault_rate:
            injected = inject(hand, faults_rng, config.room)
            if injected is not None:
                hand, entry = injected
                fault_line = line + int(str(entry["fault_line"])) - 1  # counted from the session's first line too
                manifest.append({"hand_id": hand.hand_id, "line": line, **entry, "fault_line": fault_line})
        if config.collusion:
            collusion.extend(hand_entries(played, hand, config.collusion, deviations[-1], line))
        text = write_hand(hand)
        parts.append(text)
        line += text.count("\n") + 1
        hands += 1
    return SessionOutput("\n".join(parts), manifest, line - 2, hands, collusion)


def sessions(total: int) -> list[tuple[int, int]]:
    """(session number, hands) covering ``total`` hands."""
    out = []
    k = 0
    while total > 0:
        n = min(SESSION_HANDS, total)
        out.append((k, n))
        total -= n
        k += 1
    return out
