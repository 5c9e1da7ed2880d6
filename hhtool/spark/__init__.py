"""The import on Apache Spark: the same parse, replay and rows as ``hhtool import``, written as Parquet.

``hhtool spark-import PATH... --out DIR`` (or ``spark-submit`` of
:mod:`hhtool.spark.submit`) reads hand-history files from any path Spark
reads, runs the DuckDB import's worker function on the executors
(:mod:`hhtool.spark.executor`), decides new, duplicate and conflicting
hands once across runs (:mod:`hhtool.spark.decide`), has the executors write
the tables of ``docs/schema.md`` as Parquet into a staging folder
(:mod:`hhtool.spark.staging`) and commits them under ``DIR`` atomically
(:mod:`hhtool.spark.commit`).
``hhtool stats|report|query --parquet DIR`` read the result.  PySpark is
imported only when a job runs (the ``spark`` extra; Java 17).
"""

from hhtool.spark.job import spark_import
from hhtool.spark.summary import SparkImportError, SparkSummary

__all__ = ["SparkImportError", "SparkSummary", "spark_import"]
