"""``hhtool equity``'s output: the figures of :func:`hhtool.game.equity.equity` as a table for a person or as JSON.

Apart from the engine, which the audit and the import call for every hand
they price and never print, so that what the command shows can change
without touching what it counts (``docs/equity.md`` gives both shapes).
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING, Any

from hhtool.game.cards import card_str
from hhtool.game.rank import UNSEEN

if TYPE_CHECKING:
    from hhtool.game.equity import EquityResult, PlayerEquity


def to_json(result: EquityResult) -> str:
    """``{"exact": true, "runouts": N, "players": [...]}``, or ``samples``, ``seed`` and ``stderr`` when sampled."""
    out: dict[str, Any] = {"exact": result.exact}
    if result.exact:
        out["runouts"] = result.runouts
    else:
        out["samples"] = result.samples
        out["seed"] = result.seed
        out["stderr"] = result.stderr
    out["players"] = [_player_json(h, result.exact) for h in result.hands]
    return json.dumps(out, ensure_ascii=False)


def _player_json(h: PlayerEquity, exact: bool) -> dict[str, Any]:
    """One player's object: cards as typed (``??`` for one nobody saw), the figures as floats, ``stderr`` when sampled."""
    out: dict[str, Any] = {
        "cards": [UNSEEN if c is None else card_str(c) for c in h.cards],
        "equity": h.equity,
        "win": h.win,
        "tie": h.tie,
    }
    if not exact:
        out["stderr"] = h.stderr
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def to_text(result: EquityResult) -> str:
    """A table, best first, under a head that says how the figures were found (fits 80 columns)."""
    rules = result.rules
    head = f"rules: {rules.name}   deck: {card_str(rules.lowest_rank(result.players) * 4)[0]}-A ({result.players} players)"
    if rules.has_vela:
        head += f"   vela: {card_str(result.vela) if result.vela is not None else 'to come'}"
    if rules.wild is not None:
        head += f"   wild: {card_str(rules.wild * 4)[0]}"
    lines = [head]
    if result.dead:
        lines += textwrap.wrap(f"dead: {' '.join(card_str(c) for c in result.dead)}", 80, subsequent_indent="      ")
    if result.exact:
        lines.append(f"exact: every one of {result.runouts:,} runouts")
    else:
        lines.append(f"sampled: {result.samples:,} of {result.runouts:,} runouts (seed {result.seed})")
    se_head = "" if result.exact else f" {'±':>7}"
    lines.append(f"{'#':>2}  {'hand':<15} {'equity':>8}{se_head} {'win':>8} {'tie':>8}")
    for h in result.best_first():
        cards = " ".join(UNSEEN if c is None else card_str(c) for c in h.cards)
        se = "" if h.stderr is None else f" {_pct(h.stderr):>7}"
        lines.append(f"{h.index + 1:>2}  {cards:<15} {_pct(h.equity):>8}{se} {_pct(h.win):>8} {_pct(h.tie):>8}")
    if not result.exact:
        lines.append("±: one standard error of the equity")
    return "\n".join(lines)
