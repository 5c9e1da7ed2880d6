"""Plotly figures given as plain data, drawn the same way in the report and on the player's page.

A figure is a dict (``{"data": [...], "layout": {...}}``) rather than
plotly's graph objects, whose validation of thousands of points costs
seconds (2.8 s of the report's 20 s of CPU at a million hands; ten times
a page's budget); the layout gains plotly's default template, as a graph
object's has it, so that a graph looks the same whichever way it was made
and wherever it is shown.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

CONFIG = {"displaylogo": False, "responsive": True}
"""plotly.js's options for every figure: no plotly logo, the width of its box."""


@lru_cache(maxsize=1)
def template() -> dict[str, Any]:
    """plotly's default template as plain data (read once: building it from plotly's objects takes 0.1 s)."""
    import plotly.io as pio

    return dict(pio.templates[pio.templates.default].to_plotly_json())


def figure_html(data: list[dict[str, Any]], layout: dict[str, Any], *, div_id: str | None = None, post_script: str | None = None) -> str:
    """The figure as an HTML fragment (plotly.js not included: the page serves it once), with plotly's template
    unless ``layout`` brings one (a layout plotly laid out, such as :func:`plotly.subplots.make_subplots`')."""
    import plotly.io as pio

    fig = {"data": data, "layout": {"template": template(), **layout}}
    return str(pio.to_html(fig, validate=False, full_html=False, include_plotlyjs=False, div_id=div_id, post_script=post_script, config=CONFIG))
