"""``/integrity`` and ``/integrity/pair``: the integrity screen's leads and one pair's dossier, as pages (docs/serve.md).

Both read only the core (:func:`hhtool.collusion.screen`,
:func:`hhtool.collusion.dossier`; docs/integrity.md): nothing is reckoned
again here, and nothing is written to the database.  The screen is kept
while no hand is added (:class:`hhtool.web.hands.Kept`, as the other
pages keep their figures) and the core keeps its priced equities in its
own cache, so a page asked again, or paged, costs neither.

The words are a lead's, never an accusation: a pair is a lead to review,
its figures set beside the same players' figures against everyone else.
Every hand a figure rests on is a link to the replayer, and every priced
decision opens the replayer at its step (``/hands/SITE/HAND_ID#line=N``,
docs/replayer.md, "Opening at a line").
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from hhtool.history.currency import currency_of, format_money
from hhtool.stats.filters import Filters
from hhtool.web.hands import hand_url
from hhtool.web.params import FILTER_PARAMS, BadRequest, Params, filters

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from hhtool.web.hands import Kept

HAND_FILTERS = tuple(k for k in FILTER_PARAMS if k not in ("player", "min_hands"))
"""The statistics' filters that choose hands (``min_hands`` chooses players, which the screen does not take: refused
rather than silently ignored)."""
INTEGRITY_PARAMS = ("player", "player_tag", *HAND_FILTERS, "together", "lead", "page")
"""``/integrity``'s parameters: the accounts whose pairs are shown (by name, by tag), the filters of the hands screened, the hands
together a pair needs to be listed (``together``, the CLI's ``--min-hands``), the lead levels shown and the page."""
PAIR_PARAMS = ("a", "b", *HAND_FILTERS)
"""``/integrity/pair``'s: the two accounts (NAME or NAME@SITE) and the filters of the hands."""
LEADS = ("strong", "moderate", "weak", "none")
"""The lead levels of docs/integrity.md, strongest first."""
PAGE_SIZE = 100
"""Pairs a page lists: 435 pairs for 30 players, 4,950 for 100."""
MAX_HANDS_LISTED = 2000
"""Hands a dossier's page lists (its decisions are those hands'): a pair that sat together more than this is listed
by its most recent hands, and the page says how many are not shown (``hhtool integrity --pair`` lists every one)."""
SIGNAL_WORDS = {
    "co_presence": "co-presence",
    "chip_flow": "chip flow",
    "soft_play": "no bets into each other where the same cards bet elsewhere",
    "dumping": "folds and calls facing each other unlike the same cards elsewhere",
    "aggression": "aggression against each other",
    "calls_into": "calls into each other's bets",
    "strong_fold": "folds with a strong hand",
    "passive_best": "passive with the best hand",
    "hopeless_call": "calls with hopeless equity",
    "card_sharing": "folds and checks the other's hidden cards beat",
}
"""Each signal's id (``Screen.signals.signal``) as the pages name it: docs/integrity.md's names."""


@dataclass(frozen=True, slots=True)
class IntegrityQuery:
    filters: Filters = field(default_factory=Filters)
    together: int | None = None  # the hands together under which a pair is not scored (None: the core's default)
    leads: tuple[str, ...] = ()  # the lead levels shown (none: every pair)
    page: int = 1


def integrity_query(items: list[tuple[str, str]]) -> IntegrityQuery:
    """``/integrity``'s parameters, each checked (a 400 for what does not parse)."""
    from hhtool.stats.filters_parse import QUERY_STRING, FilterError, tag_list

    p = Params(items, INTEGRITY_PARAMS)
    together = p.one("together")
    try:
        f = replace(filters(p), player_tags=tag_list(QUERY_STRING.name("player_tag"), p.all("player_tag")))
    except FilterError as e:
        raise BadRequest(str(e)) from None
    return IntegrityQuery(
        filters=f,
        together=None if together is None else p.integer("together", 0, 1, 10**9),
        leads=tuple(v for v in LEADS if v in p.choices("lead", LEADS)),
        page=p.integer("page", 1, 1, 10**8),
    )


def pair_query(items: list[tuple[str, str]]) -> tuple[str, str, Filters]:
    """``/integrity/pair``'s two accounts and filters."""
    p = Params(items, PAIR_PARAMS)
    a, b = p.one("a"), p.one("b")
    if a is None or b is None:
        raise BadRequest("a pair's dossier is /integrity/pair?a=NAME@SITE&b=NAME@SITE: give both accounts")
    if a == b:
        raise BadRequest(f"a and b are both {a!r}: a pair is two accounts")
    return a, b, filters(p)


def pair_url(a: str, b: str, f: Filters | None = None) -> str:
    """The dossier of the pair ``a``, ``b`` (account keys), under the filters ``f``."""
    from hhtool.web.player import filter_items

    items = [("a", a), ("b", b)]
    if f is not None:
        items += [(k, v) for k, v in filter_items(f) if k != "player"]
    return "/integrity/pair?" + urlencode(items)


def line_url(site: str, hand_id: str, line: int | None) -> str:
    """The hand's page, its replayer opened at the first step of ``line`` (docs/replayer.md, "Opening at a line")."""
    url = hand_url(site, hand_id)
    return url if line is None else f"{url}#line={int(line)}"


def _num(value: object, digits: int = 2) -> str:
    """A figure as the page shows it: ``-`` for none (not scored, not known)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _share(value: object) -> str:
    """An equity or a pot's odds (0..1) as a percentage."""
    if value is None or not isinstance(value, (int, float)) or math.isnan(float(value)):
        return "-"
    return f"{100 * float(value):.1f}%"


def _hand_ids(row: dict[str, Any]) -> list[str]:
    """The hand ids a pair's lead rests on: the ``hand_ids`` list when the core gives one, else the ``hands`` text."""
    ids = row.get("hand_ids")
    if isinstance(ids, list):
        return [str(h) for h in ids]
    text = row.get("hands")
    if isinstance(text, str):
        return [h.strip() for h in text.split(",") if h.strip()]
    return []


@dataclass(frozen=True, slots=True)
class SignalCell:
    """One signal of a pair as its row shows it."""

    name: str
    value: str
    baseline: str
    sample: str
    z: str
    scored: bool
    why_not: str | None


@dataclass(frozen=True, slots=True)
class PairRow:
    rank: int
    a: str
    b: str
    site: str
    a_name: str
    b_name: str
    hands_together: int
    score: str
    lead: str
    sure: str
    signals: str
    hands: list[tuple[str, str]]  # (hand id, its page)
    hands_more: int  # hands the lead rests on beyond those listed
    dossier: str
    cells: list[SignalCell]


@dataclass(frozen=True, slots=True)
class IntegrityPage:
    rows: list[PairRow]
    total: int  # pairs that match, on every page
    everyone: int  # pairs screened
    chosen: bool  # the pairs listed are those of the accounts asked for (by name or tag), not every pair screened
    counts: dict[str, int]  # pairs per lead level
    first: int
    last: int
    prev: str | None
    next: str | None
    hands_read: int
    not_computed: list[tuple[str, str]]  # (signal as named, why)


HANDS_LISTED = 8
"""Hands a pair's row links to (the core's top ones); the dossier lists every one."""


def screen_for(cur: duckdb.DuckDBPyConnection, f: Filters, together: int | None, kept: Kept) -> Any:
    """:func:`hhtool.collusion.screen` for the filters, kept while no hand is added (its equities in the core's cache)."""
    from hhtool.collusion import screen

    return kept.get(("integrity", repr(f), together), lambda: screen(cur, f, min_hands=together))


def _cells(signals: pl.DataFrame) -> dict[tuple[str, str], list[SignalCell]]:
    """The long frame of signals, per pair (a, b), each as the page shows it."""
    out: dict[tuple[str, str], list[SignalCell]] = {}
    for r in signals.iter_rows(named=True):
        out.setdefault((str(r["a"]), str(r["b"])), []).append(SignalCell(
            name=SIGNAL_WORDS.get(str(r["signal"]), str(r["signal"])),
            value=_num(r.get("value"), 3),
            baseline=_num(r.get("baseline"), 3),
            sample=_num(r.get("sample")),
            z=_num(r.get("z")),
            scored=bool(r.get("scored")),
            why_not=None if r.get("why_not") is None else str(r["why_not"]),
        ))
    return out


def integrity_page(cur: duckdb.DuckDBPyConnection, q: IntegrityQuery, path: str, items: list[tuple[str, str]], kept: Kept) -> IntegrityPage:
    """The page of pairs ``q`` asks for; ``path`` and ``items`` (the query string) make its links."""
    import polars as pl

    from hhtool.collusion.screen import pairs_of, room_of
    from hhtool.stats.notes import tagged_accounts

    room = room_of(q.filters)  # every pair of the room is screened: a player's baselines are the room's
    s = screen_for(cur, room, q.together, kept)
    pairs: pl.DataFrame = s.pairs
    if q.filters.players or q.filters.player_tags:  # the pairs of these accounts (by name, by tag)
        f = q.filters
        tagged = tagged_accounts(cur, f.player_tags) if f.player_tags else None  # read now: a tag may have been added
        pairs = kept.get(("integrity-of", repr(room), q.together, f.players, tuple(sorted(tagged or ()))),
                         lambda: pairs_of(pairs, f.picks() if f.players else None, tagged))
    counts = {lead: 0 for lead in LEADS}
    for lead, n in pairs.group_by("lead").len().iter_rows():
        counts[str(lead)] = int(n)
    chosen = pairs.filter(pl.col("lead").is_in(list(q.leads))) if q.leads else pairs
    start = (q.page - 1) * PAGE_SIZE
    shown = chosen.slice(start, PAGE_SIZE)
    cells = kept.get(("integrity-cells", repr(q.filters), q.together), lambda: _cells(s.signals))
    rows = []
    for r in shown.iter_rows(named=True):
        a, b, site = str(r["a"]), str(r["b"]), str(r.get("site") or "")
        ids = _hand_ids(r)
        rows.append(PairRow(
            rank=int(r["rank"]), a=a, b=b, site=site, a_name=str(r.get("a_name") or a), b_name=str(r.get("b_name") or b),
            hands_together=int(r["hands_together"]), score=_num(r.get("score")), lead=str(r["lead"]), sure=str(r.get("sure") or ""),
            signals=str(r.get("signals") or ""), hands=[(h, hand_url(site, h)) for h in ids[:HANDS_LISTED]],
            hands_more=max(0, len(ids) - HANDS_LISTED), dossier=pair_url(a, b, q.filters), cells=cells.get((a, b), []),
        ))

    def url(**changes: str | None) -> str:
        kept_items = [(k, v) for k, v in items if k not in changes and v.strip()]
        kept_items += [(k, v) for k, v in changes.items() if v is not None]
        return path + ("?" + urlencode(kept_items) if kept_items else "")

    return IntegrityPage(
        rows=rows, total=chosen.height, everyone=s.pairs.height, chosen=bool(q.filters.players or q.filters.player_tags),
        counts=counts,
        first=start + 1 if rows else 0, last=start + len(rows),
        prev=url(page=str(q.page - 1)) if q.page > 1 else None,
        next=url(page=str(q.page + 1)) if start + PAGE_SIZE < chosen.height else None,
        hands_read=int(s.hands_read),
        not_computed=[(SIGNAL_WORDS.get(sig, sig), why) for sig, why in s.not_computed],
    )


# ---------------------------------------------------------------------------------------------------- the dossier


@dataclass(frozen=True, slots=True)
class DecisionRow:
    url: str  # the replayer at this decision's step
    line: int | None
    player: str
    street: str
    action: str
    facing: str
    equity: str
    equity_partner_dead: str
    pot_odds: str
    signal: str


@dataclass(frozen=True, slots=True)
class HandRow:
    site: str
    hand_id: str
    url: str  # the replayer at the hand's first flagged decision (else its first priced one, else its start)
    started: str
    table: str
    net_a: str
    net_b: str
    flow: str
    signals: str
    decisions: list[DecisionRow]


@dataclass(frozen=True, slots=True)
class DossierPage:
    a: str
    b: str
    figures: list[tuple[str, str]]  # the pair's row: (what, figure)
    lead: str
    signals: str
    hands: list[HandRow]
    hands_total: int
    flows: list[tuple[str, str, str, str]]  # per money: (money, a's net, b's net, flow a to b)
    baseline_columns: list[str]
    baseline: list[list[str]]
    cells: list[SignalCell]


PAIR_FIGURES = (("rank", "rank"), ("site", "site"), ("hands_together", "hands together"), ("score", "score"),
                ("lead", "lead"), ("sure", "how sure"))
"""The pair's figures at the dossier's head, in order (the row of ``Screen.pairs``)."""


def dossier_for(cur: duckdb.DuckDBPyConnection, a: str, b: str, f: Filters, kept: Kept) -> Any:
    """:func:`hhtool.collusion.dossier` for the pair and filters, kept while no hand is added.

    It reads the room's screen kept for ``/integrity`` (read now when none
    is), so a dossier costs only the two players' hands.
    """
    from hhtool.collusion import dossier
    from hhtool.collusion.screen import room_of

    room = room_of(f)
    return kept.get(("integrity-pair", a, b, repr(f)), lambda: dossier(cur, a, b, f, screen=screen_for(cur, room, None, kept)))


def _text(value: object) -> str:
    return "" if value is None else str(value)


def dossier_page(cur: duckdb.DuckDBPyConnection, a: str, b: str, f: Filters, kept: Kept) -> DossierPage:
    """One pair's dossier as the page shows it: every hand together, each decision a link to its step."""
    import polars as pl

    from hhtool.collusion import UnknownPairError

    d = dossier_for(cur, a, b, f, kept)
    if d.hands.height == 0:  # the core answers such a pair with no hand: no dossier to show (a 404, as for a pair it does not know)
        raise UnknownPairError(f"{a!r} and {b!r} were never dealt in together in the hands selected")
    pair: dict[str, Any] = dict(d.pair or {})
    decisions: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in d.decisions.iter_rows(named=True):
        decisions.setdefault((str(r["site"]), str(r["hand_id"])), []).append(r)
    hands_frame: pl.DataFrame = d.hands
    flows: dict[tuple[str, str | None], list[int]] = {}
    for r in hands_frame.iter_rows(named=True):
        t = flows.setdefault((_text(r.get("currency")), r.get("unit")), [0, 0, 0])
        t[0] += int(r.get("net_a") or 0)
        t[1] += int(r.get("net_b") or 0)
        t[2] += int(r.get("flow") or 0)
    if "started_at" in hands_frame.columns:
        hands_frame = hands_frame.sort("started_at", descending=True, nulls_last=True)
    rows = []
    for r in hands_frame.head(MAX_HANDS_LISTED).iter_rows(named=True):
        site, hand_id = str(r["site"]), str(r["hand_id"])
        cur_ = currency_of(r.get("currency"), r.get("unit"))
        own = sorted(decisions.get((site, hand_id), []), key=lambda x: (x.get("line") is None, x.get("line") or 0))
        shown = [DecisionRow(
            url=line_url(site, hand_id, x.get("line")), line=x.get("line"), player=_text(x.get("player")), street=_text(x.get("street")),
            action=_text(x.get("action")), facing=_text(x.get("facing")), equity=_share(x.get("equity")),
            equity_partner_dead=_share(x.get("equity_partner_dead")), pot_odds=_share(x.get("pot_odds")),
            signal=SIGNAL_WORDS.get(_text(x.get("signal")), _text(x.get("signal"))),
        ) for x in own]
        flagged = [x for x in shown if x.signal] or shown
        started = r.get("started_at")
        rows.append(HandRow(
            site=site, hand_id=hand_id, url=flagged[0].url if flagged else hand_url(site, hand_id),
            started=started.isoformat(sep=" ")[:19] if isinstance(started, dt.datetime) else _text(started),
            table=_text(r.get("table_name")),
            net_a=format_money(int(r.get("net_a") or 0), cur_, signed=True), net_b=format_money(int(r.get("net_b") or 0), cur_, signed=True),
            flow=format_money(int(r.get("flow") or 0), cur_, signed=True), signals=_text(r.get("signals")), decisions=shown,
        ))
    money = []
    for (sign, unit), (na, nb, fl) in sorted(flows.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        c = currency_of(sign, unit)
        money.append((c.name, format_money(na, c, signed=True), format_money(nb, c, signed=True), format_money(fl, c, signed=True)))
    base: pl.DataFrame = d.baseline
    columns = list(base.columns)
    pa, pb = _text(pair.get("a")) or a, _text(pair.get("b")) or b
    s = d.screen
    cells = _cells(s.signals.filter((pl.col("a") == pa) & (pl.col("b") == pb)))
    return DossierPage(
        a=a, b=b,
        figures=[(label, _num(pair[key]) if key != "site" else _text(pair[key])) for key, label in PAIR_FIGURES if key in pair],
        lead=_text(pair.get("lead")), signals=_text(pair.get("signals")),
        hands=rows, hands_total=hands_frame.height, flows=money,
        baseline_columns=columns, baseline=[[_share(v) if _is_share(c) else _num(v) for c, v in zip(columns, r)] for r in base.iter_rows()],
        cells=cells.get((pa, pb), []),
    )


def _is_share(column: str) -> bool:
    """A baseline figure that is a share (a rate, an equity), shown as a percentage."""
    return any(w in column for w in ("rate", "share", "equity", "pct", "freq"))
