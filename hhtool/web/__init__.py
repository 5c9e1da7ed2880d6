"""The web side of hhtool: ``hhtool serve``'s pages and JSON API over one database (``docs/serve.md``), and the hand replayer (:mod:`hhtool.web.replayer`) with its static files."""
