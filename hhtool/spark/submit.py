"""The Spark import as a ``spark-submit`` application: ``spark-submit .../hhtool/spark/submit.py PATH... --out DIR``.

The session is the one ``spark-submit`` makes (its ``--master``, its
executors and their Python, which must have this hhtool installed:
docs/scale.md); the job is :func:`hhtool.spark.spark_import`, the very one
``hhtool spark-import`` runs.  Exit codes as the CLI's: 0 ok, 1 when a
hand failed or conflicted or a file could not be read, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hhtool.spark.submit",
        description="Import hand histories with Spark into a Parquet dataset (docs/scale.md).",
        epilog="example: spark-submit --master yarn hhtool/spark/submit.py 's3a://room/hh/2026/*' --out s3a://room/hhtool",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or globs Spark can read (.txt, .gz, .zip)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the dataset folder (created; runs add to it)")
    parser.add_argument("--master", default=None, metavar="URL", help="run directly (python -m hhtool.spark): the master (default local[*])")
    parser.add_argument("--partitions", type=int, default=None, metavar="N", help="tasks of the parse (default: one a file, at most 16 a core)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument(
        "--rooms", default=None, metavar="DIR", help="the room files hands are replayed under (default: $HHTOOL_ROOMS, else ~/.config/hhtool/rooms)"
    )
    args = parser.parse_args(argv)

    import os

    from hhtool.game.room import RoomError, load_rooms
    from hhtool.spark import SparkImportError, spark_import
    from hhtool.textsafe import term

    try:
        rooms = load_rooms(args.rooms, required=args.rooms is not None)
    except RoomError as e:
        for problem in e.problems:
            print(f"hhtool: --rooms: {term(problem)}", file=sys.stderr)
        return 2
    try:
        if "PYSPARK_GATEWAY_PORT" in os.environ:  # under spark-submit: its session, its master and executors
            from pyspark.sql import SparkSession

            spark = SparkSession.builder.appName("hhtool spark-import").getOrCreate()
            summary = spark_import(args.paths, args.out, spark=spark, partitions=args.partitions, rooms=rooms)
        else:  # run directly: a session of its own, stopped before the summary is printed
            summary = spark_import(args.paths, args.out, master=args.master, partitions=args.partitions, rooms=rooms)
    except SparkImportError as e:
        print(f"hhtool: {term(str(e))}", file=sys.stderr)
        return 2
    print(json.dumps(summary.as_dict(), ensure_ascii=True) if args.json else summary.text())
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
