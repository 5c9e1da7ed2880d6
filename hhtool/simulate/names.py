"""The simulated players' names: a table's, and the population mode's (``--pool N``), the same for every seed, so a pair can be named before the run.

Apart from :mod:`hhtool.simulate.pool` because the request
(:mod:`hhtool.simulate.config`) checks the pairs named on the command line
against them, and the pool's seating reads the request.
"""

from __future__ import annotations

FIRST_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo")
"""The players of a table without ``--pool``, in seat order."""

NICKS = (
    "Luca", "Sofia", "asso_di_picche", "Nonna Pina", "LupoSolitario", "vela77", "Il Vecchio", "ciro:napoli",
    "[VIP] Zia (IT)", "Ännchen", "o'neil", "<b>Zia</b>", "=1+1", "Gatto Nero", "SetteBello", "donnadifiori",
    "Re di Roma", "tiltproof", "MrFold", "Zio Tom", "bari_boy", "fantedicuori", "la_volpe", "pokerissimo",
    "Matteo", "Chiara", "Davide", "Piero", "Lia", "Bruno", "Rosa", "Enzo",
)
"""The pool's first names: nicks as rooms see them, some with spaces, colons, brackets, markup or a
formula sign (a screen must keep them inert), then built from :data:`_STEMS` and :data:`_ENDS`."""

_STEMS = ("Asso", "Lupo", "Volpe", "Fante", "Dama", "Capo", "Gatto", "Orso", "Falco", "Corvo", "Vela", "Bari")
_ENDS = ("Nero", "Rosso", "Matto", "Fino", "Vero", "Blu", "Pazzo", "Forte")


def pool_names(n: int) -> tuple[str, ...]:
    """The pool's ``n`` names, the same for every seed (a pair can be named before the run): :data:`NICKS`, then stem+end+number."""
    names = list(NICKS[:n])
    k = 0
    while len(names) < n:
        stem = _STEMS[k % len(_STEMS)]
        end = _ENDS[(k // len(_STEMS)) % len(_ENDS)]
        lap = k // (len(_STEMS) * len(_ENDS))
        names.append(f"{stem}{end}{lap * 100 + 7 + k % 89}")
        k += 1
    return tuple(names)
