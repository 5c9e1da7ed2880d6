"""The game: cards and decks, the rule profiles of RULES.md, hand values and who beats whom.

Nothing here knows about hand-history text or databases: :mod:`.cards`,
:mod:`.rules` (a profile is data), :mod:`.evaluate` (a hand's value, with the
reasons) and :mod:`.keys` (the same value as one fast integer, for millions of
hands), :mod:`.showing` (who opens a betting round), :mod:`.showdown` (who
takes a pot and why), :mod:`.betting` (a hand's betting state machine, which
answers every betting question for the replay and the simulator alike),
:mod:`.pots` (main and side pots, and how the rules divide them),
:mod:`.rank` (``hhtool rank``) and :mod:`.equity` (``hhtool equity``).
"""
