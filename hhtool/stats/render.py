"""Statistics as text (80 columns), CSV or JSON."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from .compute import RATIO_KINDS, STATS, StatDef, StatsResult


def safe_text(s: object) -> str:
    """A string from a hand history made safe for a terminal: control characters shown as \\xNN."""
    out = []
    for ch in str(s):
        if unicodedata.category(ch) in ("Cc", "Cf") and ch != " ":
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def money(v: float, unit_note: str = "") -> str:
    """An amount: an ``int`` (an exact sum, see ``compute.MONEY_SUMS``) to the unit, a float rounded."""
    return f"{v:,}{unit_note}" if isinstance(v, int) else f"{v:,.0f}{unit_note}"


def fmt_value(s: StatDef, row: dict[str, Any]) -> tuple[str, str]:
    """(value, detail) of one statistic for one player row; '-' when there was no opportunity."""
    if s.kind == "count":
        return f"{int(row[s.key]):,}", ""
    if s.kind == "money":
        return money(row[s.key]), "minor units"
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
                out[s.key] = r[s.key] if isinstance(r[s.key], int) else round(float(r[s.key]), 2)
            else:
                out[s.key] = r[s.key]
        rows.append(out)
    return rows


def to_text(result: StatsResult) -> str:
    """A block per player, at most 80 columns wide."""
    if result.table.height == 0:
        return "no hands match\n"
    lines: list[str] = []
    for r in result.table.to_dicts():
        name = safe_text(r["player"])
        lines.append(f"== {name[:74]}")
        for s in STATS:
            value, detail = fmt_value(s, r)
            lines.append(f"  {s.label:<38} {value:>14}  {detail[:22]}".rstrip())
        lines.append("")
    lines.append("money in the hands' minor units (cents or chips); '-' = no opportunity")
    return "\n".join(lines) + "\n"


def to_csv(result: StatsResult) -> str:
    import csv
    import io

    rows = to_rows(result)
    buf = io.StringIO()
    if not rows:
        return ""
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: ("-" if v is None else v) for k, v in row.items()})
    return buf.getvalue()


def to_json(result: StatsResult) -> str:
    return json.dumps(to_rows(result), ensure_ascii=False, indent=1) + "\n"
