"""``python -m hhtool.spark PATH... --out DIR``: the spark-submit application (:mod:`hhtool.spark.submit`) run directly."""

import sys

from hhtool.spark.submit import main

sys.exit(main())
