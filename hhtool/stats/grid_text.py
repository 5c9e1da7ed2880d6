"""The players grid of ``hhtool stats``: a row per player, the columns a player scans first, fitted to the terminal.

A tracker's first screen is a grid of players with their main figures, not
a page of each player's statistics: :func:`to_grid` writes one line per
player -- hands, net per currency, big bets/100, VPIP, completion, steal,
aggression factor, went to showdown, won at showdown (:data:`DEFAULT_COLUMNS`)
-- within ``width`` columns.  Where the grid would be wider, long names
are cut with an ellipsis (down to :data:`NAME_MIN` cells), then the last
columns are left out and the grid says which; a wider terminal shows more
statistics (ratios, then win rates, then money; each in the order of
:data:`~hhtool.stats.definitions.STATS`).
Every statistic of that table is a column by its key (``--columns``), so a
statistic added there appears here without a change to this module.

Money is one column per currency present (``net €``, ``net chips``),
never added across currencies; with rates (``--currency``), the converted
sum and one column for each currency that does not convert.  Sorting
(:func:`sort_players`) is per currency too: ``net_EUR`` orders by the euros
alone, and a player without a euro hand comes after those with one, so no
minor units of two currencies are ever compared.

Names come from hand histories: shown through :func:`hhtool.textsafe.term`
unless ``raw``, measured in terminal cells (a CJK character takes two).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Union

from hhtool.history.currency import Currency, Rates, format_money
from hhtool.stats.definitions import MONEY_KEYS, STATS, StatDef
from hhtool.stats.render import converted, exact_value, rounded, verdicts_footer
from hhtool.stats.result import converted_per_hour
from hhtool.textsafe import columns as cells
from hhtool.textsafe import term

if TYPE_CHECKING:
    from hhtool.stats.result import StatsResult

DEFAULT_COLUMNS = ("hands", "net", "bb100", "vpip", "complete", "steal", "af", "wtsd", "wsd")
"""The columns a player scans first (issue 41), in this order, when ``--columns`` chooses none."""

HEADINGS = {
    "hands": "hands", "net": "net", "sd_net": "SD net", "nsd_net": "nonSD net", "allin_net": "AI-adj net", "luck": "luck",
    "rake": "rake", "bb100": "bb/100", "bbl100": "bl/100", "ante100": "ante/100", "vpip": "VPIP", "complete": "compl",
    "raise2": "raise", "steal": "steal", "bi_fold_steal": "BIfSt", "saw_3rd": "saw3", "saw_4th": "saw4", "saw_5th": "saw5",
    "saw_vela": "vela", "af": "AF", "afq": "AFq", "fold_to_bet": "FtB", "wtsd": "WTSD", "wsd": "W$SD", "wwsf": "WWSF",
    "sessions": "sess", "hours_played": "hours", "avg_session_hours": "h/sess", "net_per_hour": "net/h", "bb_per_hour": "bb/h",
}
"""Short headings, as trackers write them; a statistic not named here is headed by its key."""

NAME_MIN = 12
"""Terminal cells a name keeps at least before columns are left out for the width (or the longest name's, if shorter)."""

EXTRA_NAME = 20
"""Cells the names keep at most when a wider terminal shows more columns than the default ones: the statistics
come before a long name's tail."""

GAP = " "
"""Between the names and the figures, as between two figures: each column right-aligned, so numbers stay apart."""

PLAY_KEYS = ("sessions", "hours_played", "avg_session_hours", "net_per_hour", "bb_per_hour")
"""The columns of time played (docs/stats.md, "Time played"): not statistics of the table but a walk of every hand,
so only on request (``--columns``, ``--sort``), never among a wide terminal's extra columns."""

Value = Union[int, Fraction, Decimal]


class GridError(ValueError):
    """A ``--columns`` or ``--sort`` key that names no statistic (a usage error); the message names the nearest."""


@dataclass(frozen=True)
class Column:
    """One column of the grid: its heading and a cell per player (the players' order), of one statistic."""

    key: str
    heading: str
    cells: tuple[str, ...]

    @cached_property
    def width(self) -> int:
        """The widest of its heading and cells, once (a grid of thousands of players asks it at every line)."""
        return max(cells(c) for c in (self.heading, *self.cells))


def fit(s: str, width: int) -> str:
    """``s`` cut to ``width`` cells with an ellipsis where it is longer, padded with spaces where it is shorter."""
    if cells(s) > width:
        out, used = [], 0
        for ch in s:
            w = cells(ch)
            if used + w > width - 1:
                break
            out.append(ch)
            used += w
        s = "".join(out) + "…"
    return s + " " * (width - cells(s))


def _stat(key: str) -> StatDef:
    return next(s for s in STATS if s.key == key)


def _kind(key: str) -> str:
    """A column's kind: its statistic's, or ``play`` for one of time played."""
    return "play" if key in PLAY_KEYS else _stat(key).kind


def column_keys() -> list[str]:
    """Every key ``--columns`` takes: each statistic of :data:`~hhtool.stats.definitions.STATS`, and the time played's."""
    return [s.key for s in STATS] + list(PLAY_KEYS)


def _unknown(kind: str, key: str, known: list[str]) -> GridError:
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return GridError(f"{kind} {key!r} is no statistic{hint} known: {', '.join(known)}")


def parse_columns(text: str) -> list[str]:
    """``--columns vpip,net,af`` as statistic keys, in order, each once; :class:`GridError` for a key that names none."""
    known = column_keys()
    keys: list[str] = []
    for part in text.split(","):
        key = part.strip()
        if not key or key == "player" or key in keys:
            continue
        if key not in known:
            raise _unknown("--columns:", key, known)
        keys.append(key)
    if not keys:
        raise GridError(f"--columns: name at least one statistic; known: {', '.join(known)}")
    return keys


def sort_keys(result: StatsResult) -> list[str]:
    """Every key ``--sort`` takes on ``result``: each statistic, and each money statistic per currency (``net_EUR``)."""
    codes = [c.code for c in result.currencies()]
    out: list[str] = []
    for s in STATS:
        out.append(s.key)
        if s.kind == "money":
            out += [f"{s.key}_{code}" for code in codes]
    return out + list(PLAY_KEYS) + [f"net_per_hour_{code}" for code in codes]


def sort_players(result: StatsResult, key: str | None, rates: Rates | None = None) -> StatsResult:
    """``result`` with its players in the order ``key`` says, highest first; ``key`` None: most hands first.

    Ties keep the order of the names.  A statistic without opportunity
    (``-``) comes last.  Money sorts one currency at a time: ``net_USD`` by
    the dollars alone, with the players who have no dollar hand after the
    others; ``net`` by the converted sum with ``rates``, else by the first
    currency of the result (euro, dollar, pound, the rest, chips).  A
    ``key`` that names nothing is a :class:`GridError` naming the nearest.
    """
    import polars as pl

    key = key or "hands"
    known = sort_keys(result)
    if key not in known:
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        codes = [c.code for c in result.currencies()]
        each = f"; money by one currency: {', '.join(f'net_{c}' for c in codes)} (sd_net_{codes[0]}, ... likewise)" if codes else ""
        raise GridError(f"--sort: {key!r} is no statistic{hint} known: {', '.join(column_keys())}{each}")
    codes = [c.code for c in result.currencies()]  # once: a frame's distinct values, not once a player
    values = [_sort_value(result, row, key, codes, rates) for row in result.table.to_dicts()]
    order = sorted(range(len(values)), key=lambda i: (values[i] is None, -(values[i] or 0)))
    return replace(result, table=result.table.select(pl.all().gather(order)))


def _sort_value(result: StatsResult, row: dict[str, Any], key: str, codes: list[str], rates: Rates | None) -> Value | None:
    """The value a player (``row``, theirs of ``result.table``) is sorted by; None (last) without opportunity or
    without a hand in that money (``codes``: the result's)."""
    player = str(row["player"])
    if key.startswith(PLAY_KEYS):
        return _play_value(result, row, key, codes, rates)
    money = next((m for m in MONEY_KEYS if key == m or key.startswith(m + "_")), None)
    if money is not None and (key == money or key[len(money) + 1:] in codes):
        figures = result.money_of(player)
        if key == money and rates is not None:
            return converted(result, player, money, rates)[0]
        code = key[len(money) + 1:] if key != money else (codes[0] if codes else "")
        mine = next((f for c, f in figures.items() if c.code == code), None)
        return None if mine is None else mine[money]
    s = _stat(key)
    if s.kind == "count":
        return int(row[s.key])
    return exact_value(s, row)


def _play_value(result: StatsResult, row: dict[str, Any], key: str, codes: list[str], rates: Rates | None) -> Value | None:
    """A player's exact figure of time played (``net_per_hour`` per currency, as money sorts); None without."""
    from hhtool.stats.playtime import hours, per_hour

    played = result.play_of(str(row["player"]))
    if played is None:
        raise ValueError("this result has no time played: compute it with play_time=True")
    n, us = sum(v[0] for v in played.values()), sum(v[1] for v in played.values())
    if key == "sessions":
        return n
    if n == 0:
        return None
    if key == "hours_played":
        return hours(us)
    if key == "avg_session_hours":
        return hours(us) / n
    if key == "bb_per_hour":
        return per_hour(Fraction(row["bb_n_exact"]), us) if int(row["bb_d"]) else None
    if key == "net_per_hour" and rates is not None:
        return converted_per_hour(result, str(row["player"]), rates)
    code = key[len("net_per_hour_"):] if key != "net_per_hour" else (codes[0] if codes else "")
    money = {c.code: f for c, f in result.money_of(str(row["player"])).items()}
    mine = next(((c, v) for c, v in played.items() if c.code == code), None)
    return None if mine is None or code not in money else per_hour(money[code]["net"], mine[1][1])


def _play_columns(result: StatsResult, rows: list[dict[str, Any]], key: str, rates: Rates | None) -> list[Column]:
    """The grid's column(s) of one figure of time played: net per hour one per money (or converted), as net is."""
    codes = [c.code for c in result.currencies()]
    heading = HEADINGS.get(key, key)
    if key != "net_per_hour":
        values = [_play_value(result, r, key, codes, rates) for r in rows]
        places = {"hours_played": 2, "avg_session_hours": 2, "bb_per_hour": 2}.get(key, 0)
        return [Column(key, heading, tuple("-" if v is None else rounded(Fraction(v), places, grouping=True) for v in values))]
    out: list[Column] = []
    monies = result.currencies()
    if rates is not None:
        sums = [_play_value(result, r, key, codes, rates) for r in rows]
        out.append(Column(key, f"{heading} in {rates.target.code}", tuple(
            "" if v is None else format_money(Decimal(Fraction(v).numerator) / Decimal(Fraction(v).denominator), rates.target) for v in sums)))
        monies = [c for c in monies if rates.rate(c) is None]
    for cur in monies:
        cells_ = []
        for r in rows:
            v = _play_value(result, r, f"{key}_{cur.code}", codes, None)
            cells_.append("" if v is None else _amount(round(Fraction(v)), cur))
        out.append(Column(key, f"{heading} {cur.name}", tuple(cells_)))
    return out


def _money_columns(result: StatsResult, key: str, rates: Rates | None) -> list[Column]:
    """One column per currency present, or with ``rates`` the converted sum and the currencies that do not convert."""
    players = result.players()
    heading = HEADINGS.get(key, key)
    monies = result.currencies()
    figures = [result.money_of(p) for p in players]
    out: list[Column] = []
    if rates is not None:
        sums = [converted(result, p, key, rates)[0] for p in players]
        out.append(Column(key, f"{heading} in {rates.target.code}", tuple("" if v is None else format_money(v, rates.target) for v in sums)))
        monies = [c for c in monies if rates.rate(c) is None]
    for cur in monies:
        cells_ = []
        for mine_all in figures:
            mine = mine_all.get(cur)
            cells_.append("" if mine is None else _amount(mine[key], cur))
        out.append(Column(key, f"{heading} {cur.name}", tuple(cells_)))
    return out


def _amount(minor: int, cur: Currency) -> str:
    """An amount in its money's notation; chips without the word, which the heading says (``net chips``)."""
    return f"{minor:,}" if cur.chips else format_money(minor, cur)


def _columns(result: StatsResult, rows: list[dict[str, Any]], key: str, rates: Rates | None) -> list[Column]:
    """The grid's columns of one statistic: one, or one per money for a money statistic (``rows``: ``result.table``'s)."""
    if key in PLAY_KEYS:
        return _play_columns(result, rows, key, rates)
    s = _stat(key)
    if s.kind == "money":
        return _money_columns(result, key, rates)
    if s.kind == "count":
        values = [f"{int(r[key]):,}" for r in rows]
    else:
        places = 1 if s.kind == "pct" else 2
        exact = [exact_value(s, r) for r in rows]
        values = ["-" if v is None else rounded(v, places, grouping=True) for v in exact]
    return [Column(key, HEADINGS.get(key, key), tuple(values))]


def _width(names: int, columns: list[Column]) -> int:
    return names + len(GAP) + sum(c.width + 1 for c in columns) - 1 if columns else names


def to_grid(
    result: StatsResult, rates: Rates | None = None, *, columns: list[str] | None = None, width: int = 80, raw: bool = False
) -> str:
    """The grid at most ``width`` columns wide: a heading line, a line per player in ``result``'s order, then notes.

    ``columns``: the statistics to show, by key (default :data:`DEFAULT_COLUMNS`,
    and on a wider terminal more); names terminal-safe unless ``raw``.
    """
    if result.table.height == 0:
        return "no hands match\n"
    width = max(width, 40)
    names = [str(p) if raw else term(str(p)) for p in result.players()]
    longest = max(cells(n) for n in [*names, "player"])
    chosen = list(columns or DEFAULT_COLUMNS)
    rows = result.table.to_dicts()  # once: the counts every figure is made of
    built = {key: _columns(result, rows, key, rates) for key in chosen}
    left_out: list[str] = []
    while len(chosen) > 1 and _width(min(longest, NAME_MIN), [c for k in chosen for c in built[k]]) > width:
        left_out.insert(0, chosen.pop())
    if columns is None:  # a wider terminal: the other statistics while they fit, the ratios first, then win rates, money last
        rank = {"pct": 0, "ratio": 0, "rate": 1, "count": 2, "money": 3}
        extra = [s.key for s in sorted(STATS, key=lambda s: rank.get(s.kind, 2)) if s.key not in chosen]
        for key in extra if not left_out else ():
            cols = _columns(result, rows, key, rates)
            if _width(min(longest, EXTRA_NAME), [c for k in chosen for c in built[k]] + cols) > width:
                break
            chosen.append(key)
            built[key] = cols
    shown = [c for k in chosen for c in built[k]]
    name_w = max(min(longest, width - _width(0, shown)), min(longest, NAME_MIN))
    lines = [(fit("player", name_w) + GAP + " ".join(c.heading.rjust(c.width) for c in shown)).rstrip()]
    for i, name in enumerate(names):
        lines.append((fit(name, name_w) + GAP + " ".join(c.cells[i].rjust(c.width) for c in shown)).rstrip())
    lines.append("")
    lines += _notes(len(names), chosen, left_out, width, rates)
    lines += verdicts_footer(result)
    return "\n".join(lines) + "\n"


def _notes(players: int, chosen: list[str], left_out: list[str], width: int, rates: Rates | None) -> list[str]:
    """What the grid's figures are, and what it left out: each note one line within the width."""
    pct = [HEADINGS.get(k, k) for k in chosen if _kind(k) == "pct"]
    words = [f"{players:,} player{'' if players == 1 else 's'}"]
    if pct:
        words.append(f"{', '.join(pct[:3])}{' ...' if len(pct) > 3 else ''} in % of opportunities")
    words.append("'-': no opportunity")
    notes = _wrap("; ".join(words) + ".", width)
    if any(_kind(k) == "rate" for k in chosen):
        notes += _wrap("bb/100: big bets won per 100 hands (docs/stats.md, \"Win rates\").", width)
    if any(_kind(k) == "play" for k in chosen):
        notes += _wrap("sess, hours: sessions (a new one after the session gap without a hand) and their hours, each counting "
                       "its last hand as a minute; net/h, bb/h: per hour of them (docs/stats.md, \"Time played\").", width)
    if left_out:
        notes += _wrap(f"left out for the width ({width} columns): {', '.join(left_out)}; a wider terminal or --columns shows them.", width)
    notes += _wrap("Each player's statistics with their counts: --format detail (or one --player).", width)
    if rates is not None:
        notes += _wrap(f"money converted to {rates.target.code}, chips never; the rates: {'; '.join(rates.lines())}", width)
    return notes


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


__all__ = ["DEFAULT_COLUMNS", "HEADINGS", "PLAY_KEYS", "Column", "GridError", "column_keys", "parse_columns", "sort_keys", "sort_players", "to_grid"]
