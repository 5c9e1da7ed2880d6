"""Money as players count it: one figure per currency everywhere a person or a program reads it.

The corpus: thirty players at euro, dollar, pound and play-chip tables,
six of them at all four; every figure of ``stats`` (table, CSV, JSON) and
of the report is checked against a plain recount from the stored seats,
and the converted figures against the recount times the rates. The
commands run in the test's process (:mod:`tests.inprocess`): their figures
are the point, not the process.
"""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal
from pathlib import Path

import duckdb
import polars as pl
import pytest

from hhtool.history.currency import Currency, Rates, currency_of, format_money
from tests.browser import CHROMEDRIVER, CHROMIUM, MISSING, headless_chromium
from tests.inprocess import hhtool

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
BASE_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank")
GROUPS = (
    ("alice", "bob", "carol", "dave", "erin", "frank"),  # at every kind of table
    ("Ännchen", "Bruno", "zed", "Émile", "olga", "Pia"),
    ("quinn", "Rolf", "sam", "Tess", "ugo", "Vera"),
    ("walt", "Xena", "yuri", "Zoë", "amir", "Beto"),
    ("ciro", "Dina", "ezio", "Fabia", "gus", "Hana"),
)
RATES = {"USD": Decimal("0.92"), "GBP": Decimal("1.17")}
SITES = ("Vela", "StellaPoker", "Tavolo", "Albion")


def rename(text: str, names: tuple[str, ...], prefix: str) -> str:
    for old, new in zip(BASE_NAMES, names):
        text = re.sub(rf"\b{old}\b", new, text)
    return re.sub(r" Hand #", f" Hand #{prefix}-", text)


@pytest.fixture(scope="module")
def money_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("money")
    base = {}
    for rules, site in (("classic", "Vela"), ("stellapoker", "StellaPoker"), ("italian", "Tavolo")):
        out = tmp / f"{rules}.txt"
        r = hhtool("simulate", "--hands", "30", "--rules", rules, "--players", "6", "--seed", "3", "--site", site, "--out", str(out))
        assert r.returncode == 0, r.stderr
        base[rules] = out.read_text(encoding="utf-8")
    pound = base["classic"].replace("€", "£").replace("Vela Hand #", "Albion Hand #").replace("Table 'Vela", "Table 'Albion")
    games = {"eur": base["classic"], "usd": base["stellapoker"], "chips": base["italian"], "gbp": pound}
    src = tmp / "histories"
    src.mkdir()
    for kind, text in games.items():  # the first six at every table
        (src / f"all-{kind}.txt").write_text(rename(text, GROUPS[0], f"A{kind}"), encoding="utf-8")
    for names, kind in zip(GROUPS[1:], games):  # the others at one kind each
        (src / f"{kind}-{names[0]}.txt").write_text(rename(games[kind], names, f"B{kind}"), encoding="utf-8")
    db = tmp / "money.duckdb"
    r = hhtool("import", str(src), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    # the first six play on every site: each their four accounts, made one person ("Alice": alice at Vela, StellaPoker,
    # Tavolo and Albion), whose money is per currency (docs/stats.md, "Players and accounts")
    for name in GROUPS[0]:
        r = hhtool("alias", "add", name.capitalize(), *(f"{name}@{site}" for site in SITES), "--db", str(db))
        assert r.returncode == 0, r.stdout + r.stderr
    return db


def recount(db: Path) -> dict[str, dict[Currency, tuple[int, int]]]:
    """row -> currency -> (hands, net): straight from the stored seats, a row an account (NAME@SITE where the name is
    on two sites) or the person an alias makes of several."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT s.player, h.site, h.currency, h.unit, count(*), sum(s.net) FROM seats s JOIN hands h USING (hand_key) "
            "WHERE s.dealt_in GROUP BY ALL"
        ).fetchall()
        person = {(site, name): p for p, site, name in con.execute("SELECT person, site, player FROM aliases").fetchall()}
    finally:
        con.close()
    sites: dict[str, set[str]] = {}
    for name, site, *_ in rows:
        sites.setdefault(name, set()).add(site)
    out: dict[str, dict[Currency, tuple[int, int]]] = {}
    for name, site, sign, unit, hands, net in rows:
        key = person.get((site, name)) or (name if len(sites[name]) == 1 and "@" not in name else f"{name}@{site}")
        mine = out.setdefault(key, {})
        was = mine.get(currency_of(sign, unit), (0, 0))
        mine[currency_of(sign, unit)] = (was[0] + int(hands), was[1] + int(net))
    return out


def test_the_corpus_has_every_money(money_db: Path) -> None:
    counted = recount(money_db)
    assert len(counted) >= 30  # the simulator's newcomers (gina, hugo) join the thirty named here
    assert {c.code for c in counted["Alice"]} == {"EUR", "USD", "GBP", "chips"}


def test_json_money_is_per_currency_and_exact(money_db: Path) -> None:
    r = hhtool("stats", "--db", str(money_db), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    counted = recount(money_db)
    assert doc["rates"] is None
    for p in doc["players"]:
        got = {m["currency"]: (m["hands"], m["net"]) for m in p["money"]}
        assert got == {c.code: v for c, v in counted[p["player"]].items()}, p["player"]
        assert all(isinstance(m["net"], int) and m["decimals"] == (0 if m["currency"] == "chips" else 2) for m in p["money"])


def test_text_writes_each_money_in_its_notation(money_db: Path) -> None:
    r = hhtool("stats", "--db", str(money_db), "--player", "Alice")
    assert r.returncode == 0, r.stderr
    assert "minor units" not in r.stdout
    counted = recount(money_db)["Alice"]
    assert r.stdout.startswith(f"== Alice: {sum(h for h, _ in counted.values())} hands, in €, $, £ and chips\n")
    net_block = r.stdout.split("  net won", 1)[1].split("  showdown winnings", 1)[0]
    for cur, (hands, net) in counted.items():
        assert format_money(net, cur) in net_block
        assert f"{hands} {'chip' if cur.chips else cur.name} hands" in net_block
    assert max(len(line) for line in r.stdout.splitlines()) <= 80


def test_rates_convert_the_currencies_given_and_never_chips(money_db: Path) -> None:
    args = ["--currency", "EUR", "--rate", "USD=0.92", "--rate", "GBP=1.17"]
    r = hhtool("stats", "--db", str(money_db), "--player", "Alice", "--format", "json", *args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["rates"] == {"currency": "EUR", "rates": {"GBP": "1.17", "USD": "0.92"}}
    (alice,) = doc["players"]
    counted = {c.code: net for c, (_, net) in recount(money_db)["Alice"].items()}
    want = Decimal(counted["EUR"]) + Decimal(counted["USD"]) * RATES["USD"] + Decimal(counted["GBP"]) * RATES["GBP"]
    assert alice["converted"]["net"] == int(want.quantize(Decimal(1)))
    assert alice["converted"]["from"] == ["EUR", "USD", "GBP"]
    text = hhtool("stats", "--db", str(money_db), "--player", "Alice", *args).stdout
    rates = Rates.parse("EUR", ["USD=0.92", "GBP=1.17"])
    assert format_money(want, rates.target) in text
    assert format_money(counted["chips"], Currency("chips", "", 0)) in text  # chips keep their own figure
    assert "money converted to EUR, chips never; the rates:\n  GBP 1 = 1.17 EUR\n  USD 1 = 0.92 EUR\n" in text
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rate", "USD=0.92"], "--rate needs --currency"),
        (["--currency", "EUR", "--rate", "USD"], "write CODE=RATE"),
        (["--currency", "EUR", "--rate", "USD=abc"], "is not a number"),
        (["--currency", "EUR", "--rate", "USD=-1"], "a rate is a positive number"),
        (["--currency", "chips"], "play chips never convert"),
    ],
)
def test_bad_rates_are_usage_errors(money_db: Path, args: list[str], message: str) -> None:
    r = hhtool("stats", "--db", str(money_db), *args)
    assert r.returncode == 2 and message in r.stderr


def test_csv_reads_back_with_numeric_types_and_exact_money(money_db: Path, tmp_path: Path) -> None:
    r = hhtool("stats", "--db", str(money_db), "--format", "csv", "--currency", "EUR", "--rate", "USD=0.92")
    assert r.returncode == 0, r.stderr
    path = tmp_path / "stats.csv"
    path.write_text(r.stdout, encoding="utf-8")
    df = pl.read_csv(path)
    assert df.height == len(recount(money_db))
    for name, dtype in df.schema.items():
        if name == "player":
            assert dtype == pl.String
        elif df[name].null_count() < df.height:  # a column empty in every row (no opportunity anywhere) has no type to infer
            assert dtype.is_numeric(), (name, dtype)
        if name.endswith(("_cents", "_chips")) or name.startswith("hands"):
            assert dtype.is_integer(), (name, dtype)
    counted = recount(money_db)
    for row in df.iter_rows(named=True):
        for cur, (hands, net) in counted[row["player"]].items():
            assert row[f"net_{cur.code}_{cur.minor_name}"] == net
            assert row[f"hands_{cur.code}"] == hands
    # no opportunity: an empty cell, read back as null; never a "-" in a numeric column
    import csv

    cells = [c for row in csv.reader(r.stdout.splitlines()[1:]) for c in row[1:]]
    assert "-" not in cells and "" in cells
    assert df["bi_fold_steal"].null_count() > 0


def test_names_come_in_the_order_a_person_expects(money_db: Path) -> None:
    doc = json.loads(hhtool("stats", "--db", str(money_db), "--format", "json").stdout)
    names = [p["player"] for p in doc["players"]]

    def plain(s: str) -> str:
        return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c)).casefold()

    assert names == sorted(names, key=plain)
    assert names.index("Ännchen") < names.index("Beto") < names.index("Bob") < names.index("Bruno")


@pytest.mark.parametrize("command", ["stats", "report"])
def test_a_misspelt_player_gets_a_suggestion(money_db: Path, tmp_path: Path, command: str) -> None:
    extra = ["--out", str(tmp_path / "r.html")] if command == "report" else []
    r = hhtool(command, "--db", str(money_db), "--player", "alcie", *extra)
    assert r.returncode == 2
    assert "no player 'alcie' in this database; did you mean 'alice'?" in r.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_report_with_no_hands_is_not_written(money_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    r = hhtool("report", "--db", str(money_db), "--site", "Nowhere", "--out", str(out))
    assert r.returncode == 1
    assert "no hands match the filters: no report written" in r.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def report_html(money_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "money.html"
    r = hhtool("report", "--db", str(money_db), "--out", str(out), "--currency", "EUR", "--rate", "USD=0.92", "--rate", "GBP=1.17")
    assert r.returncode == 0, r.stderr
    return out


def test_report_money_is_per_currency(money_db: Path, report_html: Path) -> None:
    text = report_html.read_text(encoding="utf-8")
    assert "minor units" not in text
    results = text[text.index('<section id="results">') : text.index('<section id="stats">')]
    for player, figures in recount(money_db).items():
        for cur, (_, net) in figures.items():
            assert format_money(net, cur) in results, (player, cur)
    assert "in EUR at GBP 1 = 1.17 EUR, USD 1 = 0.92 EUR" in text
    for heading in ("stakes", "site", "table size"):
        assert f"<h3>{heading}</h3>" in results
    assert '<nav><ol><li><a href="#players">Players</a></li><li><a href="#summary">' in text  # the grid first, as a tracker opens


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)
def test_report_for_thirty_players_fits_a_1400_pixel_window(report_html: Path, tmp_path: Path) -> None:
    """The real headless Chromium at 1,400 pixels: the page never scrolls sideways; the statistics sort on a click."""
    from selenium.webdriver.common.by import By

    driver = headless_chromium(tmp_path / "profile")
    try:
        driver.get(report_html.as_uri())
        inner = driver.execute_script("return window.innerWidth")
        page = driver.execute_script("return document.documentElement.scrollWidth")
        assert page <= inner, f"the page is {page} px wide in a {inner} px window"
        stats = driver.find_element(By.CSS_SELECTOR, "#stats table")
        table_width = driver.execute_script("return arguments[0].getBoundingClientRect().width", stats)
        assert table_width <= inner
        rows = stats.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(rows) >= 30
        hands_heading = stats.find_elements(By.CSS_SELECTOR, "thead th")[1]
        hands_heading.click()
        first = [int(r.find_elements(By.TAG_NAME, "td")[1].text.replace(",", "")) for r in stats.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert first == sorted(first, reverse=True)
        ARTIFACTS.mkdir(exist_ok=True)
        driver.execute_script("document.getElementById('stats').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / "report-30-players-1400px.png"))
    finally:
        driver.quit()


def test_every_finding_writes_amounts_in_the_hands_notation(tmp_path: Path) -> None:
    """Faulty euro and dollar hands, fixed and pot limit: no finding names a bare number of minor units.

    ``--no-equity``: the findings are the same with or without the streets' equities (which hold no amounts),
    and the equities are nine tenths of the audit's time on these hands."""
    files = []
    for rules, structure, seed in (("classic", "fixed", 6), ("classic", "pot", 5), ("stellapoker", "pot", 5), ("stellapoker", "no", 7)):
        out = tmp_path / f"{rules}-{structure}.txt"
        r = hhtool("simulate", "--hands", "150", "--rules", rules, "--structure", structure, "--faults", "0.6", "--seed", str(seed), "--out", str(out))
        assert r.returncode == 0, r.stderr
        files.append(str(out))
    r = hhtool("audit", "--json", "--no-equity", *files)
    assert r.returncode == 1, r.stderr
    bare = re.compile(r"(?<![€$£\d.,#\w-])\d{2,}(?![\d.,]|-max)")
    with_money = 0
    for line in r.stdout.splitlines():
        hand = json.loads(line)
        if hand["verdict"] == "unparsed":
            continue
        assert hand["unit"] == "cent" and hand["currency"] in ("EUR", "USD")
        sign = "€" if hand["currency"] == "EUR" else "$"
        for f in hand["findings"]:
            message = re.sub(r"\bline \d+", "line N", f["message"])
            assert not bare.search(message), (f["code"], f["message"])
            with_money += sign in message
    assert with_money > 50  # the amounts are there, in the hand's notation


def test_no_matching_hand_still_gives_a_csv_header(money_db: Path, tmp_path: Path) -> None:
    r = hhtool("stats", "--db", str(money_db), "--from", "2030-01-01", "--format", "csv")
    assert r.returncode == 0 and r.stdout.startswith("player,hands,")
    path = tmp_path / "empty.csv"
    path.write_text(r.stdout, encoding="utf-8")
    assert pl.read_csv(path).height == 0


def test_one_writer_of_amounts_for_the_audit_and_the_statistics() -> None:
    """The audit's amounts (in the hand's notation) and the statistics' (in the currency's) are the same text where
    the hand writes as the currency does; they differ only by what the hand writes (docs/stats.md, "Money")."""
    from hhtool.history.money import MoneyStyle, display_amount, format_amount

    euro = Currency("EUR", "€", 2)
    as_currency = MoneyStyle("€", cents=True, decimals=True, grouping=True)
    for minor in (0, 5, 50, 190, 123450, 100000000, -50, -123450):
        assert display_amount(minor, as_currency) == format_money(minor, euro)
    for minor in (0, 7, 1136, 1234567, -20):
        assert display_amount(minor, MoneyStyle()) == format_money(minor, currency_of(None, "chip"))
    assert format_money(-123450, euro) == "-€1,234.50" and format_money(1136, euro, signed=True) == "+€11.36"
    # the hand's own notation: no decimals where it writes none, no sign where it has none; but thousands always
    # grouped for a person, even where the hand groups none (issue 41)
    assert display_amount(1200, MoneyStyle("$", cents=True)) == "$12" and format_money(1200, currency_of("$", "cent")) == "$12.00"
    assert display_amount(123450, MoneyStyle("€", cents=True, decimals=True)) == "€1,234.50"
    assert display_amount(118715, MoneyStyle("€", cents=True, decimals=True)) == "€1,187.15"
    assert display_amount(123400, MoneyStyle("$", cents=True)) == "$1,234" and display_amount(-123450, MoneyStyle("", cents=True, decimals=True)) == "-1,234.50"
    assert display_amount(1250, MoneyStyle("", cents=True, decimals=True)) == "12.50" and format_money(1250, currency_of("", "cent")) == "12.50 XXX"
    # the writer writes the hand's text, the same way, and refuses what no hand writes
    assert format_amount(123450, MoneyStyle("€", cents=True, decimals=True, grouping=True)) == "€1,234.50"
    with pytest.raises(ValueError):
        format_amount(-1, as_currency)
