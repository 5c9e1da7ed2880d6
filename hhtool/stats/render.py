"""Statistics as each player's detail text (80 columns), CSV or JSON: money per currency, numbers a program can read back.

The grid of ``hhtool stats`` (a row per player) is :mod:`hhtool.stats.grid_text`; it reads its figures here.

For a person (:func:`to_text`): a block per player, each amount in its own
money (``€-202.70`` is written ``-€202.70``, chips as ``1,136 chips``), one
line per currency; percentages with one decimal, ratios and win rates
with two, each the exact fraction rounded half to even (:func:`exact_value`,
:func:`rounded`; CSV and JSON: four decimals, the same way); ``-`` where
there was no opportunity.  For programs
(:func:`to_csv`, :func:`to_json`): a row (object) per player, numbers as
numbers, no opportunity as an empty cell (``null``), money as integer
minor units named by currency and unit (``net_EUR_cents``) -- exact,
never a float.  ``docs/stats.md`` gives the shapes.

Player names come from hand histories: the text and CSV show their
control characters escaped and CSV cells that a spreadsheet would run as
a formula prefixed with ``'`` (:mod:`hhtool.textsafe`), unless ``raw``;
the JSON escapes them as ``\\uNNNN``, which changes nothing of its meaning.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from hhtool.history.currency import Currency, Rates, format_money, format_rate
from hhtool.textsafe import csv_text, dumps, term
from hhtool.stats.definitions import MONEY_KEYS, RATES, RATIO_KINDS, STATS, StatDef
from hhtool.stats.result import StatsResult
from hhtool.stats.result import base_columns as _base_columns
from hhtool.stats.playtime import duration_text, per_hour
from hhtool.stats.result import converted as converted
from hhtool.stats.result import converted_per_hour
from hhtool.stats.result import exact_value as exact_value
from hhtool.stats.result import figure_schema as figure_schema
from hhtool.stats.result import to_rows as to_rows


def rounded(value: Fraction, places: int, *, grouping: bool = False) -> str:
    """``value`` to ``places`` decimals, rounded half to even on the exact fraction (not on a float near it): ``3.58``."""
    scaled = round(value * 10**places)  # a Fraction rounds half to even, exactly
    whole, frac = divmod(abs(scaled), 10**places)
    body = f"{whole:,}" if grouping else str(whole)
    if places:
        body += "." + str(frac).rjust(places, "0")
    return "-" + body if scaled < 0 else body


def ratio_value(s: StatDef, row: dict[str, Any]) -> float | None:
    """A ratio statistic's value (a percentage for ``pct``), None without opportunity: the exact fraction as a float."""
    v = exact_value(s, row)
    return None if v is None else float(v)


def fmt_value(s: StatDef, row: dict[str, Any]) -> tuple[str, str]:
    """(value, detail) of one statistic that is not money, for one player row; '-' when there was no opportunity."""
    if s.kind == "count":
        return f"{int(row[s.key]):,}", ""
    if s.kind == "money":
        raise ValueError(f"{s.key} is money: use money_lines")
    v = exact_value(s, row)
    if s.kind == "rate":
        return ("-" if v is None else rounded(v, 2, grouping=True)), f"over {_hands(int(row[RATES[s.key][1]]))}"
    n, d = row[f"{s.key}_n"], int(row[f"{s.key}_d"])
    counts = f"{n:,.0f}/{d:,}"
    if v is None:
        return "-", counts
    return (f"{rounded(v, 1, grouping=True)} %" if s.kind == "pct" else rounded(v, 2, grouping=True)), counts


def money_lines(result: StatsResult, player: str, key: str, rates: Rates | None = None) -> list[tuple[str, str]]:
    """(amount, detail) lines of one money statistic: one per currency, or the converted sum and what did not convert."""
    figures = result.money_of(player)
    lines: list[tuple[str, str]] = []
    left = list(figures)
    if rates is not None:
        total, used = converted(result, player, key, rates)
        if total is not None:
            hands = sum(figures[c]["hands"] for c in used)
            lines.append((format_money(total, rates.target), f"{_hands(hands)}, in {rates.target.code}"))
            left = [c for c in left if c not in used]
    for cur in left:
        lines.append((format_money(figures[cur][key], cur), _hands(figures[cur]["hands"], "chip" if cur.chips else cur.name)))
    return lines or [("-", "no hand")]


def heading(result: StatsResult, player: str) -> str:
    """``alice: 12 hands, in € and chips``: whose figures and in which money."""
    row = result.row(player)
    monies = [c.name for c in result.money_of(player)]
    named = " and ".join(monies) if len(monies) <= 2 else ", ".join(monies[:-1]) + " and " + monies[-1]
    return f"{player}: {_hands(int(row['hands']))}" + (f", in {named}" if monies else "")


def _hands(n: int, money: str = "") -> str:
    """``1 hand``, ``12 € hands``."""
    return f"{n:,} {money + ' ' if money else ''}hand{'' if n == 1 else 's'}"


def to_text(result: StatsResult, rates: Rates | None = None, *, raw: bool = False) -> str:
    """A block per player, at most 80 columns wide; names terminal-safe unless ``raw``."""
    if result.table.height == 0:
        return "no hands match\n"
    lines: list[str] = []
    for r in result.table.to_dicts():
        player = str(r["player"])
        title = heading(result, player)
        lines.append(f"== {(title if raw else term(title))[:77]}")
        for s in STATS:
            if s.kind == "money":
                for i, (value, detail) in enumerate(money_lines(result, player, s.key, rates)):
                    label = s.label if i == 0 else ""
                    lines.append(f"  {label:<34} {value:>18}  {detail[:22]}".rstrip())
                continue
            value, detail = fmt_value(s, r)
            lines.append(f"  {s.label:<34} {value:>18}  {detail[:22]}".rstrip())
            if s.key == "ante100":  # the results per hour after the results per hand
                lines += [f"  {label:<34} {value:>18}  {detail[:22]}".rstrip() for label, value, detail in play_lines(result, player, rates)]
        lines.append("")
    lines.append("'-' = no opportunity; a win rate is in the forced bet it names,")
    lines.append("per 100 of the hands that have one (docs/stats.md)")
    lines += verdicts_footer(result)
    if rates is not None:
        lines.append(f"money converted to {rates.target.code}, chips never; the rates:")
        lines += [f"  {line}" for line in rates.lines()]
    return "\n".join(lines) + "\n"


def play_lines(result: StatsResult, player: str, rates: Rates | None = None) -> list[tuple[str, str, str]]:
    """(label, value, detail) lines of time played (docs/stats.md, "Time played"), none where it was not computed.

    Sessions, time played, the average session, net won per hour in each
    money (or converted, and the moneys that do not convert), big bets per
    hour: each rate its exact fraction rounded once, money to its minor unit.
    """
    played = result.play_of(player)
    if played is None:
        return []
    n = sum(v[0] for v in played.values())
    us = sum(v[1] for v in played.values())
    if n == 0:
        return [("sessions", "0", "")]
    out = [("sessions", f"{n:,}", ""), ("time played", duration_text(us), ""), ("average session", duration_text(Fraction(us, n)), "")]
    money = result.money_of(player)
    per_money: list[tuple[str, str]] = []
    left = list(played)
    if rates is not None:
        rate = converted_per_hour(result, player, rates)
        if rate is not None:
            _, used = converted(result, player, "net", rates)
            per_money.append((format_money(Decimal(rate.numerator) / Decimal(rate.denominator), rates.target),
                              f"in {rates.target.code}, over {duration_text(sum(played.get(c, (0, 0))[1] for c in used))}"))
            left = [c for c in left if c not in used]
    for cur in left:
        rate = per_hour(money[cur]["net"], played[cur][1]) if cur in money else None
        per_money.append(("-" if rate is None else format_money(round(rate), cur), f"over {duration_text(played[cur][1])}"))
    out += [("net won per hour" if i == 0 else "", value, detail) for i, (value, detail) in enumerate(per_money)]
    bb = per_hour(Fraction(result.row(player)["bb_n_exact"]), us) if int(result.row(player)["bb_d"]) else None
    out.append(("big bets per hour", "-" if bb is None else rounded(bb, 2, grouping=True), f"over {duration_text(us)}"))
    return out


def verdicts_footer(result: StatsResult) -> list[str]:
    """The footer's line saying how many hands the verdicts filter left out, and how to count them (none if none)."""
    n = result.left_out
    if not n:
        return []
    return [
        f"{n:,} hand{'' if n == 1 else 's'} left out by --verdicts ({', '.join(result.filters.left_out)}):",
        "`--verdicts all` counts them",
    ]


def to_csv(result: StatsResult, rates: Rates | None = None, *, raw: bool = False) -> str:
    """A header and a row per player; an empty cell where there was no opportunity (docs/stats.md).

    The name cell is terminal- and spreadsheet-safe unless ``raw``; numbers stay numbers.
    """
    rows = to_rows(result, rates)
    if not rows:  # no player: still the header, so that a program reads an empty table
        return _csv_row(_base_columns(result.play_time is not None))
    lines = [_csv_row(list(rows[0]))]
    for row in rows:
        lines.append(_csv_row(["" if v is None else v if raw or not isinstance(v, str) else csv_text(v) for v in row.values()]))
    return "".join(lines)


def _play_money(flat: dict[str, Any], cur: Currency) -> dict[str, Any]:
    """A money's figures of time played in JSON (its sessions, hours, net per hour in minor units), when computed."""
    if f"sessions_{cur.code}" not in flat:
        return {}
    return {"sessions": flat[f"sessions_{cur.code}"], "hours_played": flat[f"hours_at_{cur.code}_tables"],
            "net_per_hour": flat[f"net_per_hour_{cur.code}_{cur.minor_name}"]}


def _csv_row(values: list[Any]) -> str:
    """One CSV line, quoted as RFC 4180 says: the csv module (3.11) leaves a bare CR unquoted when lines end in LF."""
    out = []
    for v in values:
        s = v if isinstance(v, str) else str(v)
        out.append('"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\r\n') else s)
    return ",".join(out) + "\n"


def to_json(result: StatsResult, rates: Rates | None = None, *, raw: bool = False) -> str:
    """``{"rates": ..., "players": [...]}``: each player's statistics, money per currency in integer minor units (docs/stats.md)."""
    players = []
    for row, flat in zip(result.table.to_dicts(), to_rows(result, None)):
        player = str(row["player"])
        obj: dict[str, Any] = {"player": player, "hands": flat["hands"]}
        obj["money"] = [
            {"currency": cur.code, "decimals": cur.decimals, "hands": f["hands"], **{key: f[key] for key in MONEY_KEYS}, **_play_money(flat, cur)}
            for cur, f in result.money_of(player).items()
        ]
        if rates is not None:
            conv: dict[str, Any] = {"currency": rates.target.code, "decimals": rates.target.decimals}
            for key in MONEY_KEYS:
                total, used = converted(result, player, key, rates)
                conv[key] = None if total is None else int(total.quantize(Decimal(1)))
                conv["from"] = [c.code for c in used]
            if result.play_time is not None:
                rate = converted_per_hour(result, player, rates)
                conv["net_per_hour"] = None if rate is None else round(rate)  # whole minor units, as the money beside it
            obj["converted"] = conv
        per_money = ("hands_", "sessions_", "hours_at_", "net_per_hour_", *(f"{m}_" for m in MONEY_KEYS))
        obj.update({k: v for k, v in flat.items() if k not in obj and not k.startswith(per_money)})
        players.append(obj)
    doc = {
        "rates": None
        if rates is None
        else {"currency": rates.target.code, "rates": {code: format_rate(rate) for code, rate in rates.rates}},
        "verdicts": {"counted": list(result.filters.verdicts), "left_out": result.left_out},
        "players": players,
    }
    return dumps(doc, indent=1) + "\n"  # safe to ``cat`` whatever ``raw``: its escapes are JSON's own
