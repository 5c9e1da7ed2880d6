/* The import's progress at the top of every page (hhtool/web/templates/base.html): asked again every 1.5 s
   from /api/progress; text only (textContent), never markup.  A file, not an inline script: the pages'
   Content-Security-Policy runs scripts of the server's files only (docs/serve.md). */
(function () {
  "use strict";
  var box = document.getElementById("progress");
  if (!box) return;
  function ask() {
    fetch("/api/progress", {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      var p = d["import"];
      if (p && p.text) { box.textContent = p.text; box.hidden = false; } else { box.hidden = true; }
    }).catch(function () {}).finally(function () { setTimeout(ask, 1500); });
  }
  setTimeout(ask, 1500);
})();
