"""The hand database: ``hhtool import`` into one DuckDB file, ``query`` and ``export`` out of it.

Modules: :mod:`.schema` (the tables, documented in ``docs/schema.md``),
:mod:`.db` (opening the file, one writer at a time), :mod:`.rows` (a
worker's hands into rows, with the statistics' flags of :mod:`.flags`),
:mod:`.frames` (those rows as polars frames), :mod:`.importer` (files,
workers and the single writer), :mod:`.query` (read-only SQL, Parquet).

Nothing here imports polars or duckdb at module level except through
the functions that need them.
"""
