"""The screen and the dossier as text (80 columns), CSV and JSON: every name from a history made inert.

Names are untrusted: on a terminal each goes through :func:`hhtool.textsafe.term`
(a control character shows as an escape), in CSV through
:func:`hhtool.textsafe.csv_text` (a leading ``=``, ``+``, ``-`` or ``@``
cannot run as a formula), and JSON is :func:`hhtool.textsafe.dumps`.
"""

from __future__ import annotations

import csv
import io
import textwrap
from typing import TYPE_CHECKING, Any

from hhtool.textsafe import columns, csv_text, dumps, term

if TYPE_CHECKING:
    from hhtool.collusion.dossier import Dossier
    from hhtool.collusion.screen import Screen

WIDTH = 80
PAIR_COLUMNS = ("rank", "a", "b", "site", "hands_together", "score", "lead", "sure", "signals", "hands")


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns, an ellipsis where it was cut."""
    if columns(text) <= width:
        return text + " " * (width - columns(text))
    out = ""
    for ch in text:
        if columns(out + ch) > width - 1:
            break
        out += ch
    return out + "…" + " " * (width - 1 - columns(out))


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False) or [indent]


def screen_text(s: Screen, top: int | None = 20) -> str:
    """The ranked pairs: one line a pair (rank, the two, hands together, score, lead), then its signals and hands in words."""
    listed = (f"{s.pairs.height:,} pairs of accounts dealt in together" if s.chosen_from is None else
              f"{s.pairs.height:,} pairs holding the accounts asked for, of {s.chosen_from:,} dealt in together")
    lines = [*_wrap(f"Integrity screen: {listed}, in {s.hands_read:,} hands. "
                    "Leads to review, not findings: one hand proves nothing; each figure is against the players' own "
                    "baseline.", ""), ""]
    for signal, why in s.not_computed:
        lines += _wrap(f"not computed: {signal.replace('_', ' ')}: {why}", "")
    if s.not_computed:
        lines.append("")
    head = f"{'rank':>4}  {_fit('pair', 40)}  {'hands':>6}  {'score':>6}  lead"
    lines += [head, "-" * WIDTH]
    rows = s.pairs.to_dicts()
    shown = rows if top is None else rows[:top]
    for r in shown:
        pair = f"{term(r['a'])} & {term(r['b'])}"
        lines.append(f"{r['rank']:>4}  {_fit(pair, 40)}  {r['hands_together']:>6,}  {r['score']:>6.2f}  {r['lead']}")
        if r["lead"] != "none":
            lines += _wrap(term(r["sure"]), "      ")
            for part in str(r["signals"]).split("; "):
                lines += _wrap(term(part), "      ")
            if r["hands"]:
                lines += _wrap(f"hands: {term(r['hands'])}", "      ")
    if top is not None and len(rows) > top:
        lines.append(f"... {len(rows) - top:,} more pairs (--top N, or --format csv for all)")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def screen_csv(s: Screen) -> str:
    """One row a pair, the columns of :attr:`Screen.pairs` but the hand id list (``hands`` has them)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PAIR_COLUMNS)
    for r in s.pairs.to_dicts():
        w.writerow([csv_text(str(r[c])) if isinstance(r[c], str) else r[c] for c in PAIR_COLUMNS])
    return buf.getvalue()


def screen_json(s: Screen) -> str:
    """The pairs with their signals (each with value, baseline, sample, z, why not scored) and what was not computed."""
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in s.signals.to_dicts():
        by_pair.setdefault((r["a"], r["b"]), []).append({k: v for k, v in r.items() if k not in ("a", "b")})
    pairs = []
    for r in s.pairs.to_dicts():
        r["signal_figures"] = by_pair.get((r["a"], r["b"]), [])
        pairs.append(r)
    return dumps({"hands_read": s.hands_read, "not_computed": [{"signal": a, "why": b} for a, b in s.not_computed],
                  "pairs": pairs}, indent=1, default=str) + "\n"


def _pct(x: Any) -> str:
    return "-" if x is None else f"{100 * float(x):.0f}%"


def dossier_text(d: Dossier) -> str:
    """The pair's lead, each player's figures beside the baseline, then every hand together with its decisions priced."""
    p = d.pair
    a, b = term(str(p.get("a", ""))), term(str(p.get("b", "")))
    lines = [*_wrap(f"Dossier: {a} & {b} ({term(str(p.get('site', '')))})", ""),
             *_wrap("A lead to review, not a finding: the figures beside each player's baseline, every hand named.", ""), ""]
    if "score" in p:
        lines.append(f"rank {p['rank']} of {d.screen.pairs.height:,}, score {p['score']:.2f}, lead {p['lead']}")
        lines += _wrap(term(str(p["sure"])), "")
        for part in str(p["signals"]).split("; "):
            lines += _wrap(term(part), "  ")
    lines += ["", f"{_fit('player', 24)} {_fit('against', 14)} {'hands':>6} {'bb/100':>7} {'HU bet':>7} {'fold/bet':>8}"]
    for r in d.baseline.to_dicts():
        won = "-" if r["won_bb_per_100"] is None else f"{r['won_bb_per_100']:.1f}"
        lines.append(f"{_fit(term(r['player']), 24)} {_fit(r['against'], 14)} {r['hands']:>6,} {won:>7} "
                     f"{_pct(r['hu_bet_or_raise']):>7} {_pct(r['fold_to_bet']):>8}")
    lines += ["", "Signals per hand:"]
    per = d.decisions.to_dicts()
    by_hand: dict[str, list[dict[str, Any]]] = {}
    for r in per:
        by_hand.setdefault(r["hand_id"], []).append(r)
    for h in d.hands.to_dicts():
        if not h["signals"]:
            continue
        lines += _wrap(f"hand {term(h['hand_id'])} ({term(str(h['table_name']))}, {h['started_at']}): {term(h['signals'])}", "  ")
    lines += ["", *_wrap(f"Every hand together ({d.hands.height:,}): net of each, money from {a} to {b} (minor units), "
                         "the decisions priced:", "")]
    for h in d.hands.to_dicts():
        lines.append(_fit(f"  {term(h['hand_id'])}  {term(str(h['table_name']))}  {h['net_a']:+,} / {h['net_b']:+,}  flow {h['flow']:+,}", WIDTH).rstrip())
        for r in by_hand.get(h["hand_id"], []):
            eq = _pct(r["equity"])
            dead = f" ({_pct(r['equity_partner_dead'])} with the other's cards dead)" if r["equity_partner_dead"] is not None else ""
            odds = f", pot odds {_pct(r['pot_odds'])}" if r["pot_odds"] is not None else ""
            sig = f"  <- {r['signal'].replace('_', ' ')}" if r["signal"] else ""
            lines.append(_fit(f"      line {r['line']}: {term(r['player'])} {r['action']} on {r['street']}, equity {eq}{dead}{odds}{sig}",
                              WIDTH).rstrip())
    return "\n".join(line.rstrip() for line in lines) + "\n"


def dossier_csv(d: Dossier) -> str:
    """The priced decisions, one row each (the hand, its line, who, what, the equities, the signal)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = list(d.decisions.columns)
    w.writerow(cols)
    for r in d.decisions.to_dicts():
        w.writerow([csv_text(r[c]) if isinstance(r[c], str) else r[c] for c in cols])
    return buf.getvalue()


def dossier_json(d: Dossier) -> str:
    return dumps({"pair": d.pair, "hands": d.hands.to_dicts(), "decisions": d.decisions.to_dicts(),
                  "baseline": d.baseline.to_dicts()}, indent=1, default=str) + "\n"
