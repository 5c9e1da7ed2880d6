"""The audit as a floor manager reads it: the line that is wrong, the pot named, causes before consequences, what-ifs.

The mutation corpus (tests/test_mutations.py) checks the cause's line for
every fault class; these are the cases a person reads aloud.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hhtool.replay.audit import AuditResult, showdown_rules, to_json, to_text, verdict_text, what_if
from hhtool.history.parse import parse_text
from hhtool.replay import replay
from hhtool.game.rules import profile
from tests.inprocess import hhtool
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
SIDE_POTS = (SAMPLES / "030_italian_no_limit_side_pots.txt").read_text(encoding="utf-8")


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    """``hhtool audit *args`` in this process (:mod:`tests.inprocess`): the words are the point."""
    return hhtool("audit", *args, env={"COLUMNS": "400"})  # the help text unwrapped, one line an option


def test_a_side_pot_dispute_names_its_pot_on_the_collection_line() -> None:
    text = SIDE_POTS.replace("Luca collected 4,500 from side pot-1", "Matteo collected 4,500 from side pot-1")
    r = replay(parse_text(text))
    first = r.findings[0]
    assert (first.code, first.line, first.caused_by) == ("wrong_winner", 53, None)
    assert first.message.startswith("side pot-1: the rules award it to Luca; the history pays Matteo (RULES.md §7)")
    # the seat lines that disagree with the collections follow from it
    assert [(f.code, f.caused_by) for f in r.findings[1:]] == [("summary_outcome", 0), ("summary_outcome", 0)]
    assert r.verdict == "disputed"


def test_money_findings_are_on_the_collection_line_not_the_summary() -> None:
    text = EXAMPLE.replace("bob collected €10.90", "alice collected €10.90")
    r = replay(parse_text(text))
    line = text.split("\n").index("alice collected €10.90 from pot") + 1
    assert (r.findings[0].code, r.findings[0].line) == ("wrong_winner", line)
    assert r.findings[0].message == "the rules award the pot to bob; the history pays alice (RULES.md §7)"
    paragraph = verdict_text(AuditResult("x", r, None))
    assert paragraph.startswith("The pot was paid to alice (€10.90); under the classic rules it belongs to bob (€10.90): both hold two pair")


def test_rake_larger_than_the_pot_says_so_once() -> None:
    r = replay(parse_text(EXAMPLE.replace("Rake €0.50", "Rake €11.50")))
    assert [f.code for f in r.findings] == ["rake_exceeds_pot"]
    message = r.findings[0].message
    assert "the rake €11.50 exceeds the total pot €11.40" in message and "yet the history pays bob €10.90" in message
    assert "nobody" not in message
    assert r.pots[0].reason == "the rake takes all of it"


def test_a_wrong_rake_is_reported_on_the_rake_line() -> None:
    text = EXAMPLE.replace("Rake €0.50", "Rake €0.60")
    r = replay(parse_text(text))
    assert [(f.code, f.line) for f in r.findings] == [("wrong_amount", text.split("\n").index("Total pot €11.40 | Rake €0.60") + 1)]
    assert "the rake €0.60 and the €10.90 collected add up to €11.50, not the total pot €11.40" in r.findings[0].message


def test_one_wrong_bet_is_one_cause_with_its_consequences_indented() -> None:
    text = EXAMPLE.replace("dave: bets €0.50\nalice: calls €0.50", "dave: bets €0.70\nalice: calls €0.50")
    r = replay(parse_text(text))
    assert r.findings[0].code == "bet_size" and r.findings[0].caused_by is None
    assert "dave bets to €0.70; fixed limit allows €0.50" in r.findings[0].message
    assert len(r.findings) > 2 and all(f.caused_by == 0 for f in r.findings[1:])
    report = to_text(AuditResult("x", r, None))
    cause = next(line for line in report.splitlines() if "bet_size" in line)
    assert cause.startswith("  line ") and not cause.startswith("   ")
    assert all(line.startswith("      line ") for line in report.splitlines() if "call_amount" in line or "uncalled_missing" in line)
    assert report.splitlines()[2].startswith("This hand could not have happened under the classic rules: line ")
    assert [f["caused_by"] for f in to_json(AuditResult("x", r, None))["findings"]] == [None] + [0] * (len(r.findings) - 1)


def test_a_mucked_hand_is_named_as_mucked() -> None:
    text = EXAMPLE.replace("alice: shows [Qc Qs 9c Jc Jd] (two pair, Queens and Jacks)", "alice: mucks hand")
    r = replay(parse_text(text))
    assert r.pots[0].reason == "alice mucked, so bob is the only player left contesting it"


def test_description_nouns_read_aloud() -> None:
    reasons = [p.reason for p in replay(parse_text(SIDE_POTS)).pots]
    assert reasons[0].startswith("Sofia's flush (Diamonds) beats Luca's full house (Queens full of Sixes): ")
    assert "Sofia's a flush" not in " ".join(reasons)


def test_showdown_what_if_on_the_format_example_splits_with_the_betting_untouched() -> None:
    hand = parse_text(EXAMPLE)
    w = what_if(hand, profile("stellapoker"), "showdown")
    assert w.base.payouts == {"bob": 1090} and w.other.payouts == {"alice": 545, "bob": 545}
    assert w.other.rules == showdown_rules(profile("classic"), profile("stellapoker"))
    assert w.other.rules.forced_bets == "antes" and w.other.rules.tie_break == "split"
    # the betting as it was: the same rounds, the same pot, no finding but the payout the history made
    assert w.other.rounds == w.base.rounds
    assert [p.amount for p in w.other.pots] == [1140]
    assert [f.code for f in w.other.findings] == ["wrong_winner"]
    assert w.changes == [("alice", 0, 545), ("bob", 1090, 545)]
    assert w.changes_text() == "alice: €0.00 → €5.45; bob: €10.90 → €5.45"


def test_showdown_what_if_through_the_command() -> None:
    example = str(SAMPLES / "000_format_example.txt")
    r = audit("--json", "--showdown-rules", "stellapoker", example)
    assert r.returncode == 0, r.stderr  # the hand itself is ok under its own rules
    obj = json.loads(r.stdout)
    assert obj["verdict"] == "ok" and obj["payouts"] == {"bob": 1090}
    assert obj["what_if"]["kind"] == "showdown" and obj["what_if"]["payouts"] == {"alice": 545, "bob": 545}
    assert obj["what_if"]["changes"] == [{"player": "alice", "from": 0, "to": 545}, {"player": "bob", "from": 1090, "to": 545}]
    text = audit("--showdown-rules", "stellapoker", example).stdout
    assert "what if: the showdown under stellapoker's comparison (tie-break split; straight flushes standard), the betting as it was" in text
    assert "payouts that change: alice: €0.00 → €5.45; bob: €10.90 → €5.45" in text
    full = audit("--rules", "stellapoker", example).stdout
    assert "what if: the whole hand under the stellapoker rules" in full and "bob: €10.90 → €5.45" in full
    both = audit("--rules", "stellapoker", "--showdown-rules", "italian", example)
    assert both.returncode == 2 and "ask one of them" in both.stderr
    assert audit("--showdown-rules", "texas", example).returncode == 2
    helptext = audit("--help").stdout
    assert helptext.count("<classic|stellapoker|italian|FILE>") >= 2


def test_the_report_opens_with_the_verdict_paragraph(tmp_path: Path) -> None:
    r = audit(str(SAMPLES / "000_format_example.txt"))
    lines = r.stdout.splitlines()
    assert lines[1] == "verdict: ok"
    assert lines[2].startswith("The pot went to bob (€10.90), as the classic rules award it: both hold two pair, Queens and Jacks, "
                               "and bob's Q♥ beats alice's Q♣ (")


def test_an_unparsed_hand_says_what_stopped_it_in_json() -> None:
    r = audit("--json", str(SAMPLES / "broken" / "unseated_player.txt"))
    obj = json.loads(r.stdout)
    assert r.returncode == 1 and obj["verdict"] == "unparsed"
    assert obj["verdict_text"].startswith("This hand could not be read: zed is not seated at this table")
