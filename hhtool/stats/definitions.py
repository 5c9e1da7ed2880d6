"""The statistics' table: each statistic's key, label and kind, and the columns a ratio or a win rate is made of.

Apart from the query that sums them (:mod:`hhtool.stats.sql`) and from the
result that holds them (:mod:`hhtool.stats.result`) because every reader of
the statistics -- the text, CSV and JSON (:mod:`hhtool.stats.render`), the
report, the player's page -- goes by this table alone; ``docs/stats.md``
defines each statistic in words.
"""

from __future__ import annotations

from dataclasses import dataclass

from hhtool.store.flags import CHECK_RAISE_STREETS, RERAISE_STREETS


@dataclass(frozen=True, slots=True)
class Ratio:
    """``actions`` out of ``opportunities``; ``value`` is None when there was no opportunity."""

    actions: float
    opportunities: int

    @property
    def value(self) -> float | None:
        return None if self.opportunities == 0 else self.actions / self.opportunities


@dataclass(frozen=True, slots=True)
class StatDef:
    key: str
    label: str
    kind: str  # "pct" (ratio shown as %), "ratio" (plain number), "money", "count", "rate"


# (key, label, kind): ratio stats have per-player columns f"{key}_n" and f"{key}_d".
STATS: tuple[StatDef, ...] = (
    StatDef("hands", "hands", "count"),
    StatDef("net", "net won", "money"),
    StatDef("sd_net", "showdown winnings", "money"),
    StatDef("nsd_net", "non-showdown winnings", "money"),
    StatDef("allin_net", "all-in adjusted winnings", "money"),
    StatDef("luck", "all-in luck (net - adjusted)", "money"),
    StatDef("rake", "rake paid", "money"),
    StatDef("bb100", "big bets/100 hands", "rate"),
    StatDef("bbl100", "big blinds/100 (blind games)", "rate"),
    StatDef("ante100", "antes/100 (ante games)", "rate"),
    StatDef("vpip", "VPIP (2nd street)", "pct"),
    StatDef("complete", "completed the bring-in", "pct"),
    StatDef("raise2", "2nd-street raise", "pct"),
    StatDef("steal", "steal (late completion)", "pct"),
    StatDef("bi_fold_steal", "bring-in folds to a steal", "pct"),
    StatDef("saw_3rd", "saw 3rd street", "pct"),
    StatDef("saw_4th", "saw 4th street", "pct"),
    StatDef("saw_5th", "saw 5th street", "pct"),
    StatDef("saw_vela", "saw the vela", "pct"),
    StatDef("af", "aggression factor", "ratio"),
    StatDef("afq", "aggression frequency", "pct"),
    StatDef("fold_to_bet", "fold to a bet", "pct"),
    StatDef("reraise", "re-raise (3-bet), all streets", "pct"),
    *(StatDef(f"reraise_{st}", f"re-raise (3-bet) {st}{'' if st == 'vela' else ' street'}", "pct") for st in RERAISE_STREETS),
    StatDef("check_raise", "check-raise, all streets", "pct"),
    *(StatDef(f"check_raise_{st}", f"check-raise {st}{'' if st == 'vela' else ' street'}", "pct") for st in CHECK_RAISE_STREETS),
    StatDef("cbet", "bet 3rd street after completing", "pct"),
    StatDef("cbet_fold", "folds to that 3rd-street bet", "pct"),
    StatDef("wtsd", "went to showdown (of saw 3rd)", "pct"),
    StatDef("wsd", "won money at showdown", "pct"),
    StatDef("wwsf", "won when saw 3rd street", "pct"),
)
RATIO_KINDS = ("pct", "ratio")
MONEY_KEYS = tuple(s.key for s in STATS if s.kind == "money")
RATES = {"bb100": ("bb_n", "bb_d"), "bbl100": ("bl_n", "bl_d"), "ante100": ("an_n", "an_d")}
"""Each win rate's numerator (net in forced-bet units) and denominator (the hands where that unit applies).

The numerator is summed exactly (:func:`~hhtool.stats.sql.rate_numerators`): column ``bb_n``
holds it as a float, ``bb_n_exact`` as the fraction ``"N/D"``, so that the
same hands give the same figures whatever order an engine sums them in."""

RATE_UNITS = {"bb_n": 1, "bl_n": 2, "an_n": 3}
"""Each win rate's unit: its column in :func:`~hhtool.stats.sql.rate_units_sql`'s rows (big bet, big blind, ante)."""
