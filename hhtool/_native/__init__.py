"""What exists only for compiled speed: the C readers and the helpers for mypyc-compiled classes.

``_scan.c`` reads the common hands (:mod:`hhtool.history.parse` configures it
and falls back to Python for the rest), ``_columns.c`` makes a chunk's UTF-8
once for the row builder (:mod:`hhtool.store.rows`); :mod:`.pickling` lets
compiled frozen dataclasses be pickled (and so cross process boundaries).
Every piece has a pure-Python equivalent: ``HHTOOL_PURE=1`` builds none of
them and the code behaves the same.
"""
