/* The hand replayer (hhtool/replayer/html.py, docs/replayer.md).
   Every .hhr element holds its steps as JSON in a <script type="application/json">; each is drawn
   and stepped on its own, so many can share a page.  Text from the history (names, lines,
   findings) is only ever set with textContent: never parsed as HTML. */
(function () {
  "use strict";
  if (window.hhtoolReplayer) { window.hhtoolReplayer.initAll(); return; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function cardEl(c) {
    if (!c.card) { var b = el("span", "hhr-card back", "??"); b.title = "a card face down, not seen"; return b; }
    var s = el("span", "hhr-card " + c.card.suit + (c.up ? "" : " down"), c.card.symbol);
    s.title = c.card.card + (c.up ? " (up)" : " (down)");
    return s;
  }

  var STREET_NAMES = {start: "start", "2nd": "2nd street", "3rd": "3rd street", "4th": "4th street",
    "5th": "5th street", vela: "vela", showdown: "showdown", result: "result"};

  function Replayer(root) {
    this.root = root;
    var d = this.data = JSON.parse(root.querySelector("script.hhr-data").textContent);
    if (d.seat_table) d.steps.forEach(function (s) { s.seats = s.seats.map(function (k) { return d.seat_table[k]; }); });
    this.i = 0;
    this.build();
    var at = this.stepOfLine(wantedLine());
    this.show(at === null ? 0 : at);
    if (at !== null && root.scrollIntoView) root.scrollIntoView({block: "start"});  // the step asked for, in view
  }

  /* The line an address asks for: #line=N (a link to a decision, e.g. the integrity dossier's), else null. */
  function wantedLine() {
    var m = /^#(?:.*&)?line=(\d{1,9})(?:&|$)/.exec(window.location.hash || "");
    return m ? parseInt(m[1], 10) : null;
  }

  /* The step a line of the file opens at: the first step of that line, else the nearest step before it (a line that
     is no step: chatter, an informational line); null when the line is not in this hand (another replayer's). */
  Replayer.prototype.stepOfLine = function (n) {
    var d = this.data, at = null;
    if (n === null || n < d.first_line || n >= d.first_line + d.lines.length) return null;
    for (var k = 0; k < d.steps.length; k++) {
      if (d.steps[k].line === n) return k;
      if (d.steps[k].line > n) break;
      at = k;
    }
    return at;
  };

  Replayer.prototype.build = function () {
    var d = this.data, self = this, root = this.root;
    root.tabIndex = 0;
    var head = el("div", "hhr-head");
    // an anonymised hand (hhtool share --anonymise) has no site, number, table or time: none is shown
    head.appendChild(el("span", "hhr-title", d.site || d.hand_id ? d.site + " hand " + d.hand_id : "Telesina hand"));
    head.appendChild(el("span", "hhr-sub", [d.profile, d.table, d.started].filter(Boolean).join(" · ")));
    head.appendChild(el("span", "hhr-verdict " + d.verdict, d.verdict));
    root.appendChild(head);

    var body = el("div", "hhr-body"), left = el("div", "hhr-left"), right = el("div", "hhr-right");
    var controls = el("div", "hhr-controls");
    var acts = [["first", "« first", "the first step (Home)"], ["back", "◀ back", "one step back (←)"],
      ["forward", "forward ▶", "one step forward (→)"], ["last", "last »", "the last step (End)"]];
    this.buttons = {};
    acts.forEach(function (a) {
      var b = el("button", "hhr-" + a[0], a[1]);
      b.type = "button"; b.dataset.act = a[0]; b.title = a[2];
      b.addEventListener("click", function () { self.act(a[0]); });
      controls.appendChild(b); self.buttons[a[0]] = b;
    });
    this.stepNo = el("span", "hhr-stepno");
    controls.appendChild(this.stepNo);
    var streets = el("div", "hhr-controls hhr-streets");
    streets.appendChild(el("span", null, "jump to:"));
    this.streetButtons = [];
    d.streets.forEach(function (s) {
      var b = el("button", "hhr-street", STREET_NAMES[s.street] || s.street);
      b.type = "button"; b.dataset.street = s.street;
      b.addEventListener("click", function () { self.show(s.step); });
      streets.appendChild(b); self.streetButtons.push([s, b]);
    });
    left.appendChild(controls); left.appendChild(streets);

    this.table = el("div", "hhr-table");
    var center = el("div", "hhr-center");
    this.vela = el("div", "hhr-vela"); this.pot = el("div", "hhr-pot"); this.pots = el("div", "hhr-pots");
    center.appendChild(this.vela); center.appendChild(this.pot); center.appendChild(this.pots);
    this.table.appendChild(center);
    this.seats = {};
    var seats = d.steps[0].seats, n = seats.length;
    seats.forEach(function (p, k) {
      var box = el("div", "hhr-seat");
      box.dataset.name = p.name;
      var angle = Math.PI / 2 + (2 * Math.PI * k) / n;
      box.style.left = (50 + 40 * Math.cos(angle)).toFixed(1) + "%";
      box.style.top = (50 + 38 * Math.sin(angle)).toFixed(1) + "%";
      var name = el("div", "hhr-name", p.seat + ". " + p.name); name.title = p.name;
      var money = el("div", "hhr-money"), stack = el("span", "hhr-stack"), front = el("span", "hhr-front");
      money.appendChild(stack); money.appendChild(front);
      var cards = el("div", "hhr-cards"), flags = el("span", "hhr-flags"), eq = el("div", "hhr-eq");
      name.appendChild(flags);
      box.appendChild(name); box.appendChild(money); box.appendChild(cards); box.appendChild(eq);
      self.table.appendChild(box);
      self.seats[p.name] = {box: box, stack: stack, front: front, cards: cards, flags: flags, eq: eq};
    });
    left.appendChild(this.table);
    this.say = el("div", "hhr-say"); this.note = el("div", "hhr-note"); this.eqNote = el("div", "hhr-note hhr-eqnote");
    this.findings = el("div", "hhr-findings"); this.result = el("div", "hhr-result");
    left.appendChild(this.say); left.appendChild(this.note); left.appendChild(this.eqNote); left.appendChild(this.findings); left.appendChild(this.result);

    this.text = el("pre", "hhr-text");
    // the gutter as wide as the hand's widest line number (10000 and more in a long file), in digits (monospace)
    this.text.style.setProperty("--hhr-no", String(d.first_line + Math.max(d.lines.length - 1, 0)).length + "ch");
    this.lines = [];
    var flagged = {};
    d.steps.forEach(function (s) { s.findings.forEach(function (f) { flagged[f.line] = true; }); });
    d.lines.forEach(function (t, k) {
      var no = d.first_line + k, line = el("span", "hhr-line" + (flagged[no] ? " flagged" : ""));
      line.dataset.line = no;
      line.appendChild(el("span", "hhr-no", String(no)));
      line.appendChild(document.createTextNode(t));
      self.text.appendChild(line); self.lines.push(line);
    });
    right.appendChild(el("div", "hhr-note", "the hand's text, the current step's line highlighted"));
    right.appendChild(this.text);
    body.appendChild(left); body.appendChild(right);
    root.appendChild(body);

    var details = root.closest("details");  // hidden until opened (the report): place the text's scroll then
    if (details) details.addEventListener("toggle", function () { if (details.open) self.show(self.i); });
    root.addEventListener("keydown", function (ev) {
      var k = {ArrowRight: "forward", ArrowLeft: "back", Home: "first", End: "last"}[ev.key];
      if (!k || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      ev.preventDefault();
      self.act(k);
    });
  };

  Replayer.prototype.act = function (a) {
    var last = this.data.steps.length - 1;
    var to = {first: 0, back: this.i - 1, forward: this.i + 1, last: last}[a];
    this.show(Math.max(0, Math.min(last, to)));
  };

  Replayer.prototype.show = function (i) {
    var d = this.data, s = d.steps[i], self = this;
    this.i = i;
    this.root.dataset.step = i;
    this.stepNo.textContent = "step " + (i + 1) + " of " + d.steps.length;
    this.buttons.first.disabled = this.buttons.back.disabled = i === 0;
    this.buttons.forward.disabled = this.buttons.last.disabled = i === d.steps.length - 1;
    this.streetButtons.forEach(function (sb) { sb[1].classList.toggle("on", sb[0].street === s.street); });

    this.vela.textContent = "";
    if (s.vela) { this.vela.appendChild(el("span", null, "vela ")); this.vela.appendChild(cardEl({card: s.vela, up: true})); }
    this.pot.textContent = "pot " + s.pot.text;
    // the pots gathered so far (a side pot only once an all-in player's chips are in it), then the bets still in front
    var front = s.in_front && s.in_front.amount ? s.in_front : null;
    var parts = s.pots.length > 1 || front ? s.pots.map(function (p) { return p.name + " " + p.amount.text; }) : [];
    if (front) parts.push("bets in front " + front.text);
    this.pots.textContent = parts.join(" · ");
    var priced = s.equity === null || s.equity === undefined ? null : d.equities[s.equity], share = {};
    if (priced) priced.contenders.forEach(function (c) { share[c.player] = c; });
    this.eqNote.textContent = priced ? "equity after the " + priced.street + " street deal, " +
      (priced.exact ? "exact over " + priced.runouts.toLocaleString("en") + " runouts" : "sampled, " + priced.samples.toLocaleString("en") + " runouts") +
      " (every card the history shows counts, hole cards shown down included)" : "";
    s.seats.forEach(function (p) {
      var v = self.seats[p.name];
      if (!v) return;
      var c = share[p.name];
      v.eq.textContent = c ? "equity " + (100 * c.equity).toFixed(1) + "%" : "";
      v.eq.title = c ? "wins " + (100 * c.win).toFixed(1) + "%, ties " + (100 * c.tie).toFixed(1) + "%" : "";
      v.stack.textContent = p.stack.text;
      v.front.textContent = p.in_front.amount ? "in " + p.in_front.text : "";
      v.box.classList.toggle("folded", p.folded);
      v.box.classList.toggle("out", !p.dealt);
      v.box.classList.toggle("acting", p.name === s.actor);
      v.flags.textContent = "";
      if (p.all_in) v.flags.appendChild(el("span", "hhr-badge", "all-in"));
      if (p.folded) v.flags.appendChild(el("span", "hhr-badge", "folded"));
      v.cards.textContent = "";
      p.cards.forEach(function (c) { v.cards.appendChild(cardEl(c)); });
    });
    this.say.textContent = s.sentence;
    this.note.textContent = s.note;
    this.findings.textContent = "";
    s.findings.forEach(function (f) {
      var box = el("div", "hhr-finding " + f.severity);
      box.appendChild(el("code", null, f.code));
      box.appendChild(document.createTextNode(" (" + f.severity + ") line " + f.line + ": " + f.message));  // the message cites its rule
      self.findings.appendChild(box);
    });
    this.result.textContent = "";
    if (s.result) {
      var ul = el("ul");
      s.result.forEach(function (r) {
        var li = el("li"), won = r.winners.map(function (w) { return w.player + " " + w.amount.text; }).join(", ") || "nobody";
        li.appendChild(el("strong", null, r.name + " " + r.amount.text + (r.rake.amount ? ", rake " + r.rake.text : "") + ": " + won));
        li.appendChild(el("div", "hhr-reason", r.reason + (r.verified ? "" : " (unverified: cards unknown)")));
        ul.appendChild(li);
      });
      this.result.appendChild(ul);
    }
    this.lines.forEach(function (l) { l.classList.remove("current"); });
    var cur = this.lines[s.line - d.first_line];
    if (cur) {
      cur.classList.add("current");
      var box = this.text, top = cur.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - cur.offsetHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  };

  var all = [];  // the page's replayers, for #line=N

  function initAll() {
    var roots = document.querySelectorAll(".hhr:not([data-ready])");
    for (var k = 0; k < roots.length; k++) {
      roots[k].dataset.ready = "1";
      try { all.push(new Replayer(roots[k])); } catch (err) { roots[k].appendChild(el("p", "hhr-note", "the replayer could not start: " + err)); }
    }
  }

  /* A new #line=N on the same page (a link followed there, or typed) moves each replayer holding that line to it. */
  window.addEventListener("hashchange", function () {
    var n = wantedLine();
    all.forEach(function (r) { var at = r.stepOfLine(n); if (at !== null) r.show(at); });
  });

  window.hhtoolReplayer = {initAll: initAll};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initAll); else initAll();
})();
