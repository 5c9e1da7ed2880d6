"""The web side of hhtool: the hand replayer (:mod:`hhtool.web.replayer`) and its static files."""
