"""The environment variables that turn a local session's tuning off: the class archive, the workers' own CPUs.

Read on the driver, as a run starts: ``HHTOOL_SPARK_CDS``
(:mod:`hhtool.spark.cds`) and ``HHTOOL_SPARK_OWN_CPU``
(:mod:`hhtool.spark.affinity`).
"""

from __future__ import annotations

import os


def on(variable: str) -> bool:
    """Whether ``variable`` leaves its feature on: unset, or anything but ``0``, ``no``, ``off`` or ``false``."""
    return os.environ.get(variable, "1").strip().lower() not in ("0", "no", "off", "false")
