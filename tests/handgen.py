"""Random hands as canonical text, for the round-trip property and the parse benchmark.

The hands are syntactically valid and plausible (antes, a bring-in or
blinds, streets with deals and actions, folds, all-ins, side pots, the
vela, a showdown, chatter) but not audited: amounts are not checked
against the rules.  The text is canonical (what :mod:`hhtool.history.write`
writes), so ``write(parse(text)) == text`` is the property to test.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hhtool.game.cards import RANK_CHARS, Card, card_str, deck_cards
from hhtool.game.rules import STREET_NAMES
from hhtool.history.money import MoneyStyle, format_amount

NAMES = (
    "alice", "bob", "bob smith", "carol", "dave", "Il", "Il Vecchio", "ciro:napoli",
    "[VIP] Zia (IT)", "o'neil", "Ännchen", "名人", "x: y", "Luca", "Sofia", "Matteo",
)
STYLES = (
    MoneyStyle("€", True, True, False),
    MoneyStyle("$", True, True, False),
    MoneyStyle("£", True, True, False),
    MoneyStyle("$", True, False, False),  # whole dollars: "$12"
    MoneyStyle("", False, False, True),  # chips with thousands separators
    MoneyStyle("", False, False, False),
)
DESCRIPTIONS = ("high card Ace", "a pair of Kings", "two pair, Kings and Jacks", "a flush, Hearts", "a full house, Tens full of Eights")
CHATTER = (" is disconnected", " has timed out", ' said, "gl hf"', " leaves the table")


def generate_hand(rng: random.Random, number: int, names: Sequence[str] = NAMES) -> str:
    """One hand as canonical text (ends with a newline)."""
    profile = rng.choice(("classic", "stellapoker", "italian"))
    structure = rng.choice(("Fixed Limit", "Pot Limit", "No Limit"))
    style = rng.choice(STYLES)
    unit = 100 if style.cents and not style.decimals else 1
    if style.cents and style.decimals:
        small = rng.choice((50, 100, 200))
    elif unit == 100:
        small = 100 * rng.choice((1, 2, 5))
    else:
        small = rng.choice((100, 200, 1000)) if style.grouping else rng.choice((10, 20, 40))
    big = 2 * small
    ante = max(unit, (small // 5) // unit * unit)
    bring = 2 * ante

    def amt(v: int) -> str:
        return format_amount(v, style)

    players = rng.randint(2, min(6, len(names)))
    chosen = rng.sample(list(names), players)
    max_seats = rng.choice((6, 8, 10)) if players <= 6 else 10
    seat_numbers = sorted(rng.sample(range(1, max_seats + 1), players))
    button = rng.choice(seat_numbers)
    stacks = {p: small * rng.randint(10, 60) for p in chosen}
    options = ""
    vela_at_start = False
    if profile == "italian":
        if rng.random() < 0.3:
            options += " [vela at start]"
            vela_at_start = True
        if rng.random() < 0.3:
            options += f" [wild {RANK_CHARS[rng.choice((7, 8, 9, 10, 11, 12, 13, 14)) - 2]}]"
        if rng.random() < 0.3:
            options += rng.choice((" [carte coperte]", " [una coperta]"))
    if profile == "stellapoker":
        forced = f"blinds {amt(ante)}/{amt(2 * ante)}"
    elif profile == "classic":
        forced = f"ante {amt(ante)}, bring-in {amt(bring)}"
    else:
        forced = f"ante {amt(ante)}"
    zone = rng.choice(("UTC", "CET", "CEST", "ET", "+01:00", "-05:00"))
    when = f"2026/{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    site = rng.choice(("Vela", "StellaPoker", "Tavolo"))
    lines = [
        f"{site} Hand #G-{number}: Telesina {profile}{options} {structure} ({amt(small)}/{amt(big)}) - {forced} - {when} {zone}",
        f"Table 'Gen {number % 97}' {max_seats}-max Seat #{button} is the button",
    ]
    seat_of = dict(zip(chosen, seat_numbers))
    for p in chosen:
        lines.append(f"Seat {seat_of[p]}: {p} ({amt(stacks[p])} in chips)")
    put = {p: 0 for p in chosen}
    if profile == "stellapoker":
        sb, bb = chosen[0], chosen[1 % players]
        lines.append(f"{sb}: posts small blind {amt(ante)}")
        lines.append(f"{bb}: posts big blind {amt(2 * ante)}")
        put[sb] += ante
        put[bb] += 2 * ante
    else:
        for p in chosen:
            lines.append(f"{p}: posts the ante {amt(ante)}")
            put[p] += ante
    deck = deck_cards(6 if profile == "italian" else 7)
    rng.shuffle(deck)
    cards: dict[str, list[Card]] = {p: [] for p in chosen}
    active = list(chosen)
    folded_on: dict[str, str] = {}
    viewer = rng.choice(chosen) if rng.random() < 0.5 else None
    streets = STREET_NAMES
    last_bettor: str | None = None
    for k, street in enumerate(streets):
        lines.append(f"*** {street} STREET ***")
        for p in active:
            new = [deck.pop()] if k else [deck.pop(), deck.pop()]
            old = cards[p]
            cards[p] = old + new
            if k == 0:
                shown = cards[p] if viewer in (None, p) else cards[p][1:]
                lines.append(f"Dealt to {p} [{' '.join(card_str(c) for c in shown)}]")
            else:
                known = old if viewer in (None, p) else old[1:]
                lines.append(f"Dealt to {p} [{' '.join(card_str(c) for c in known)}] [{card_str(new[0])}]")
        if k == 1 and rng.random() < 0.2:
            lines.append("Pair on board - a double bet is allowed")
        size = small if k < 2 else big
        bet = 0
        acted = 0
        if k == 0 and profile == "classic":
            opener = active[0]
            lines.append(f"{opener}: brings in for {amt(bring)}")
            put[opener] += bring
            bet = bring
            acted = 1
        order = active[acted:] + active[:acted]
        for p in list(order):
            if len(active) == 1:
                break
            roll = rng.random()
            if rng.random() < 0.03:
                lines.append(p + rng.choice(CHATTER))
            if bet == 0:
                if roll < 0.5:
                    lines.append(f"{p}: checks")
                else:
                    bet = size
                    put[p] += size
                    last_bettor = p
                    allin = " and is all-in" if rng.random() < 0.05 else ""
                    lines.append(f"{p}: bets {amt(size)}{allin}")
            else:
                if roll < 0.25:
                    lines.append(f"{p}: folds")
                    active.remove(p)
                    folded_on[p] = street
                elif roll < 0.85:
                    lines.append(f"{p}: calls {amt(bet)}")
                    put[p] += bet
                elif roll < 0.95 or k:
                    new_total = bet + size
                    lines.append(f"{p}: raises {amt(size)} to {amt(new_total)}")
                    put[p] += new_total
                    bet = new_total
                    last_bettor = p
                else:
                    lines.append(f"{p}: completes it to {amt(small)}")
                    put[p] += small
                    bet = small
        if rng.random() < 0.05:
            lines.append("Betting is capped")
        if len(active) == 1:
            break
    total = sum(put.values())
    rake = 0 if not style.cents else (unit if total > 20 * unit else 0)
    vela = None
    winner = active[0]
    if len(active) == 1:
        if last_bettor == winner and rng.random() < 0.8:
            lines.append(f"Uncalled bet ({amt(size)}) returned to {winner}")
            total -= size
            total = max(total, 0)
        lines.append(f"{winner} collected {amt(max(total - rake, 0))} from pot")
    else:
        if profile == "classic" or vela_at_start:
            vela = deck.pop()
            lines.append(f"*** VELA *** [{card_str(vela)}]")
            if profile == "classic" and rng.random() < 0.7:
                lines.append(f"{active[0]}: bets {amt(big)}")
                for p in active[1:]:
                    lines.append(f"{p}: calls {amt(big)}")
                    put[p] += big
                put[active[0]] += big
                total = sum(put.values())
        lines.append("*** SHOW DOWN ***")
        winner = rng.choice(active)
        for p in active:
            if p != winner and rng.random() < 0.3:
                lines.append(f"{p}: mucks hand")
            else:
                lines.append(f"{p}: shows [{' '.join(card_str(c) for c in cards[p])}] ({rng.choice(DESCRIPTIONS)})")
        side = rng.random() < 0.2 and len(active) > 2
        if side:
            main = (total - rake) // 2 // unit * unit
            lines.append(f"{winner} collected {amt(main)} from main pot")
            lines.append(f"{active[-1]} collected {amt(total - rake - main)} from side pot-1")
        else:
            lines.append(f"{winner} collected {amt(max(total - rake, 0))} from pot")
    lines.append("*** SUMMARY ***")
    total = max(total, 0)
    lines.append(f"Total pot {amt(total)} | Rake {amt(rake)}")
    if len(active) > 1 and side:
        main_pot = total // 2 // unit * unit
        lines.append(f"Main pot {amt(main_pot)}. Side pot-1 {amt(total - main_pot)}.")
    if vela is not None:
        lines.append(f"Vela [{card_str(vela)}]")
    for p in sorted(chosen, key=lambda q: seat_of[q]):
        mark = " (button)" if seat_of[p] == button else ""
        if p in folded_on:
            lines.append(f"Seat {seat_of[p]}: {p}{mark} folded on {folded_on[p]} Street")
        elif len(active) == 1:
            lines.append(f"Seat {seat_of[p]}: {p}{mark} collected ({amt(max(total - rake, 0))})")
        elif p == winner:
            lines.append(f"Seat {seat_of[p]}: {p}{mark} showed [{' '.join(card_str(c) for c in cards[p])}] and won ({amt(max(total - rake, 0))}) with {DESCRIPTIONS[1]}")
        elif rng.random() < 0.5:
            lines.append(f"Seat {seat_of[p]}: {p}{mark} mucked")
        else:
            lines.append(f"Seat {seat_of[p]}: {p}{mark} showed [{' '.join(card_str(c) for c in cards[p])}] and lost with {DESCRIPTIONS[0]}")
    return "\n".join(lines) + "\n"


def generate_file(rng: random.Random, hands: int, start: int = 1) -> str:
    """Several hands separated by blank lines."""
    return "\n".join(generate_hand(rng, start + i) for i in range(hands))
