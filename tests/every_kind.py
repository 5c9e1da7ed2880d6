"""Two hands that hold every line kind between them: the line kinds' own test corpus.

``tests/test_lines.py`` requires that they hold every row of the table of line
kinds (``hhtool/history/lines.py``), reads them in C and in Python to the same
hand, writes them back as read, pickles and replays them; ``tests/test_scan.py``
inserts a line of each kind at every place of its base hands.  A new line
kind is a line added here (docs/architecture.md, "Adding a line kind").
"""

from __future__ import annotations

from hhtool.history.build import Builder
from hhtool.history.events import Hand

ANTES = """\
Vela Hand #K-1: Telesina classic No Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20 - 2026/11/29 18:00:00 UTC
Table 'Every kind' 6-max Seat #5 is the button
Seat 1: alice (€20.00 in chips)
Seat 2: bob (€20.00 in chips)
Seat 3: carol (€20.00 in chips)
Seat 4: dave (€20.00 in chips)
Seat 5: erin (€20.00 in chips)
alice: posts the ante €0.10
bob: posts the ante €0.10
carol: posts the ante €0.10
dave: posts the ante €0.10
erin: posts the ante €0.10 and is all-in
zed joins the table at seat #6
*** 2nd STREET ***
Dealt to alice [Qc Qs]
Dealt to bob [Js Jh]
Dealt to carol [7c 9s]
Dealt to dave [Ts Th]
Dealt to erin
alice: brings in for €0.20
bob: calls €0.20
carol: completes it to €0.50
dave: raises €0.50 to €1.00
alice: calls €0.80
bob: calls €0.80
carol: calls €0.50
*** 3rd STREET ***
Dealt to alice [Qc Qs] [9c]
Dealt to bob [Js Jh] [8d]
Dealt to carol [7c 9s] [2d]
Dealt to dave [Ts Th] [7d]
Pair on board - a double bet is allowed
alice: checks
bob: bets €1.00
Betting is capped
carol: folds
dave: calls €1.00
alice: calls €1.00
*** 4th STREET ***
Dealt to alice [Qc Qs 9c] [Jc]
Dealt to bob [Js Jh 8d] [Qh]
Dealt to dave [Ts Th 7d] [8s]
dave: exposes [Ts]
alice: checks
bob: checks
dave: checks
*** 5th STREET ***
Dealt to alice [Qc Qs 9c Jc] [Jd]
Dealt to bob [Js Jh 8d Qh] [Qd]
Dealt to dave [Ts Th 7d 8s] [6s]
alice: checks
bob: checks
dave: checks
*** VELA *** [Ks]
alice: bets €2.00
bob: calls €2.00
dave: calls €2.00
bob is disconnected
bob has timed out
zed said, "nice hand"
alice said, "thanks, bob"
zed leaves the table
*** SHOW DOWN ***
alice: shows [Qc Qs 9c Jc Jd] (two pair, Queens and Jacks)
bob: shows [Js Jh 8d Qh Qd] (two pair, Queens and Jacks)
dave: mucks hand
erin: doesn't show hand
alice collected €5.00 from side pot-1
alice collected €2.00 from main pot
*** SUMMARY ***
Total pot €7.50 | Rake €0.50
Main pot €2.00. Side pot-1 €5.50.
Vela [Ks]
Seat 1: alice showed [Qc Qs 9c Jc Jd] and won (€7.00) with two pair, Queens and Jacks
Seat 2: bob showed [Js Jh 8d Qh Qd] and lost with two pair, Queens and Jacks
Seat 3: carol folded on 3rd Street
Seat 4: dave mucked
Seat 5: erin (button) collected (€0.00)"""

BLINDS = """\
StellaPoker Hand #S-1: Telesina stellapoker Pot Limit ($0.50/$1.00) - blinds $0.25/$0.50 - 2026/11/29 20:15:00 EST
Table 'Blinds' 6-max Seat #1 is the button
Seat 1: Marco ($10.00 in chips)
Seat 2: Lucia ($10.00 in chips)
Seat 3: Gianni ($10.00 in chips)
Lucia: posts small blind $0.25
Gianni: posts big blind $0.50
*** 2nd STREET ***
Dealt to Marco [Ah Kd]
Marco: folds
Lucia: folds
Uncalled bet ($0.25) returned to Gianni
Gianni collected $0.50 from pot
*** SUMMARY ***
Total pot $0.50 | Rake $0.00
Seat 1: Marco (button) folded on 2nd Street
Seat 2: Lucia (small blind) folded on 2nd Street
Seat 3: Gianni (big blind) collected ($0.50)"""

EVERY_KIND = (ANTES, BLINDS)


def python_reads(text: str, first_line: int = 1) -> Hand:
    """The hand as the Python builder reads it (the reference reading)."""
    return Builder(text.split("\n"), first_line, "every.txt").parse()


def kinds_in(hand: Hand) -> dict[str, int]:
    """The line kinds a hand holds, each with the line number of its first line.

    A body kind by the name of its event class; the summary's parts by
    their rule (``summary``, ``total``, ``pots``, ``summary_vela``,
    ``seat_<outcome>``).
    """
    found: dict[str, int] = {}
    for e in hand.events:
        found.setdefault(type(e).__name__, e.line)
    s = hand.summary
    found["summary"] = s.line
    found["total"] = s.line + 1
    if s.main_pot is not None:
        found["pots"] = s.line + 2
    if s.vela is not None:
        found["summary_vela"] = s.line + 2 + (s.main_pot is not None)
    for o in s.outcomes:
        found.setdefault(f"seat_{o.outcome}", o.line)
    return found


def one_line_of_each_kind() -> list[str]:
    """The first line of each kind in the two hands, in order."""
    lines: dict[str, str] = {}
    for text in EVERY_KIND:
        rows = text.split("\n")
        for kind, line in kinds_in(python_reads(text)).items():
            lines.setdefault(kind, rows[line - 1])
    return list(lines.values())
