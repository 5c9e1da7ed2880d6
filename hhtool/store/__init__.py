"""The hand database: ``hhtool import`` into one DuckDB file, ``query`` and ``export`` out of it.

Modules: :mod:`.schema` (the tables, documented in ``docs/schema.md``),
:mod:`.db` (opening the file, one writer at a time), :mod:`.rows` (a
worker's hands into rows, with the statistics' flags of :mod:`.flags`),
:mod:`.frames` (those rows as polars frames), :mod:`.sources` (the files
an import reads, their hashes and chunks), :mod:`.worker` (a chunk parsed
and replayed into frames), :mod:`.writer` (the single writer and its
thread), :mod:`.totals` (each player's totals and hands, kept beside the
seats), :mod:`.importer` (the import run: workers, progress, cancel; its
:mod:`.summary`), :mod:`.cancel` (the cancel signal), :mod:`.live` (watched
folders imported as they are written), :mod:`.query`
(read-only SQL, Parquet export), :mod:`.parquet` (a Parquet dataset read in
place of the database).

Nothing here imports polars or duckdb at module level except through
the functions that need them.
"""
