"""Decisions priced with the exact equity, and the file that keeps the prices so that a second run reads them.

A decision is priced from the cards the history shows by then
(:class:`HandCards`): the decider's against every player still in, with
the folded players' up cards dead, by :func:`hhtool.game.equity.equity`
-- exact when the runouts number at most :data:`EXACT_RUNOUTS`, else
:data:`SAMPLES` runouts drawn with the fixed seed :data:`SEED` (the same
hand always gets the same figure).  Only the decisions that pass the
screen's pre-filters (docs/integrity.md, "What is priced") are priced:
a million hands hold millions of decisions.

The cache (:class:`PriceCache`) is a Parquet file beside the database,
``DB.integrity-cache.parquet``, keyed by (site, hand_id, text_hash,
decision's seq, what was priced): a hand whose text changed has another
hash and is priced again; the file names the pricing it was made with
(:data:`PRICING`), and a file made with another is not read.  It is written with polars, not DuckDB, so a
database opened read-only (while ``hhtool serve`` holds it) still gets
its cache; a folder that cannot be written leaves the run uncached.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hhtool.game.cards import Card, parse_card
from hhtool.game.equity import DEFAULT_SEED, EquityInputError, EquityResult, Question, equities
from hhtool.game.rules import PROFILES, RuleSet, RulesError

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    import polars as pl

SAMPLES: Final = 400
"""Runouts drawn where there are too many to count: a standard error of about 2.5 points of equity, enough to tell a
strong hand (60 % and up) from a hopeless one (15 % and down); a decision costs about 0.2 ms of CPU either way, the
decisions of a process asked together (:func:`priced`; docs/integrity.md, "What is priced")."""
EXACT_RUNOUTS: Final = 20_000
"""Counted exactly up to this many runouts (heads up from 4th street on)."""
SEED: Final = DEFAULT_SEED
CACHE_VERSION: Final = 2
"""Part of the cache's fingerprint (:data:`PRICING`): a change of how a decision is priced makes the old entries unread."""
PRICING: Final = f"v{CACHE_VERSION} samples={SAMPLES} exact={EXACT_RUNOUTS} seed={SEED}"
"""The pricing a cache file's figures were made with, written in it: a file made with another is not read (a figure
drawn with other samples or another seed is another figure, and the screen's results must not hang on the cache)."""

STREETS: Final = ("2nd", "3rd", "4th", "5th", "vela")
STREET_NO: Final = {s: i + 1 for i, s in enumerate(STREETS)}


@dataclass
class HandCards:
    """The cards one hand shows: each player's (card, up, street dealt) in deal order, and the vela."""

    profile: str
    dealt: int
    wild: int | None = None
    held: dict[str, list[tuple[Card, bool, int]]] = field(default_factory=dict)
    vela: Card | None = None

    def known(self, player: str, street: int) -> list[Card] | None:
        """The player's cards dealt by ``street`` (1 = 2nd .. 5 = vela), None when one of them is not known (own view)."""
        mine = self.held.get(player)
        if not mine:
            return None
        cards = [c for c, _, s in mine if s <= min(street, 4)]
        want = 2 + max(0, min(street, 4) - 1)
        return cards if len(cards) == want else None

    def face_down(self, player: str, street: int) -> list[Card]:
        """The player's face-down cards dealt by ``street``, as far as known."""
        return [c for c, up, s in self.held.get(player, ()) if not up and s <= min(street, 4)]

    def up(self, player: str, street: int) -> list[Card]:
        return [c for c, up, s in self.held.get(player, ()) if up and s <= min(street, 4)]

    def rules(self) -> RuleSet | None:
        try:
            r = PROFILES[self.profile]
            return r.with_options(wild=self.wild) if self.wild is not None else r
        except (KeyError, RulesError):
            return None


def hand_cards(rows: list[tuple[object, ...]], facts: dict[int, tuple[str, int, int | None]]) -> dict[int, HandCards]:
    """Each hand's :class:`HandCards` from the ``cards`` rows (:func:`hhtool.collusion.spots.cards_of`).

    A hole card first seen at the showdown was dealt on 2nd street.
    """
    out: dict[int, HandCards] = {}
    for key, player, street, card, up in rows:
        k = int(str(key))
        profile, dealt, wild = facts[k]
        h = out.get(k)
        if h is None:
            h = out[k] = HandCards(profile, dealt, wild)
        try:
            c = parse_card(str(card))
        except ValueError:
            continue
        if player is None:
            h.vela = c
            continue
        s = 1 if street == "showdown" else STREET_NO.get(str(street), 1)
        h.held.setdefault(str(player), []).append((c, bool(up), s))
    return out


def question(
    h: HandCards, decider: str, others: list[str], folded: list[str], street: int, dead_extra: Sequence[Card] = ()
) -> Question | None:
    """The equity question of the decider's decision at ``street`` against ``others`` (still in); ``folded``: players
    whose up cards are dead; ``dead_extra``: more cards counted dead (a partner's face-down cards).  None when a card
    is unknown."""
    rules = h.rules()
    mine = h.known(decider, street)
    if rules is None or mine is None or not others:
        return None
    hands = [mine]
    for o in others:
        theirs = h.known(o, street)
        if theirs is None:
            return None
        hands.append(theirs)
    dead = [c for p in folded for c in h.up(p, street)] + [c for c in dead_extra if all(c not in x for x in hands)]
    vela = h.vela if street >= 5 else None
    if vela is not None and not rules.has_vela:
        vela = None
    return Question(rules, hands, vela=vela, dead=list(dict.fromkeys(dead)), players=h.dealt, samples=SAMPLES, seed=SEED,
                    exact_limit=EXACT_RUNOUTS)


def priced(questions: Sequence[Question | None]) -> list[float | None]:
    """The decider's equity of each question (None where there is none, or its cards are impossible), asked together
    (:func:`hhtool.game.equity.equities`: the same figures as one by one)."""
    asked = [q for q in questions if q is not None]
    try:
        got = iter(equities(asked))
    except ValueError:  # not expected from checked input; then one by one, each failing alone
        got = iter([_alone(q) for q in asked])
    out: list[float | None] = []
    for q in questions:
        r = None if q is None else next(got)
        out.append(None if r is None or isinstance(r, EquityInputError) else float(r.hands[0].equity))
    return out


def _alone(q: Question) -> EquityResult | EquityInputError:
    try:
        return equities([q])[0]
    except ValueError as e:
        return EquityInputError(str(e))


def price(h: HandCards, decider: str, others: list[str], folded: list[str], street: int, dead_extra: Sequence[Card] = ()) -> float | None:
    """The decider's equity against ``others`` (still in) at ``street`` (:func:`question`'s); None when a card is unknown
    or impossible."""
    return priced([question(h, decider, others, folded, street, dead_extra)])[0]


PARALLEL_FROM: Final = 2_000
"""Decisions to price at and above which they are spread over one process per core: below, starting the processes (a
second or so each) costs more than it saves."""

@dataclass
class HandState:
    """Who was dealt in and when each folded: who is still in at a decision."""

    dealt: list[str] = field(default_factory=list)
    fold_seq: dict[str, int] = field(default_factory=dict)

    def still_in(self, seq: int, but: str) -> list[str]:
        return [p for p in self.dealt if p != but and self.fold_seq.get(p, 1 << 30) > seq]

    def folded(self, seq: int) -> list[str]:
        return [p for p in self.dealt if self.fold_seq.get(p, 1 << 30) < seq]


HandTask = tuple[int, list[tuple[object, ...]], tuple[str, int, int | None], HandState, list[tuple[int, str, int]]]
"""One hand's pricing as a worker process gets it: (hand_key, its ``cards`` rows, (profile, players dealt in, wild
rank), who was dealt in and when each folded, and its decisions (seq, decider, street))."""


def price_hands(tasks: list[HandTask]) -> list[tuple[int, int, float | None]]:
    """(hand_key, seq, equity) of every decision of these hands: what one worker process prices (:func:`price_many`).

    Each figure is priced alone with the fixed seed, so it is the same
    whichever process prices it, and in whatever order.
    """
    keys: list[tuple[int, int]] = []
    questions: list[Question | None] = []
    for key, rows, facts, state, decisions in tasks:
        h = hand_cards(rows, {key: facts}).get(key)
        for seq, player, street in decisions:
            keys.append((key, seq))
            questions.append(None if h is None else question(h, player, state.still_in(seq, player), state.folded(seq), street))
    return [(k, seq, v) for (k, seq), v in zip(keys, priced(questions))]


CHUNKS: Final = 16
"""Chunks of about the same number of decisions a worker process gets: the last ones are short (a second or so on a
million hands), so no core idles long while the other finishes."""


def _ready() -> None:
    """Nothing: the job :meth:`PricePool.start` gives each process, so that it is spawned and imports the pricing now."""


class PricePool:
    """The processes that price, one per core, started when the screen knows it will price (:meth:`start`), before it
    knows what: their start (a second or so each, a spawned Python importing the evaluator) overlaps the SQL passes,
    and the decisions handed to them (:meth:`submit`) are priced while the screen does what does not need their figures.

    A context manager: leaving it ends the processes (pending chunks cancelled).
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> PricePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the processes now (none with one worker): each gets an empty job, which spawns it."""
        if self.workers <= 1 or self._pool is not None:
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawned, not forked: the parent holds DuckDB's threads, which a fork would copy mid-lock
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        for _ in range(self.workers):
            self._pool.submit(_ready)

    def submit(self, tasks: list[HandTask], at_least: int = PARALLEL_FROM) -> Pending:
        """:func:`price_hands` of every task: handed to the processes (started now if they are not) when there are
        ``at_least`` decisions or more, or when they were started already, returning at once; else priced in this
        process when asked."""
        n = sum(len(t[4]) for t in tasks)
        if self.workers <= 1 or n == 0 or (n < at_least and self._pool is None):
            return Pending(tasks, [])
        self.start()
        assert self._pool is not None
        per = max(1, n // (CHUNKS * self.workers))
        chunks: list[list[HandTask]] = [[]]
        size = 0
        for t in tasks:
            if size >= per:
                chunks.append([])
                size = 0
            chunks[-1].append(t)
            size += len(t[4])
        return Pending([], [self._pool.submit(price_hands, c) for c in chunks])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class Pending:
    """Decisions being priced (:meth:`PricePool.submit`): :meth:`result` waits for them."""

    def __init__(self, here: list[HandTask], parts: list[Future[list[tuple[int, int, float | None]]]]) -> None:
        self.here = here
        self.parts = parts

    def result(self) -> list[tuple[int, int, float | None]]:
        """(hand_key, seq, equity) of every decision, in the tasks' order (the chunks' order, each chunk's own)."""
        out = price_hands(self.here) if self.here else []
        for part in self.parts:
            out += part.result()
        return out


def price_many(tasks: list[HandTask], workers: int | None = None, at_least: int = PARALLEL_FROM) -> list[tuple[int, int, float | None]]:
    """:func:`price_hands` of every task, spread over ``workers`` processes (default one per core) when there are
    ``at_least`` decisions or more; in this process otherwise.  The figures do not depend on the split."""
    with PricePool(workers) as pool:
        return pool.submit(tasks, at_least).result()


CacheKey = tuple[str, str, int, int, str]
"""(site, hand_id, text_hash, seq, what): one priced figure."""


class PriceCache:
    """The priced figures of earlier runs, read from and added to the file beside the database."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.values: dict[CacheKey, float | None] = {}
        self.added = 0
        self.hits = 0
        if path is not None and path.is_file():
            self._read(path)

    def _read(self, path: Path) -> None:
        import polars as pl

        try:
            df = pl.read_parquet(path)
        except Exception:  # a cache that cannot be read is no cache: it is written again
            return
        if df.height == 0 or "pricing" not in df.columns or df["pricing"][0] != PRICING:
            return
        for site, hid, th, seq, what, v in zip(df["site"], df["hand_id"], df["text_hash"], df["seq"], df["what"], df["value"]):
            self.values[(site, hid, th, seq, what)] = v

    def get(self, key: CacheKey) -> tuple[bool, float | None]:
        if key in self.values:
            self.hits += 1
            return True, self.values[key]
        return False, None

    def put(self, key: CacheKey, value: float | None) -> None:
        self.values[key] = value
        self.added += 1

    def save(self) -> None:
        """Write the file again with what was added (atomically: a reader never sees half of it); silently not where it cannot."""
        if self.path is None or not self.added:
            return
        import polars as pl

        keys = list(self.values)
        df = pl.DataFrame(
            {
                "pricing": [PRICING] * len(keys),
                "site": [k[0] for k in keys], "hand_id": [k[1] for k in keys], "text_hash": [k[2] for k in keys],
                "seq": [k[3] for k in keys], "what": [k[4] for k in keys], "value": [self.values[k] for k in keys],
            },
            schema={"pricing": pl.String, "site": pl.String, "hand_id": pl.String, "text_hash": pl.Int64, "seq": pl.Int64,
                    "what": pl.String, "value": pl.Float64},
        )
        write_whole(df, self.path)


def write_whole(df: pl.DataFrame, path: Path, **parquet: Any) -> None:
    """``df`` written to ``path`` as Parquet whole or not at all (a new file renamed over the old: a reader never sees half
    of it); nothing where the folder cannot be written (the file beside the database is a cache, never a failure)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        df.write_parquet(tmp, **parquet)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def cache_path(db: Path | None) -> Path | None:
    """``DB.integrity-cache.parquet`` beside the database file; None without a file (an in-memory database)."""
    if db is None or str(db) in ("", ":memory:"):
        return None
    return db.with_name(db.name + ".integrity-cache.parquet")
