"""Statistics as text (80 columns), CSV or JSON.

Player names come from hand histories: the text and CSV show their
control characters escaped and CSV cells that a spreadsheet would run as
a formula prefixed with ``'`` (:mod:`hhtool.textsafe`), unless ``raw``;
the JSON escapes them as ``\\uNNNN``, which changes nothing of its meaning.
"""

from __future__ import annotations

from typing import Any

from ..textsafe import csv_text, dumps, term
from .compute import RATIO_KINDS, STATS, StatDef, StatsResult


def money(v: float, unit_note: str = "") -> str:
    return f"{v:,.0f}{unit_note}"


def fmt_value(s: StatDef, row: dict[str, Any]) -> tuple[str, str]:
    """(value, detail) of one statistic for one player row; '-' when there was no opportunity."""
    if s.kind == "count":
        return f"{int(row[s.key]):,}", ""
    if s.kind == "money":
        return money(float(row[s.key])), "minor units"
    if s.kind == "rate":
        v = row[s.key]
        d = int(row["bb_d" if s.key == "bb100" else "bl_d"])
        return ("-" if v is None else f"{v:.2f}"), f"over {d:,} hands"
    n, d = row[f"{s.key}_n"], int(row[f"{s.key}_d"])
    counts = f"{n:,.0f}/{d:,}"
    if d == 0:
        return "-", counts
    if s.kind == "pct":
        return f"{100 * n / d:.1f} %", counts
    return f"{n / d:.2f}", counts


def to_rows(result: StatsResult) -> list[dict[str, Any]]:
    """One flat dict per player: each statistic's value (None for '-') and its counts."""
    rows = []
    for r in result.table.to_dicts():
        out: dict[str, Any] = {"player": r["player"]}
        for s in STATS:
            if s.kind in RATIO_KINDS:
                n, d = r[f"{s.key}_n"], int(r[f"{s.key}_d"])
                v = None if d == 0 else (n / d * (100 if s.kind == "pct" else 1))
                out[s.key] = None if v is None else round(v, 4)
                out[f"{s.key}_actions"] = n
                out[f"{s.key}_opportunities"] = d
            elif s.kind == "rate":
                out[s.key] = None if r[s.key] is None else round(float(r[s.key]), 4)
            elif s.kind == "money":
                out[s.key] = round(float(r[s.key]), 2)
            else:
                out[s.key] = r[s.key]
        rows.append(out)
    return rows


def to_text(result: StatsResult, *, raw: bool = False) -> str:
    """A block per player, at most 80 columns wide; names terminal-safe unless ``raw``."""
    if result.table.height == 0:
        return "no hands match\n"
    lines: list[str] = []
    for r in result.table.to_dicts():
        name = str(r["player"]) if raw else term(str(r["player"]))
        lines.append(f"== {name[:74]}")
        for s in STATS:
            value, detail = fmt_value(s, r)
            lines.append(f"  {s.label:<38} {value:>14}  {detail[:22]}".rstrip())
        lines.append("")
    lines.append("money in the hands' minor units (cents or chips); '-' = no opportunity")
    return "\n".join(lines) + "\n"


def to_csv(result: StatsResult, *, raw: bool = False) -> str:
    """One row per player; the name cell terminal- and spreadsheet-safe unless ``raw`` (numbers stay numbers)."""
    rows = to_rows(result)
    if not rows:
        return ""
    lines = [_csv_row(list(rows[0]))]
    for row in rows:
        lines.append(_csv_row(["-" if v is None else v if raw or not isinstance(v, str) else csv_text(v) for v in row.values()]))
    return "".join(lines)


def _csv_row(values: list[Any]) -> str:
    """One CSV line, quoted as RFC 4180 says: the csv module (3.11) leaves a bare CR unquoted when lines end in LF."""
    out = []
    for v in values:
        s = v if isinstance(v, str) else str(v)
        out.append('"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\r\n') else s)
    return ",".join(out) + "\n"


def to_json(result: StatsResult, *, raw: bool = False) -> str:
    """A JSON array of :func:`to_rows`; safe to ``cat`` whatever ``raw`` (its escapes are JSON's own)."""
    return dumps(to_rows(result), indent=1) + "\n"
