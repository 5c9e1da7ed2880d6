/* The player's winnings graph (hhtool/web/player.py, winnings_figure): the figure is data, JSON in a
   <script type="application/json">, drawn here with the server's plotly.js, so that the page runs no
   inline script (its Content-Security-Policy, docs/serve.md).  A click on a point opens its hand:
   /hand/KEY, KEY the point's customdata, a whole number (the server redirects to the hand's page). */
(function () {
  "use strict";
  function draw() {
    var figures = document.querySelectorAll("script.hh-figure");
    for (var k = 0; k < figures.length; k++) {
      var box = document.getElementById(figures[k].dataset.plot), fig = JSON.parse(figures[k].textContent);
      if (!box || !window.Plotly) continue;
      Plotly.newPlot(box, fig.data, fig.layout, fig.config).then(function (plot) {
        plot.on("plotly_click", function (d) {
          var key = d.points[0].customdata;
          if (Number.isInteger(key)) window.location.assign("/hand/" + key);
        });
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw); else draw();
})();
