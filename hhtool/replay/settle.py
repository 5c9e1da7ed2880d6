"""A replay's settlement: the pots as the rules divide them, against what the history paid and wrote.

The pots are divided by :func:`hhtool.game.pots.share_pots` (the
simulator divides its hands with it too); :class:`Settlement` checks the
showdown's order against the betting machine's
(:meth:`hhtool.game.betting.Betting.first_to_show`,
:meth:`~hhtool.game.betting.Betting.show_order`: the order the simulator
shows in), the total, the rake and the side pots, compares the money paid
with the rules' pot by pot, and the summary with the hand.
"""

from __future__ import annotations

from collections.abc import Callable

from hhtool.game.cards import card_symbol
from hhtool.game.evaluate import HandValue
from hhtool.game.pots import Pot, pots_from, share_pots
from hhtool.game.rake import RakeDue, RakeRule
from hhtool.history.currency import currency_of
from hhtool.game.rules import ROUND_NAMES
from hhtool.history.events import Collected, Mucks, Shows
from hhtool.replay.deal import CardChecks
from hhtool.replay.explain import and_words, count_words, pot_reason, pot_words, show_rule, street_words
from hhtool.replay.findings import CODES, finding, grouped
from hhtool.replay.result import PotResult, RakeCheck, Replay, Verdict


class Settlement(CardChecks):
    """The end of a replay: :meth:`settle` returns the :class:`~hhtool.replay.result.Replay`."""

    def settle(self) -> Replay:
        hand = self.hand
        summary = hand.summary
        contributions = {p.name: p.total for p in self.players}
        folded = {p.name for p in self.players if p.folded}
        pots = pots_from(contributions, folded)
        total = 0
        for put in contributions.values():  # a loop, not sum() of a dict's view through Python's protocol
            total += put
        total_line = summary.line + 1  # 'Total pot … | Rake …' comes first in the summary
        if summary.total != total:
            self.add("total_pot", total_line, f"the total pot is {self.fmt(total)} by the bets, not {self.fmt(summary.total)}")
        if summary.rake > summary.total:
            claimed_by = self.claimed_words()
            self.add(
                "rake_exceeds_pot",
                total_line,
                f"the rake {self.fmt(summary.rake)} exceeds the total pot {self.fmt(summary.total)}: nothing would be left to award"
                + (f", yet the history pays {claimed_by}" if claimed_by else ""),
            )
        if summary.side_pots:
            written = [summary.main_pot or 0, *summary.side_pots]
            actual = [p.amount for p in pots]
            if written != actual:
                self.add("side_pots", total_line + 1, f"the pots are {', '.join(self.fmt(a) for a in actual)} by the contributions, not {', '.join(self.fmt(a) for a in written)}")
        elif len(pots) > 1:
            self.add("side_pots", total_line, f"the contributions make {count_words(len(pots) - 1, 'side pot')}, which the summary does not list")
        # who competes
        left = [p.name for p in self.players if not p.folded]
        rules = self.rules
        first = self.betting.first_to_show()
        if first is not None and first in self.mucked and not rules.all_show:  # all_show: each muck is refused where it stands (the walk)
            line = next((e.line for e in hand.events if isinstance(e, Mucks) and e.player == first), summary.line)
            self.add("muck_not_allowed", line, f"{first} mucks, but must show first ({show_rule(rules)})")
        if first is not None and self.show_order and self.show_order[0] != first:
            line = next((e.line for e in hand.events if isinstance(e, (Shows, Mucks)) and e.player == self.show_order[0]), summary.line)
            self.add("show_order", line, f"{self.show_order[0]} shows first, but {first} should ({show_rule(rules)})")
        elif first is not None and rules.shows_clockwise:
            # classic: then clockwise; italian: everyone in seat order from the button's left
            expected = [n for n in self.betting.show_order() if n in self.show_order]
            if self.show_order != expected:
                self.add("show_order", summary.line, f"the hands were shown in the order {', '.join(self.show_order)}; clockwise from {first} it is {', '.join(expected)}")
            if rules.all_show:
                silent = [n for n in left if n not in self.show_order]
                if silent:
                    self.add("show_order", summary.line, f"{and_words(silent)} did not show; in the {self.rules.name} profile everyone left shows")
        contenders = [n for n in left if n not in self.mucked] or left
        values = {n: v for n in contenders if (v := self.value_of(n)) is not None}
        order = [p.name for p in self.players]
        room = self.room
        due = None
        rake = summary.rake
        if room is not None and room.rake is not None:
            due = self.room_rake(room.rake, total, None)
            if self.explain or due.amount != summary.rake:  # the computation in words: for a reader, or a finding
                due = self.room_rake(room.rake, total, self.fmt)
            rake = due.amount
        shares = share_pots(pots, min(rake, total), contenders, order, values.get, self.rules)
        results: list[PotResult] = []
        payouts: dict[str, int] = {}
        for i, share in enumerate(shares):
            name = "main pot" if i == 0 else f"side pot-{i}"
            pot = share.pot
            eligible = share.contesting
            verified = True
            reason = ""
            if len(eligible) == 1:
                if self.explain:
                    mucked = [n for n in pot.eligible if n in self.mucked]
                    reason = f"{and_words(mucked)} mucked, so {eligible[0]} is the only player left contesting it" if mucked else f"{eligible[0]} is the only player left in it"
            else:
                unknown = share.unknown
                if unknown:
                    self.add("cards_unknown", summary.line, f"the cards of {and_words(unknown)} are unknown: the {name} cannot be checked")
                    verified = False
                if self.explain:
                    reason = pot_reason(list(share.judged), list(share.values), list(share.won), self.rules, self.room_cites()) if share.judged else "no hand is known"
            if share.amount <= 0 and self.explain:
                reason = "the rake takes all of it"
            win = share.win
            for n, a in win.items():
                payouts[n] = payouts.get(n, 0) + a
            results.append(PotResult(name, pot.amount, share.rake, tuple(pot.eligible), win, reason, verified))
        claimed: dict[str, int] = {}
        for e in hand.events:
            if isinstance(e, Collected):
                claimed[e.player] = claimed.get(e.player, 0) + e.amount
                if e.pot == "side" and e.side >= len(pots):
                    self.add("pot_label", e.line, f"{e.player} collects from side pot-{e.side}, but there {'is' if len(pots) == 2 else 'are'} {count_words(len(pots) - 1, 'side pot')}")
        if len(left) == 1 and not claimed:
            for o in summary.outcomes:
                if o.outcome == "collected" and o.amount is not None:
                    claimed[o.player] = claimed.get(o.player, 0) + o.amount
        all_verified = all(r.verified for r in results)
        rake_check: RakeCheck | None = None
        if due is not None and due.amount != summary.rake and summary.rake <= summary.total:
            rake_check = self.rule_rake(due, pots, contenders, order, values, payouts, claimed, total)
            if all_verified and rake_check.matches == "neither":
                self.compare_payouts(results, payouts, claimed, ruled=True)
        elif all_verified and summary.rake <= summary.total:  # a rake over the pot: rake_exceeds_pot says it all
            rake_check = self.compare_payouts(results, payouts, claimed, ruled=due is not None)
        if due is not None and rake_check is None:  # the room's rake, as stated: for the audit's words
            assert room is not None
            matches = "room" if payouts_equal(payouts, claimed) else "neither"
            rake_check = RakeCheck(summary.rake, due.amount, True, due.words, room.cites(due.keys), sum(claimed.values()), total, matches)
        self.check_summary(payouts, claimed)
        stacks = {p.name: p.behind + payouts.get(p.name, 0) for p in self.players}
        # grouped() leaves fewer than two findings as they are: most hands have none, and the call,
        # into an interpreted module, costs more than the rest of the verdict
        findings = grouped(self.findings) if len(self.findings) > 1 else tuple(self.findings)
        effects = {CODES[f.code].effect for f in findings}
        verdict: Verdict = "invalid" if "invalid" in effects else "disputed" if "disputed" in effects else "ok"
        return Replay(
            hand=hand,
            rules=self.rules,
            verdict=verdict,
            findings=findings,
            payouts=payouts,
            claimed=claimed,
            pots=tuple(results),
            showdown_order=tuple(self.show_order),
            rounds=tuple(self.rounds),
            stacks=stacks,
            categories=self.shown_categories(),
            facts=self.facts_walk.facts(summary.vela),
            holdings=self.holdings(),
            room=room,
            rake_check=rake_check,
        )

    def rule_rake(
        self,
        due: RakeDue,
        pots: list[Pot],
        contenders: list[str],
        order: list[str],
        values: dict[str, HandValue],
        payouts: dict[str, int],
        claimed: dict[str, int],
        total: int,
    ) -> RakeCheck:
        """The Rake line against the room's rake: ``rake_over`` or ``rake_under`` on the line, with both amounts, the computation and the file's lines.

        The payouts are the rules' after the room's rake.  When the
        collections match them, only the Rake line is wrong; when they
        match the Rake line's rake instead, the room took the wrong rake and
        the winners' difference is that rake's (the one finding says both);
        otherwise the collections are compared as usual, after this finding.
        """
        s = self.hand.summary
        room = self.room
        assert room is not None
        cites = room.cites(due.keys)
        stated_pay: dict[str, int] = {}
        for share in share_pots(pots, min(s.rake, total), contenders, order, values.get, self.rules):
            for n, a in share.win.items():
                stated_pay[n] = stated_pay.get(n, 0) + a
        matches = "room" if payouts_equal(payouts, claimed) else "stated" if payouts_equal(stated_pay, claimed) else "neither"
        over = s.rake > due.amount
        diff = self.fmt(abs(s.rake - due.amount))
        allowed = f"{diff} {'more' if over else 'less'} than the room's rules allow"
        if matches == "stated":
            paid = [f"{n} was paid {self.fmt(abs(payouts.get(n, 0) - a))} {'less' if over else 'more'}" for n, a in claimed.items() if payouts.get(n, 0) != a]
            message = f"the room took {self.fmt(s.rake)} in rake, {allowed}: {due.words}; so {and_words(paid)} than the rules give"
        elif matches == "room":
            message = f"the Rake line says {self.fmt(s.rake)}, {allowed}: {due.words}; the collections match the room's rake of {self.fmt(due.amount)}"
        else:
            message = f"the Rake line says {self.fmt(s.rake)}, {allowed}: {due.words}"
        self.findings.append(finding("rake_over" if over else "rake_under", s.line + 1, message, cites))
        return RakeCheck(s.rake, due.amount, True, due.words, cites, sum(claimed.values()), total, matches)

    def room_rake(self, rule: RakeRule, total: int, fmt: Callable[[int], str] | None) -> RakeDue:
        """The room's rake of this hand (:meth:`hhtool.game.rake.RakeRule.due`), its words only with ``fmt``."""
        money = self.money
        currency = currency_of(money.symbol, "cent" if money.cents else "chip").code
        return rule.due(
            total, currency=currency, cents=money.cents, big_bet=self.hand.header.big_bet, players=len(self.players), reached_round=self.street_round, fmt=fmt
        )

    def room_cites(self) -> dict[str, str] | None:
        """The room file's citation of each showdown rule it sets differently from its base (for the pots' reasons)."""
        room = self.room
        if room is None or not room.changed:
            return None
        return {p: room.cites([f"rules.{p}"]) for p in ("tie_break", "sf_rule") if p in room.changed} or None

    def claimed_words(self) -> str:
        """What the history pays, in words: "bob €10.90" (collection lines, else the summary's)."""
        paid: dict[str, int] = {}
        for e in self.hand.events:
            if isinstance(e, Collected):
                paid[e.player] = paid.get(e.player, 0) + e.amount
        if not paid:
            for o in self.hand.summary.outcomes:
                if o.outcome == "collected" and o.amount is not None:
                    paid[o.player] = paid.get(o.player, 0) + o.amount
        return and_words([f"{n} {self.fmt(a)}" for n, a in paid.items() if a > 0])

    def compare_payouts(self, results: list[PotResult], payouts: dict[str, int], claimed: dict[str, int], ruled: bool = False) -> RakeCheck | None:
        """The money as the rules settle it against the history's, reported on the line that is wrong.

        Per player first: if everyone got what the rules give, only the pot
        labels can be wrong (``pot_label``).  Otherwise, when the history is
        consistent with itself (each winner's collection line and seat line
        say the same) but its rake does not leave what was collected, the
        rake line and the collections disagree (returned, for the verdict,
        which then names neither side): unless the room's file states
        the rake (``ruled``), which settles it: the collections are then
        compared as usual.  Else each pot is compared with the collections
        that name it, so a dispute names its pot and its line.
        """
        if payouts_equal(payouts, claimed):
            if len(results) < 2:
                return None  # the common case, at no cost: one pot, paid as the rules pay it
            by_pot = self._collections_by_pot([e for e in self.hand.events if isinstance(e, Collected)], len(results))
            if by_pot is not None:
                for r, cols in zip(results, by_pot):
                    for c in cols:
                        if r.winners.get(c.player, 0) <= 0 and len(results) > 1:
                            won = and_words([q.name for q in results if q.winners.get(c.player, 0) > 0])
                            self.add("pot_label", c.line, f"{c.player} collects from {pot_words(r.name)}, but the rules give {c.player} {pot_words(won)}")
            return None
        if not ruled and self._rake_line_wrong(payouts, claimed):
            s = self.hand.summary
            return RakeCheck(s.rake, 0, False, "", "", sum(claimed.values()), s.total, "neither")
        collections = [e for e in self.hand.events if isinstance(e, Collected)]
        by_pot = self._collections_by_pot(collections, len(results))
        if by_pot is None or not collections:
            self._compare_players(payouts, claimed, collections)
            return None
        for r, cols in zip(results, by_pot):
            self._compare_pot(r, cols, len(results) == 1)
        return None

    def _collections_by_pot(self, collections: list[Collected], n: int) -> list[list[Collected]] | None:
        """The collection lines of each pot, or None when a line names no pot of the rules' ("from pot" with side pots)."""
        out: list[list[Collected]] = [[] for _ in range(n)]
        for c in collections:
            k = c.side if c.pot == "side" else 0 if c.pot == "main" or n == 1 else -1
            if not 0 <= k < n:
                return None
            out[k].append(c)
        return out

    def _rake_line_wrong(self, payouts: dict[str, int], claimed: dict[str, int]) -> bool:
        """The rake is the odd one out: the bets make the total, collections and seat lines agree, the same winners."""
        s = self.hand.summary
        got = sum(claimed.values())
        if not claimed or got + s.rake == s.total or s.total != sum(p.total for p in self.players):
            return False
        if {n for n, a in payouts.items() if a > 0} != {n for n, a in claimed.items() if a > 0}:
            return False
        said = {o.player: o.amount for o in s.outcomes if o.outcome in ("won", "collected") and o.amount is not None}
        if any(said.get(n, a) != a for n, a in claimed.items()):
            return False
        differ = [f"{n} {self.fmt(payouts.get(n, 0))}, not {self.fmt(a)}" for n, a in claimed.items() if payouts.get(n, 0) != a]
        self.add(
            "wrong_amount",
            s.line + 1,
            f"the rake {self.fmt(s.rake)} and the {self.fmt(got)} collected add up to {self.fmt(got + s.rake)}, "
            f"not the total pot {self.fmt(s.total)}: the rake or the collections are wrong "
            f"(after this rake the rules give {and_words(differ)})",
        )
        return True

    def _compare_pot(self, r: PotResult, cols: list[Collected], single: bool) -> None:
        """One pot against the collection lines that name it."""
        rules_won = [n for n, a in r.winners.items() if a > 0]
        paid: dict[str, int] = {}
        for c in cols:
            paid[c.player] = paid.get(c.player, 0) + c.amount
        paid_to = [n for n, a in paid.items() if a > 0]
        if set(rules_won) != set(paid_to):
            wrong = next((c for c in cols if c.player not in rules_won), cols[0] if cols else None)
            line = wrong.line if wrong is not None else self.hand.summary.line + (2 if self.hand.summary.side_pots else 1)
            history = and_words(sorted(paid_to)) or "nobody"
            if not rules_won:
                self.add("wrong_winner", line, f"{r.name}: the rake takes all of it; the history pays {history}")
            elif single:
                self.add("wrong_winner", line, f"the rules award the pot to {and_words(sorted(rules_won))}; the history pays {history}")
            else:
                self.add("wrong_winner", line, f"{r.name}: the rules award it to {and_words(sorted(rules_won))}; the history pays {history}")
            return
        where = "the pot" if single else pot_words(r.name)
        for n in paid_to:
            if paid[n] != r.winners[n]:
                line = next(c.line for c in cols if c.player == n)
                self.add("wrong_amount", line, f"{n} collected {self.fmt(paid[n])} from {where}; the rules give {self.fmt(r.winners[n])}")

    def _compare_players(self, payouts: dict[str, int], claimed: dict[str, int], collections: list[Collected]) -> None:
        """Each player's money against the history's, where the collection lines do not say which pot."""
        lines: dict[str, int] = {}
        for c in collections:
            lines.setdefault(c.player, c.line)
        for o in self.hand.summary.outcomes:
            lines.setdefault(o.player, o.line)
        total_line = self.hand.summary.line + 1
        winners_rules = {n for n, a in payouts.items() if a > 0}
        winners_claimed = {n for n, a in claimed.items() if a > 0}
        if winners_rules != winners_claimed:
            wrong = sorted(winners_claimed - winners_rules, key=lambda n: lines.get(n, total_line))
            line = lines.get(wrong[0], total_line) if wrong else min((lines.get(n, total_line) for n in winners_claimed), default=total_line)
            self.add(
                "wrong_winner",
                line,
                f"the rules award the pot to {and_words(sorted(winners_rules)) or 'nobody'}; the history pays {and_words(sorted(winners_claimed)) or 'nobody'}",
            )
            return
        for n in sorted(winners_rules):
            if payouts.get(n, 0) != claimed.get(n, 0):
                self.add("wrong_amount", lines.get(n, total_line), f"{n} collected {self.fmt(claimed.get(n, 0))}; the rules give {self.fmt(payouts.get(n, 0))}")

    def check_summary(self, payouts: dict[str, int], claimed: dict[str, int]) -> None:
        summary = self.hand.summary
        if summary.vela is not None and self.vela is not None and summary.vela != self.vela:
            self.add("summary_vela", summary.line, f"the summary's vela {card_symbol(summary.vela)} is not the {card_symbol(self.vela)} turned")
        for o in summary.outcomes:
            try:
                p = self.betting.player(o.player)
            except KeyError:
                continue
            if o.outcome == "folded":
                if not p.folded:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} folded, but {o.player} did not fold")
                elif o.street is not None and (folded_on := ROUND_NAMES[p.folded_round - 1] if p.folded_round else None) != o.street:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} folded {street_words(o.street)}, but {o.player} folded {street_words(folded_on)}")
            elif o.outcome in ("won", "collected"):
                if o.amount is not None and claimed.get(o.player, 0) != o.amount:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} won {self.fmt(o.amount)}, but {o.player} collected {self.fmt(claimed.get(o.player, 0))}")
            elif o.outcome == "lost" and claimed.get(o.player, 0) > 0:
                self.add("summary_outcome", o.line, f"the summary says {o.player} lost, but {o.player} collected {self.fmt(claimed[o.player])}")
            if o.cards is not None and o.player in self.shown and tuple(o.cards) != self.shown[o.player]:
                self.add("summary_outcome", o.line, f"{o.player}'s cards in the summary differ from those shown")


def payouts_equal(a: dict[str, int], b: dict[str, int]) -> bool:
    """The same money to the same players (a player paid nothing counts as absent)."""
    return a == b or {n: v for n, v in a.items() if v} == {n: v for n, v in b.items() if v}
