"""The statistics' filters are one parser: ``hhtool stats``/``report`` options and ``hhtool serve``'s parameters agree.

The same value is accepted or refused on both fronts, with the same words
but for the filter's name as each front writes it (``--max-seats``,
``seats``); the command line makes a refusal exit 2 before it opens any
database, the web a 400 (:class:`~hhtool.web.params.BadRequest`).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from hhtool.cli_options import FILTER_OPTIONS
from hhtool.stats import Filters
from hhtool.stats.filters_parse import FILTER_KEYS, QUERY_STRING, FilterError, Spelling, parse_filters, parse_rates
from hhtool.web.params import BadRequest, hand_query, stats_request
from tests.inprocess import hhtool

NO_DB = str(Path("/nonexistent") / "hands.duckdb")  # a refused filter is said before the database is looked for

# (the filter's key, a value refused, the message's words after the filter's name)
REFUSED = [
    ("from", "2026-13-01", "'2026-13-01': not a date (YYYY-MM-DD)"),
    ("to", "yesterday", "'yesterday': not a date (YYYY-MM-DD)"),
    ("profile", "texas", "'texas': use classic, stellapoker or italian"),
    ("structure", "huge", "'huge': use fixed, pot or no"),
    ("stakes", "1-2", "'1-2': write the small and big bet as in the header, e.g. 0.50/1.00 or 200/400"),
    ("stakes", "1" + "0" * 16 + "/1", "'1" + "0" * 16 + "/1': write the small and big bet as in the header, e.g. 0.50/1.00 or 200/400"),
    ("seats", "12", "'12': a table size, 2 to 10 (6 for 6-max)"),
    ("seats", "1", "'1': a table size, 2 to 10 (6 for 6-max)"),
    ("min_hands", "1000000001", "'1000000001': a whole number from 0 to 1,000,000,000"),
    ("verdicts", "fine", "'fine': use ok, disputed, invalid, error or all"),
]


def test_every_filter_has_an_option() -> None:
    # player_tag chooses the grid's rows, not hands: stats' and /players' alone (docs/study.md, "Tags on players")
    assert set(FILTER_KEYS) | {"currency", "rate", "player_tag"} == set(FILTER_OPTIONS)


def test_a_refused_player_tag_reads_the_same_on_both_fronts() -> None:
    from hhtool.web.grid import players_query

    words = "'two words': a tag is 1 to 40 letters, digits, '-' or '_' (e.g. study, bluff-catch)"
    r = hhtool("stats", "--db", NO_DB, "--player-tag", "two words")
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"hhtool: --player-tag: tag {words}\n")
    with pytest.raises(BadRequest) as web:
        players_query([("player_tag", "two words")])
    assert str(web.value) == f"player_tag: tag {words}"
    assert players_query([("player_tag", "Fish")]).filters.player_tags == ("fish",)
    with pytest.raises(BadRequest, match="unknown parameter 'player_tag'"):
        hand_query([("player_tag", "fish")], ())


@pytest.mark.parametrize(("key", "value", "words"), REFUSED, ids=[f"{k}={v[:12]}" for k, v, _ in REFUSED])
def test_a_refused_filter_reads_the_same_on_both_fronts(key: str, value: str, words: str) -> None:
    r = hhtool("stats", "--db", NO_DB, FILTER_OPTIONS[key], value)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"hhtool: {FILTER_OPTIONS[key]} {words}\n")
    r = hhtool("report", "--out", NO_DB + ".html", "--db", NO_DB, FILTER_OPTIONS[key], value)
    assert (r.returncode, r.stderr) == (2, f"hhtool: {FILTER_OPTIONS[key]} {words}\n")
    with pytest.raises(BadRequest) as web:
        hand_query([(key, value)], ())
    assert str(web.value) == f"{key} {words}"


def test_rates_without_a_currency_name_the_front_s_own_words() -> None:
    r = hhtool("stats", "--db", NO_DB, "--rate", "USD=0.92")
    assert (r.returncode, r.stderr) == (2, "hhtool: --rate needs --currency: the currency the rates convert to, e.g. --currency EUR\n")
    with pytest.raises(BadRequest, match=r"^rate needs currency: the currency the rates convert to, e\.g\. currency=EUR$"):
        stats_request([("rate", "USD=0.92")], "alice")


def test_both_fronts_read_the_same_filters() -> None:
    args = {"player": ["alice", "bob"], "from": ["2026-11-01"], "to": ["2026-11-30"], "site": ["Vela"], "profile": ["italian"],
            "structure": ["pot", "no"], "seats": ["6"], "stakes": ["€0.50/€1.00", "1,000/2,000"], "day_start": ["5"], "min_hands": ["3"],
            "verdicts": ["ok,invalid"]}
    want = Filters(
        players=("alice", "bob"), date_from=dt.date(2026, 11, 1), date_to=dt.date(2026, 11, 30), sites=("Vela",), profiles=("italian",),
        structures=("pot", "no"), max_seats=(6,), min_hands=3, stakes=(("0.50", "1.00"), ("1000", "2000")), day_start_hour=5,
        verdicts=("ok", "invalid"),
    )
    assert hand_query([(k, v) for k, vs in args.items() for v in vs], ()).filters == want
    options = Spelling(FILTER_OPTIONS, " ")
    one = {k: vs[0] for k, vs in args.items()}
    got = parse_filters(options, players=args["player"], date_from=one["from"], date_to=one["to"], sites=args["site"], profiles=args["profile"],
                        structures=args["structure"], max_seats=args["seats"], min_hands=one["min_hands"], stakes=args["stakes"], day_start=one["day_start"],
                        verdict_list=args["verdicts"])
    assert got == want
    assert parse_filters(QUERY_STRING) == Filters()


def test_rates_parse_once_for_both() -> None:
    assert parse_rates(QUERY_STRING, None, ()) is None
    rates = parse_rates(Spelling(FILTER_OPTIONS, " "), "eur", ["USD=0.92"])
    assert rates is not None and rates.target.code == "EUR"
    with pytest.raises(FilterError, match="play chips never convert"):
        parse_rates(QUERY_STRING, "chips", ())
