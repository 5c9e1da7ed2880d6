"""New, duplicate or conflict: the run's second pass, against this run's hands and the committed runs' (exactly once).

A hand whose ``(site, hand_id)`` is new is stored (the first one in file
and line order when a run reads it twice); the same id with the same text
is a duplicate; with another text a conflict, kept once in ``conflicts``;
a failed hand is kept once by the hash of its text; a file whose content
hash is committed is not read again.  The new hands are numbered on from
the committed runs' last ``hand_key``.  Apart from the run
(:mod:`hhtool.spark.job`) because this is the one place the runs meet:
everything here reads the committed dataset, and decides what the
executors then write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hhtool.spark.inputs import path_order
from hhtool.spark.summary import SparkImportError, SparkSummary
from hhtool.spark.tables import spark_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hhtool.spark.commit import Output
    from hhtool.spark.executor import Decision


def decide(
    spark: SparkSession, output: Output, chunks: DataFrame, parsed: dict[tuple[str, int], int], base: int, summary: SparkSummary
) -> dict[tuple[str, int], Decision]:
    """The second pass, one job: which hands are new, duplicates or conflicts, which conflicts and failed hands are kept.

    Every hand's ``(site, hand_id, text_hash)`` (the chunks' ``keys``,
    exploded in the JVM) meets the others of its ``(site, hand_id)`` and
    the committed ones (a shuffle): the first in file and line order is
    new, the same text again a duplicate, another text a conflict; each
    conflicting text is kept once, unless committed already.  A failed
    hand is kept once by the hash of its text (the chunks' ``fails``).
    Only what is not new goes on, to one row a chunk that has any: its
    duplicates and conflicts as runs of ``local`` (most chunks have
    none; a file read before under another name, one run), the conflicts
    and failed hands it keeps.  The rest of each chunk's hands
    (``parsed``: ``local`` 0 to n - 1) are new, and numbered here
    (:func:`_numbered`).  Returns :data:`hhtool.spark.executor.Decision`
    by ``(file, chunk)``, for the chunks that keep anything.
    """
    if not any(parsed.values()) and not summary.failed:
        # no hand read (every file committed already, or none has one): nothing to decide, and no query run for it,
        # whose stages adaptive execution would cut short on their empty input, still running as the session goes on
        return {}
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    order = F.split("file", "/")  # a folder's files in the order the DuckDB import walks them
    keys = chunks.select("file", "chunk", F.explode("keys").alias("key")).select("file", "chunk", "key.*")  # a row a hand
    by_id = Window.partitionBy("site", "hand_id").orderBy(order, "first_line")
    decided = keys.withColumn("rank", F.row_number().over(by_id)).withColumn("first_hash", F.first("text_hash").over(by_id))
    if output.files("hands"):
        stored = _committed(spark, output, "hands", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT")])
        decided = decided.join(stored.withColumnRenamed("text_hash", "stored_hash"), ["site", "hand_id"], "left")
    else:
        decided = decided.withColumn("stored_hash", F.lit(None).cast("bigint"))
    decided = decided.withColumn(
        "outcome",
        F.when(F.col("stored_hash").isNotNull(), F.when(F.col("text_hash") == F.col("stored_hash"), "duplicate").otherwise("conflict"))
        .when(F.col("rank") == 1, "new")
        .when(F.col("text_hash") == F.col("first_hash"), "duplicate")
        .otherwise("conflict"),
    ).where("outcome != 'new'")
    # a conflicting text kept once: the first of its (site, hand_id, text_hash), unless committed already
    first_seen = Window.partitionBy("site", "hand_id", "text_hash", "outcome").orderBy(order, "first_line")
    decided = decided.withColumn("keep", (F.col("outcome") == "conflict") & (F.row_number().over(first_seen) == 1))
    if output.files("conflicts"):
        seen = _committed(spark, output, "conflicts", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT")])
        decided = decided.join(seen.withColumn("seen", F.lit(True)), ["site", "hand_id", "text_hash"], "left").withColumn(
            "keep", F.col("keep") & F.col("seen").isNull()
        )
    events = decided.select("file", "chunk", "local", F.when(F.col("keep"), "kept").otherwise(F.col("outcome")).alias("outcome"))
    if summary.failed:  # each failed text once, not one committed already (none failed: nothing to decide)
        fails = chunks.select("file", "chunk", F.explode("fails").alias("f")).select("file", "chunk", "f.*")
        fails = fails.withColumn("n", F.row_number().over(Window.partitionBy("raw_hash").orderBy(order, "first_line"))).where("n = 1")
        if output.files("failed"):
            fails = fails.join(_committed(spark, output, "failed", [("raw_hash", "BIGINT")]), ["raw_hash"], "left_anti")
        events = events.unionByName(fails.select("file", "chunk", F.col("index").alias("local"), F.lit("failed").alias("outcome")))
    outcome = F.col("outcome")
    rows = (
        events.groupBy("file", "chunk")
        .agg(
            F.sum((outcome == "duplicate").cast("int")).alias("duplicates"),
            F.sum(outcome.isin("conflict", "kept").cast("int")).alias("conflicts"),
            F.array_sort(F.collect_list(F.when(outcome != "failed", F.col("local")))).alias("old"),
            F.collect_list(F.when(outcome == "kept", F.col("local"))).alias("kept"),
            F.collect_list(F.when(outcome == "failed", F.col("local"))).alias("failed"),
        )
        # the hands not new, as runs of consecutive locals: one or two a chunk, however many hands
        .withColumn("starts", F.expr("IF(size(old) = 0, array(), filter(sequence(0, size(old) - 1), i -> i = 0 OR old[i] != get(old, i - 1) + 1))"))
        .select(
            "file", "chunk", "duplicates", "conflicts", "kept", "failed",
            F.expr("transform(starts, (s, j) -> named_struct('lo', old[s], 'n', coalesce(get(starts, j + 1), size(old)) - s))").alias("old"),
        )
        .collect()
    )
    old: dict[tuple[str, int], list[tuple[int, int]]] = {}
    out: dict[tuple[str, int], Decision] = {}
    kept_failed: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for r in rows:
        key = (r["file"], int(r["chunk"]))
        summary.duplicates += int(r["duplicates"] or 0)
        summary.conflicts += int(r["conflicts"] or 0)
        old[key] = [(int(x["lo"]), int(x["n"])) for x in r["old"] or ()]
        kept_failed[key] = (sorted(r["kept"] or ()), sorted(r["failed"] or ()))
    new_runs: list[dict[str, Any]] = [
        {"file": f, "chunk": c, "lo": lo, "n": n} for (f, c), hands in parsed.items() for lo, n in complement(old.get((f, c), []), hands)
    ]
    numbered = {(f, c): v for f, c, v in _numbered(new_runs, base)}
    for key in numbered.keys() | kept_failed.keys():
        kept, failed = kept_failed.get(key, ([], []))
        summary.conflicts_new += len(kept)
        summary.failed_new += len(failed)
        if key in numbered or kept or failed:
            out[key] = (numbered.get(key, []), kept, failed)
    summary.stored = sum(int(r["n"]) for r in new_runs)
    return out


def complement(runs: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The runs ``(lo, length)`` of ``0 .. n - 1`` outside ``runs`` (sorted, apart): a chunk's new hands around those that are not."""
    out, at = [], 0
    for lo, length in runs:
        if lo > at:
            out.append((at, lo - at))
        at = lo + length
    if n > at:
        out.append((at, n - at))
    return out


def _numbered(runs: Sequence[Any], base: int) -> list[tuple[str, int, list[tuple[int, int, int]]]]:
    """Each chunk's runs of new hands ``(file, chunk, [(lo, n, first hand_key)])``, numbered from ``base + 1`` in (file, line) order.

    The order is the DuckDB import's: a folder's files as it walks them
    (the path compared part by part), a file's chunks and hands in order.
    """
    out: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    key = base + 1
    for r in sorted(runs, key=lambda r: (path_order(r["file"]), r["chunk"], r["lo"])):
        out.setdefault((r["file"], r["chunk"]), []).append((int(r["lo"]), int(r["n"]), key))
        key += int(r["n"])
    return [(f, c, v) for (f, c), v in out.items()]


def _committed(spark: SparkSession, output: Output, table: str, columns: list[tuple[str, str]]) -> DataFrame:
    """The committed rows of ``table`` (the columns asked for), empty when there are none."""
    schema = spark_schema(columns)
    files = [output.uri(f"{table}/{f}") for f in output.files(table)]
    if not files:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).parquet(*files)


def last_key(runs: Sequence[dict[str, Any]]) -> int:
    """The committed runs' largest ``hand_key``: each run numbers its ``stored`` hands on from the one before, so their sum."""
    try:
        return sum(int(r["summary"]["stored"]) for r in runs)
    except (KeyError, TypeError, ValueError) as e:
        raise SparkImportError(f"a commit record without its run's summary ({e}): the dataset is damaged") from None


def committed_hashes(output: Output) -> frozenset[str]:
    """The content hashes of the committed files (``files.sha256``), read on the driver: a file with one is not read again."""
    import pyarrow.parquet as pq

    from hhtool.spark.staging import arrow_filesystem

    files = output.files("files")
    if not files:
        return frozenset()
    fs, base = arrow_filesystem(output.qualified("files"))
    table = pq.read_table([f"{base}/{f}" for f in files], columns=["sha256"], filesystem=fs)
    return frozenset(str(h) for h in table.column("sha256").to_pylist())
