"""hhtool: parse, audit and analyse Telesina hand histories.

The stages, in the order a hand travels through them: ``cards`` and
``rules`` (the rules as data), ``evaluate`` and ``showdown`` (hand values
and who wins a pot), ``showing`` (who opens a betting round), ``rank``
(the ``hhtool rank`` library behind the CLI), ``cli`` (thin typer layer).
"""

__version__ = "0.1.0"
