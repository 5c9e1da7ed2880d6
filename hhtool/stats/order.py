"""The order rows are shown in: players as a person expects names, currencies euro, dollar, pound first.

Apart because the statistics, the sessions, the report and the player's
page all list players and monies, and each must list them the same way
whichever query gave the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from hhtool.history.currency import Currency


def name_key(name: str) -> tuple[str, str]:
    """The order a person expects names in: case and accents ignored (``Ännchen`` with the As), then as written."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return (plain.casefold(), name)


def by_name(t: pl.DataFrame, *then: str) -> pl.DataFrame:
    """Rows in the order a person expects the names (:func:`name_key`), then by the columns ``then``."""
    import polars as pl

    if t.height == 0:
        return t
    names = t["player"].unique().to_list()
    rank = {name: i for i, name in enumerate(sorted((str(n) for n in names), key=name_key))}
    key = pl.col("player").replace_strict(rank, return_dtype=pl.Int64)
    return t.with_columns(_by_name=key).sort(["_by_name", *then]).drop("_by_name")


def currency_rank(c: Currency) -> tuple[int, str]:
    """Where a money stands among others: euro, dollar, pound, the rest by code, chips last."""
    return ({"EUR": 0, "USD": 1, "GBP": 2, "chips": 9}.get(c.code, 5), c.code)
