"""The hand replayer's HTML: one hand's steps (:mod:`hhtool.replay.steps`) as a self-contained fragment, with its script and style.

:mod:`hhtool.replayer.html` builds the fragment; ``static/`` holds the
``replayer.js`` and ``replayer.css`` it draws with.  Both the report
(:mod:`hhtool.stats.report`, the assets inline) and the web app
(:mod:`hhtool.web`, the assets at ``/static/``) show it, so it is a stage
of its own below them both (docs/architecture.md): neither imports the
other for it.
"""
