/* A phone at the table: join, then only what this seat can do now.
   The server says the words (view.words) and what may be tapped now (view.taps);
   each step the table can wait for has one function below that draws its buttons. */
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, rank} = SL;
  // team play as the page says, then as the table's view says (a page drawn without the
  // table looked up, for an address that waits after too many wrong codes, cannot say)
  let teams = document.body.dataset.teams === "1";
  SL.onView(v => { teams = !!v.teams; });
  const store = "sl-seat-" + SL.code;
  // a watcher: opened from the TV's watch QR (/w/CODE), or "Just watch" tapped here
  let watching = document.body.dataset.watch === "1" || localStorage.getItem("sl-watch-" + SL.code) === "1";
  let seat = null, lastStep = "", lastTurn = "", joinSide = null, joinPart = null, connected = [];
  try { const s = JSON.parse(localStorage.getItem(store) || "null"); if (s) { seat = s.seat; SL.secret = s.secret; Keys.held(SL.code); } } catch (e) { /* none */ }

  const other = s => s === "red" ? "blue" : "red";
  const partName = p => p === 1 ? T("missions 1–2") : p === 2 ? T("missions 3–4") : "";
  const sideName = SL.sideName, capSide = s => cap(sideName(s));
  const mine = (side, part) => seat && seat.side === side && (!teams || !part || seat.part === 0 || seat.part === part);
  const rankBtn = Steps.rankBtn;
  const REVEAL = ["deception", "guess", "actual", "choice"];
  // my line-up, planned in private (static/lineup.js): never sent, at most in localStorage
  let planning = false;
  const planBtn = () => seat ? `<button type="button" id="b-lineup" data-testid="plan-lineup">${esc(T("My line-up (private): check order and tokens"))}</button>` : "";
  // the game's steps, drawn as on the big screen (static/steps.js), with this phone's taps
  const steps = Steps.panel({post: (path, body) => act(path, body), redraw: () => render(), plan: planBtn});
  // a watcher's board (issue 22): what the TV shows, laid out for a phone's width: the
  // double agent's track, each side's IP, today's four cards, tokens and exhausted soldiers
  function watchBoard(v) {
    const s = v.state, W = s.wall_distance, d = v.draft;
    const cells = [];
    for (let p = -(W + 1); p <= W + 1; p++) {
      const a = Math.abs(p), where = p < 0 ? "red" : p > 0 ? "blue" : "mid";
      const kind = a === W + 1 ? "flag" : a === W ? "wall" : "";
      cells.push(`<span class="wb-cell ${where} ${kind} ${p === s.da ? "da" : ""}">${p === s.da ? `<b>${esc(T("DA"))}</b>` : a === W + 1 ? "⚑" : a}</span>`);
    }
    const side = x => {
      const today = SL.todays(s, x);
      const cards = [1, 2, 3, 4].map(m => {
        const r = today[m], now = d && d.owner === x && d.mission === m;
        const tok = s.tokens[x] && s.tokens[x].includes(m), dec = r ? r.deception : now && d.deception;
        const out = r ? SL.outcomeWord(r.outcome) : "";
        return `<div class="wb-card ${x} ${r ? r.outcome : "down"} ${now ? "now" : ""}" data-mission="${m}">
          <small>${esc(T("mission {m}", {m}))}</small><b>${r ? r.actual : "?"}</b><span>${r ? esc(rank(r.actual)) : ""}</span>
          ${out ? `<em>${esc(out)}</em>` : ""}<i>${tok ? `<span class="wb-tok" title="${esc(T("intel token"))}">i</span>` : ""}${dec ? `<span class="wb-dt">${esc(T("DT"))}</span>` : ""}</i></div>`;
      }).join("");
      const ex = (s.phase === "setup" ? s.drawn[x] : s.exhausted[x]) || [];
      return `<div class="wb-side" data-side="${x}">
        <div class="wb-ip">${mark(x)} <b>${esc(capSide(x))}</b><span class="wb-bar" role="img" aria-label="${esc(T("IP {n}", {n: s.ip[x]}))}"><span style="width:${Math.min(10, s.ip[x]) * 10}%"></span></span><b data-testid="wb-ip-${x}">${esc(T("IP {n}", {n: s.ip[x]}))}</b></div>
        <div class="wb-cards">${cards}</div>
        <div class="wb-meta muted">${esc(Words.colon(T("exhausted")))} ${ex.length ? ex.map(r => `${r} ${esc(rank(r))}`).join(", ") : "—"} · ${esc(T("DT {n}", {n: s.dt[x]}))}</div></div>`;
    };
    return `<div class="wb" data-testid="watch-board" role="img" aria-label="${esc(T("The board, day {day}: red {red} IP, blue {blue} IP, double agent {where}, deception tokens red {dt_red}, blue {dt_blue}", {day: s.day, red: s.ip.red, blue: s.ip.blue, where: v.words.da, dt_red: s.dt.red, dt_blue: s.dt.blue}))}">
      <div class="wb-head"><b>${esc(T("day {n}", {n: s.day}))}</b> <span>${esc(T("Double agent {where}", {where: v.words.da}))}</span></div>
      <div class="wb-track" data-testid="wb-track" data-da="${s.da}" style="grid-template-columns:repeat(${2 * W + 3},1fr)">${cells.join("")}</div>
      <div class="wb-forts"><span class="side-red">◀&nbsp;${esc(T("{side}'s fort", {side: sideName("red")}))}</span><span class="side-blue">${esc(T("{side}'s fort", {side: sideName("blue")}))}&nbsp;▶</span></div>
      ${chanceBar(v)}
      ${side("red")}${side("blue")}
      <div class="wb-intel">${esc(Words.colon(T("Intel card")))} <b>${s.intel ? s.intel.map(r => `${r} ${esc(rank(r))}`).join(" · ") : esc(T("not yet"))}</b></div></div>`;
  }

  // the chance to win (issues 25, 52) on a watcher's board, as on the big screen: whole
  // percents summing to 100, its line under it (what it is; the draw at its right, whole:
  // "draw 3%" took a line of its own on a 360 or 390 px phone)
  function chanceBar(v) {
    const c = SL.chance;
    if (!v.chances || !c) return "";
    const {red, blue, draw} = c.percent;
    const what = c.basis === "nothing" ? T("Chance to win: nothing seen yet, so even")
      : c.basis === "exhausted" ? T("Chance to win before any reveal, from the soldiers exhausted")
      : T("Chance to win, from what the table has seen");
    const drawn = T("draw {pct}", {pct: Words.percent(draw)}), line = what + " · " + drawn;
    return `<div class="wb-chance ${c.version !== v.version ? "stale" : ""}" data-testid="wb-chance" data-red="${red}" data-blue="${blue}" data-draw="${draw}" role="img" aria-label="${esc(T("Chance to win: red {red}%, blue {blue}%", {red, blue}) + " · " + line)}">
      <span class="r" style="width:${red}%">${Words.percent(red)}</span><span class="b" style="width:${blue}%">${Words.percent(blue)}</span></div><small class="muted wb-chance-cap" data-testid="wb-chance-line"><span>${esc(what)}</span><span class="wb-draw" data-testid="wb-draw">${esc(drawn)}</span></small>`;
  }

  const PLAIN = ["R22", "R24", "R30"];     // a guess right or wrong: nothing to look up
  function header(v) {
    const s = v.state;
    $("who").innerHTML = seat ? `${mark(seat.side)} ${esc(seat.name)}${seat.part ? ` <span class="muted">${partName(seat.part)}</span>` : ""}` : esc(T("Table {code}", {code: SL.code}));
    // in pieces that keep their words together: a narrow phone breaks the line between them
    $("score").innerHTML = [`${mark("red")} ${s.ip.red}`, `${mark("blue")} ${s.ip.blue}`,
      esc(T("DA {where}", {where: v.words.da_short})), esc(T("day {n}", {n: s.day}))]
      .map(x => `<span>${x}</span>`).join(" · ");
    // the live dot: a seat's own presence, or a watcher's stream bringing the changes
    $("live").classList.toggle("on", seat ? connected.includes(String(seat.id)) : watching && SL.streaming);
    $("notice").textContent = v.notice || "";
    $("notice").classList.toggle("hidden", !v.notice);
    const last = s.reveals[s.reveals.length - 1];
    // the words say what happened; a rule out of the ordinary is one tap away, as a link
    const rule = last && !PLAIN.includes(last.rule) ? ` <a class="rule-link" href="/rules#${esc(last.rule)}" target="_blank" data-testid="last-rule">${esc(last.rule)}</a>` : "";
    $("last").innerHTML = last ? `<b>${esc(T("Last reveal"))}</b> ${esc(last.narration)}${rule}` : "";
    $("last").classList.toggle("hidden", !last || s.phase === "over" || last.day !== s.day);
  }

  // the player this phone remembers (issue 14): its key (made here, only its hash is
  // kept by the server), the player's id and name; sent with every seat it takes
  const PLAYER = "sl-player";
  const player = () => { try { return JSON.parse(localStorage.getItem(PLAYER) || "null"); } catch (e) { return null; } };

  // --- one function per screen: (view, its taps, this seat's side) → the buttons ---
  const STEPS = {
    join(v) {
      const taken = (side, part) => v.seats.find(x => x.status === "active" && x.side === side && x.part === part);
      const parts = teams ? [1, 2] : [0];
      let h = `<div class="card stack"><label>${esc(T("Your side"))}</label>`;
      for (const side of ["red", "blue"]) {
        h += `<div class="row">` + parts.map(p => {
          const t = taken(side, p);
          const sel = joinSide === side && joinPart === p ? "sel" : "";
          return `<button type="button" class="${side} big ${sel}" data-join="${side}:${p}" aria-pressed="${!!sel}">${mark(side)} ${esc(capSide(side))}${p ? " " + partName(p) : ""}${t ? `<br><small class="muted">${esc(T("{name} sits here: ask to take over", {name: t.name}))}</small>` : ""}</button>`;
        }).join("") + `</div>`;
      }
      const me = player();
      return h + `<label for="name">${esc(T("Your name"))}</label><input type="text" id="name" maxlength="40" autocomplete="nickname" autocapitalize="words" autocorrect="off" spellcheck="false" value="${esc((me && me.name) || localStorage.getItem("sl-name") || "")}">
        <button type="button" class="primary big" id="do-join">${esc(T("Sit down"))}</button></div>
        ${me ? `<div class="card known" data-testid="known-player">${T("This phone remembers you as {name}: your games count in the group's statistics. Type another name above to rename yourself.", {name: `<b>${esc(me.name)}</b>`})}
          <div class="row"><a class="btn" href="/stats/players/${me.id}">${esc(T("My statistics"))}</a><button type="button" id="do-forget">${esc(T("Forget me on this phone"))}</button></div></div>` : ""}
        <button type="button" class="big" id="do-watch" data-testid="watch">${esc(T("Just watch (no seat)"))}</button>
        <a class="btn board-here" href="/t/${SL.code}" data-testid="board-here">${esc(T("Show the board on this screen (a TV, a laptop)"))}</a>`;
    },
    // a watcher: the game as it goes, read only; it takes no seat and can tap nothing
    watch(v) {
      const today = v.state.reveals.filter(r => r.day === v.state.day).map(r => `<li>${esc(r.narration)}</li>`).reverse().join("");
      return (v.state.phase === "over" ? ended(v) : "") + watchBoard(v) + (today ? `<h2 class="watch-h">${esc(T("Today"))}</h2><ol class="watch-log">${today}</ol>` : "")
        + `<p class="muted watch-note" data-testid="watching">${esc(T("You are watching: this phone takes no seat and taps nothing."))}</p>
        <button type="button" id="do-unwatch">${esc(T("Take a seat instead"))}</button>`;
    },
    waiting: () => "",
    ...steps.draw,
    over: v => ended(v) + `<a class="btn" href="/api/tables/${SL.code}/record" download>${esc(T("Save the game record"))}</a>`,
  };
  // the game's end, for a seat and a watcher: who won, why, and the game's story
  function ended(v) {
    const s = v.state;
    return `<div class="card over" data-testid="winner" data-winner="${s.winner}">
      <h1>${s.winner === "draw" ? "" : mark(s.winner) + " "}${esc(v.words.winner)}</h1><p>${esc(s.end)}</p></div>
      <a class="btn" href="/t/${SL.code}/story?from=phone" data-testid="story-link">${esc(T("The story of the game"))}&nbsp;▶</a>`;
  }
  // an undo that waits for this phone's side to agree, or that this phone asked for
  function undoCard(v) {
    const u = v.undo;
    if (!u || !seat) return "";
    if (u.needs === seat.side) return `<div class="card undo-ask" data-testid="undo-ask"><b>${esc(u.by ? T("{side!c} asks:", {side: sideName(u.by)}) : T("The big screen asks:"))}</b> ${esc(u.what)}
      <div class="row"><button type="button" class="primary" data-undo="yes">${esc(T("Undo it"))}</button><button type="button" data-undo="no">${esc(T("Keep it"))}</button></div></div>`;
    // (what it takes back is a sentence: its full stop dropped before the colon)
    if (u.by === seat.side) return `<div class="card muted" data-testid="undo-wait">${esc(T("{what}: waiting for {side}'s phone (or the big screen) to agree.", {what: Words.clause(u.what), side: sideName(u.needs)}))}</div>`;
    return "";
  }
  // another screen went on with this game at a new table (its own screen was gone): the
  // way there, until anything more is entered here
  function wentOn(v) {
    const to = v.went_on;
    return to ? `<div class="card way" data-testid="went-on"><b>${esc(T("This game goes on at table {code}, on another screen.", {code: to}))}</b>
      <a class="btn primary" href="/${watching && !seat ? "w" : "j"}/${to}">${esc(T("Go to table {code}", {code: to}))}</a>
      ${seat ? `<small class="muted">${esc(T("Anything entered here carries it on at this table instead."))}</small>` : ""}</div>` : "";
  }
  // what the line at the top says on a screen other than the table's next step
  const NEXT = {watch: "", join: T("Join the table"), waiting: T("Waiting for the big screen to let you take this seat…"), over: T("Game over")};

  // a rematch (issue 14): the seat's key moved to its new seat; go on there, seated
  // (a phone that was away does so when it comes back; a watcher goes on watching)
  function follow(v) {
    if (!v.rematch) return false;
    const to = v.rematch.code, mine = seat && v.rematch.seats[seat.id];
    let held = null;
    try { held = JSON.parse(localStorage.getItem(store) || "null"); } catch (e) { /* none */ }
    if (mine && held && held.secret) {
      localStorage.setItem("sl-seat-" + to, JSON.stringify({seat: mine, secret: held.secret}));
      localStorage.removeItem(store);
    } else if (watching) localStorage.setItem("sl-watch-" + to, "1");
    else return false;
    if (!follow.gone) { follow.gone = true; location.replace("/j/" + to); }   // once
    return true;
  }

  function render() {
    const v = SL.view;
    if (!v || follow(v)) return;
    header(v);
    if (typeof Lessons !== "undefined") Lessons.draw(v);    // (a seat just taken: its side)
    // the practice round's own drawing, only at its table (issue 53)
    if (v.practice && !render.practice) render.practice = document.head.appendChild(Object.assign(document.createElement("script"), {src: "/static/practice.js"}));
    const t = v.taps, act = $("act");
    document.body.dataset.version = v.version;
    act.dataset.step = REVEAL.includes(t.step) ? "reveal-" + t.step : t.step;
    document.body.dataset.act = act.dataset.step;    // (for phone.css: no :has() before iOS 15.4)
    if (seat && seat.status !== "pending" && v.version >= (seat.since || 0) && !v.seats.some(x => x.id === seat.id)) {
      localStorage.removeItem(store); seat = null; SL.secret = null;
      SL.toast(T("This phone no longer holds a seat: join again."));
    }
    const step = watching && !seat ? "watch" : !seat ? "join" : seat.status === "pending" ? "waiting" : t.step;
    // a step of the game is drawn only for the phones that may tap it (no sides: anyone)
    const open = step in NEXT || !t.sides.length || t.sides.some(x => mine(x, t.part));
    const deceive = !open && t.deceive && mine(t.deceive.side, t.part);
    // what this phone taps now: a new one starts with nothing picked. The other side's
    // entry of the same step (both enter their soldiers, then their tokens, at once) is
    // not a new one for this phone: the picks made so far stay
    const stepKey = [step, t.part, v.state.day, v.draft ? v.draft.mission : "", open, deceive].join("|");
    if (stepKey !== lastStep && $("toast")) $("toast").hidden = true;   // about a step now over
    const fresh = stepKey !== lastStep;
    if (fresh) { steps.picked = []; lastStep = stepKey; }
    const yourTurn = open && !(step in NEXT) && step !== "over";
    $("next").textContent = NEXT[step] || (v.state.phase === "over" ? NEXT.over : v.words.next);
    document.body.classList.toggle("watching", step === "watch");
    document.body.classList.toggle("your-turn", yourTurn);
    if (yourTurn && lastTurn !== stepKey && navigator.vibrate) navigator.vibrate(80);
    lastTurn = yourTurn ? stepKey : "";
    const html = open ? STEPS[step](v, t, seat && seat.side) : deceive ? STEPS.deceive(v, t, seat.side) : "";
    const undo = undoCard(v);
    // a learning game before its first step: the set-up is the big screen's (issue 53)
    const setup = v.first_game && !v.practice && v.walk !== false && !v.state.events && seat ? `<p class="muted" data-testid="setup-on-tv">${esc(T("The big screen shows how to set up the box."))}</p>` : "";
    act.innerHTML = wentOn(v) + undo + setup + (html || (step in NEXT ? "" : `<div class="card muted">${esc(T("Nothing for you to tap now."))} ${esc(v.words.waiting || "")}</div>`));
    SL.fitNames(act);
    if (undo) $("notice").classList.add("hidden");      // the undo's card says it: not twice
    // a new step to tap: its heading and question in view, not the grid a scroll left
    if (fresh && (yourTurn || deceive) && scrollY > 0 && !planning) scrollTo({top: 0, behavior: "instant"});
  }

  async function act(path, body) {
    const from = lastStep;
    const r = await SL.post(path, body);
    const shown = SL.view && SL.view.state.reveals.slice(-1).map(x => x.narration)[0];
    // the picks are done with, unless the stream brought the next step before this answer
    // (it often does): picks made since are that step's
    if (r.ok) { if (lastStep === from) steps.picked = []; if (r.data.text && r.data.text !== shown) SL.toast(r.data.text, true); }
    render();
    return r;
  }

  document.addEventListener("click", async e => {
    const b = e.target.closest("button");
    if (!b) return;
    const v = SL.view, t = v && v.taps;
    if (b.dataset.join) {
      const [side, p] = b.dataset.join.split(":"); joinSide = side; joinPart = +p; render(); return;
    }
    if (b.id === "do-watch" || b.id === "do-unwatch") {
      watching = b.id === "do-watch";
      if (watching) localStorage.setItem("sl-watch-" + SL.code, "1"); else localStorage.removeItem("sl-watch-" + SL.code);
      if (!watching) document.body.dataset.watch = "0";
      SL.connect(watching ? "watch" : "viewer");     // the TV counts its watchers
      render();
      scrollTo({top: 0, behavior: "instant"});       // the board (or the seats) from its top
      return;
    }
    if (b.id === "do-forget") {       // this phone only: the history keeps what the table saw
      localStorage.removeItem(PLAYER); localStorage.removeItem("sl-name");
      SL.toast(T("This phone no longer remembers you."), true); render(); return;
    }
    if (b.id === "do-join") {
      const name = $("name").value.trim();
      if (!joinSide) return SL.toast(T("Choose a side first."));
      if (!name) return SL.toast(T("Type your name."));
      localStorage.setItem("sl-name", name);
      const mine = SL.newSecret(), me = player() || {key: SL.newSecret()};
      const body = {side: joinSide, name, secret: mine, player: me.key};
      if (teams) body.part = joinPart;
      b.disabled = true;        // a second tap on a slow network: refused as stale, said so
      const r = await SL.post("/seats", body);
      b.disabled = false;
      if (r.ok) {
        // the view that shows this seat: the answer's version (the stream brings it)
        const d = r.data, since = d.version || (d.delta && d.delta.to) || (d.view && d.view.version) || 0;
        seat = {...d.seat, since}; SL.secret = mine;
        if (seat.player) localStorage.setItem(PLAYER, JSON.stringify({key: me.key, id: seat.player, name}));
        localStorage.setItem(store, JSON.stringify({seat, secret: mine}));
        Keys.held(SL.code);
        SL.connect(seat.id);
      }
      render(); return;
    }
    if (seat && await steps.tap(b, v, seat.side)) return;    // a step of the game
    if (b.id === "b-undo") {
      if (!seat) return SL.toast(T("Join the table first."));
      const next = v && v.undo_next;
      if (!next) return SL.toast(T("There is nothing to undo yet."));
      if (seat.status === "pending") return act("/undo", {});   // the server says why not
      const agree = next.by === "reveal" || (next.by && next.by !== seat.side);
      const yes = await SL.ask({id: "undo", title: next.what, yes: T("Undo it"), no: T("Keep it"),
        text: agree ? T("{side!c}'s phone (or the big screen) must agree.", {side: sideName(other(seat.side))}) : ""});
      if (yes) act("/undo", {});
      return;
    }
    if (b.dataset.undo) {           // one answer: a second tap would be refused, no undo waiting
      b.parentElement.querySelectorAll("button").forEach(x => { x.disabled = true; });
      return act("/undo", {confirm: b.dataset.undo === "yes"});
    }
    if (b.id === "b-rules") return openRules();
    if (b.id === "b-calc") return openCalc(seat ? seat.side : "red");
    if (b.id === "panel-close") {
      $("panel").classList.add("hidden");
      planning = false;
      if (t && t.step === "tokens" && seat) render();      // the plan's offer, as it now stands
      return;
    }
    if (b.id === "b-lineup") { planning = true; return Lineup.open(v, seat.side); }
    if (b.dataset.calcside) return openCalc(b.dataset.calcside);
    if (b.dataset.calc) return calc(b.dataset.side, +b.dataset.calc);
  });

  // --- panels: rules at hand and the ability calculator ---
  function panel(title, html) {
    $("panel-title").textContent = title; $("panel-body").innerHTML = html; $("panel").classList.remove("hidden");
    SL.fitNames($("panel-body"));       // the calculator's ranks, as the step's ("Feldmarschall")
  }
  let help = null;
  async function openRules() {
    if (!help) help = await (await fetch("/rules.json?lang=" + Words.lang)).json();
    const phase = SL.view ? SL.view.state.phase : "setup";
    panel(T("Rules"), `<input type="search" id="q" placeholder="${esc(T("Search: captain, R45, deception…"))}" aria-label="${esc(T("search the rules"))}"><div id="rl"></div>`);
    const rule = r => `<div class="rule"><h3><a href="/rules#${r.id}" target="_blank">${r.id} ${esc(r.title)}</a>${(r.phases || []).includes(phase) ? `<span class="tag">${esc(T("now"))}</span>` : ""}</h3><p>${esc(r.text)}</p></div>`;
    const soldier = r => `<div class="rule"><h3><a href="/rules#${r.rule}" target="_blank">${r.rank} ${esc(r.name)}</a><span class="tag">${r.rule}</span></h3><p>${esc(r.ability)}</p></div>`;
    // (a word about one of the companion's pages opens it, beside the game's tab)
    const opens = id => (help.opens || {})[id] ? `<p class="opens">${help.opens[id].map(([to, label]) => `<a class="btn" href="${esc(to)}" target="_blank">${esc(label)}</a>`).join("")}</p>` : "";
    const word = (g, id) => `<div class="rule"><h3><a href="/rules#${id}" target="_blank">${esc(g.term)}</a></h3><p>${esc(g.text)}</p>${opens(id)}</div>`;
    // by the anchors of the /rules page: "R45", "rank-6", "word-7"
    const entry = id => id.startsWith("rank-") ? soldier(help.ranks[+id.slice(5) - 1])
      : id.startsWith("word-") ? word(help.glossary[+id.slice(5)], id) : rule(help.rules.find(r => r.id === id));
    let asked = 0;
    const list = async typed => {
      const q = typed.trim(), mine = ++asked;
      let h;
      if (!q) {
        const now = help.rules.filter(r => (r.phases || []).includes(phase)), ph = help.phases[phase];
        h = (ph ? `<div class="rule"><h3>${esc(T("Now: {title}", {title: ph.title}))}</h3><p>${esc(ph.text)}</p></div>` : "")
          + now.map(rule).join("") + help.ranks.map(soldier).join("") + help.rules.filter(r => !now.includes(r)).map(rule).join("");
      } else {   // the server's search: accents, every language's names, a typo forgiven
        try {
          const r = await fetch(`/rules/search?q=${encodeURIComponent(q)}`);
          const ids = (await r.json()).ids;
          h = ids.map(entry).join("") || `<p class="muted">${esc(T("Nothing matches."))}</p>`;
        } catch (e) {
          h = `<p class="muted" role="alert">${esc(T("The search cannot reach the server. Check the Wi-Fi."))}</p>`;
        }
      }
      if (mine !== asked) return;          // a later keystroke asked again
      $("rl").innerHTML = h;
      $("rl").dataset.searched = q;
    };
    let timer = null;
    $("q").addEventListener("input", e => { clearTimeout(timer); timer = setTimeout(() => list(e.target.value), 150); });
    list("");
  }
  function openCalc(side) {
    panel(T("Ability calculator"), `<p class="muted">${esc(T("If this card were activated now, what would happen? Worked out by the referee on the game as it stands."))}</p>
      <div class="row"><button type="button" class="red ${side === "red" ? "sel" : ""}" data-calcside="red" aria-pressed="${side === "red"}">${mark("red")} ${esc(T("{side!c}'s card", {side: sideName("red")}))}</button>
      <button type="button" class="blue ${side === "blue" ? "sel" : ""}" data-calcside="blue" aria-pressed="${side === "blue"}">${mark("blue")} ${esc(T("{side!c}'s card", {side: sideName("blue")}))}</button></div>
      <div id="calc-out" class="stack" style="margin:12px 0"></div>
      <div class="ranks">${Array.from({length: 10}, (_, i) => rankBtn(i + 1, `data-calc="${i + 1}" data-side="${side}"`)).join("")}</div>`);
  }
  async function calc(side, n) {
    const r = await SL.get(`/preview?side=${side}&rank=${n}`);
    if (r.status !== 200) return SL.toast(Words.said(r.data.error));
    const over = SL.view && SL.view.state.phase === "over" ? `<div class="card muted">${esc(T("The game is over: nothing would change."))}</div>` : "";
    $("calc-out").innerHTML = over + r.data.options.map(o => `<div class="card"><b>${esc(T("{side!c}'s {rank}: {what}", {side: sideName(side), rank: r.data.name, what: o.label}))}</b><br>${esc(o.summary)}
      <br><span class="muted">${esc(o.effect_words)}</span></div>`).join("");
  }

  // a phone asking for a taken seat waits outside the versioned view: it asks every 3 s
  // whether the host screen let it in (or kept the seat)
  async function waitForTheHost() {
    if (seat && seat.status === "pending") {
      const r = await SL.get("/me").catch(() => null);
      if (r && r.status === 200 && r.data.role === "seat" && r.data.status !== "pending") {
        if (r.data.status === "active") { seat = {...seat, status: "active"}; localStorage.setItem(store, JSON.stringify({seat, secret: SL.secret})); }
        else { localStorage.removeItem(store); seat = null; SL.secret = null; SL.toast(T("The big screen kept the seat for the phone that holds it.")); }
        await SL.refresh(); render();
      } else if (r && r.status === 401) {
        localStorage.removeItem(store); seat = null; SL.secret = null; render();
      }
    }
    setTimeout(waitForTheHost, 3000);
  }
  $("next").dataset.turn = T("Your turn · ");
  SL.onView(render);
  SL.watchChance(() => { if (watching && !seat) render(); });
  waitForTheHost();
  // the heartbeat: while this page runs it says "here" every 4 s (a sleeping phone stops)
  setInterval(() => { if (seat && seat.status !== "pending" && !document.hidden) SL.get("/me").catch(() => null); }, 4000);
  SL.onPresence(c => { connected = c; if (SL.view) header(SL.view); });
  SL.refresh().then(() => SL.connect(seat ? seat.id : watching ? "watch" : "viewer"));
})();
