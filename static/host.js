/* The shared screen: draws the board (SVG) and the table's story from the view. */
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, rank, sideName} = SL;
  const capSide = x => cap(sideName(x));
  const {screenSeats} = Entry;
  SL.secret = localStorage.getItem("sl-host-" + SL.code);
  if (SL.secret) Keys.held(SL.code);
  // a second screen opened on the table's link has no key: its undo would only refuse
  $("undo").hidden = !SL.secret;
  let connected = [];
  const presence = {known: false};     // who is connected, once the server has said

  document.addEventListener("sl-theme", () => { Board.palette(); if (SL.view) draw(SL.view); });

  function draw(v) {
    const s = v.state, w = v.words;
    document.body.dataset.version = v.version;
    document.body.dataset.phase = s.phase;
    Board.draw(v);
    $("aids").classList.toggle("hidden", !("deduction" in v));
    $("day").innerHTML = [1, 2, 3].map(d => `<span class="${d === s.day ? "on" : ""}" title="${esc(T("day {n}", {n: d}))}">${d}</span>`).join("");
    const seated = v.seats.filter(x => x.status === "active");
    $("next").textContent = s.phase === "over" ? T("Game over")
      : !seated.length && !s.reveals.length ? T("Scan the code with your phones to join: one phone per side") : w.next;
    // every seat taken: the join and watch codes go to a corner, the board takes the room
    const full = seated.length >= (v.teams ? 4 : 2);
    if (full !== document.body.classList.contains("seated")) {
      document.body.classList.toggle("seated", full);
      const j = $("join");                 // in its corner it is a button that shows them big
      if (full) { j.setAttribute("role", "button"); j.tabIndex = 0; j.setAttribute("aria-label", j.dataset.label); j.setAttribute("aria-expanded", "false"); }
      else { ["role", "tabindex", "aria-label", "aria-expanded"].forEach(a => j.removeAttribute(a)); document.body.classList.remove("codes-open"); }
      setTimeout(Stage.fit);
    }
    $("rules-link").href = "/rules?phase=" + s.phase;
    $("open-end").hidden = s.phase !== "over";
    const lastRev = s.reveals[s.reveals.length - 1];
    $("narration").textContent = lastRev ? lastRev.narration : T("No reveal yet.");
    $("narration").classList.toggle("muted", !lastRev);
    firstTime(v);
    const today = s.reveals.filter(r => r.day === s.day).map(r => r.narration);
    // each earlier reveal of the day under its number in the day (the newest is above)
    const items = today.length ? today.slice(0, -1).map((x, i) => [x, i + 1]).reverse()
      : v.log.slice(-6).reverse().map(l => [l.text, 0]);
    $("history").innerHTML = items.map(([x, n]) => `<li${n ? ` value="${n}"` : ` class="plain"`}><span>${esc(x)}</span></li>`).join("");
    $("today").classList.toggle("hidden", !items.length);
    $("notice").textContent = v.notice || "";
    $("notice").classList.toggle("hidden", !v.notice);
    seats(v);
    Entry.draw(v);
    elsewhere(v);
    Result.draw(v);
  }
  // a screen without the table's key, at a game whose sides are entered on the screen
  // that opened it: if that one is gone (a flat battery, a browser that forgot its key),
  // nothing could enter those sides' steps again; this screen may go on with the game at
  // a new table of its own, every event so far replayed, the same sides on it
  // (once one has, every screen of this table says where, until anything more is entered
  // here: this table's own screen, back, may carry the game on here after all).
  // Any screen without the key may ask to be the table's screen instead (issue 50): the
  // same table goes on, seats and all, once the table's screen allows it, or the keeper
  // (the table's screen gone for good). Who is connected only says how loudly it offers.
  const AWAY_MS = 4000;
  let awaySince = 0;                   // since when the table's screen is not connected
  function elsewhere(v) {
    // (a table this screen opened, its answer lost: a second tap here is answered with it)
    const box = $("elsewhere"), to = !goOn.tried && v.went_on;
    const keyless = !SL.secret && presence.known && !v.rematch;
    const phones = v.seats.some(x => x.status === "active" && !x.screen);
    const hostHere = connected.map(String).includes("host");
    // the table's screen away for a moment (opening the new table after a rematch, a
    // reload) is not gone: the offer to take its place is loud once it has been away a while
    if (hostHere || !keyless) awaySince = 0;
    else if (!awaySince) {
      awaySince = Date.now();
      setTimeout(() => { if (SL.view) elsewhere(SL.view); }, AWAY_MS + 50);
    }
    const gone = keyless && !hostHere && Date.now() - awaySince >= AWAY_MS;
    const asked = keyless && handAsk.asked;
    const copy = keyless && !!screenSeats(v).length && v.state.phase !== "over";
    // the table's screen still open elsewhere (a laptop, the TV to be): ask it, quietly
    const move = keyless && hostHere && phones && !copy && v.state.phase !== "over";
    const on = !!to || asked || gone || copy || move, shape = [v.version, asked, gone, copy, move, hostHere].join("|");
    const shown = !box.classList.contains("hidden");
    box.classList.toggle("hidden", !on);
    box.classList.toggle("quiet", move && !to && !asked);
    if (asked && handAsk.at !== v.version) { handAsk.at = v.version; watchAsk(); }   // let in?
    if (on && box.dataset.shape !== shape) {
      const open = !!box.querySelector("details[open]");     // opened: it stays open
      box.dataset.shape = shape;
      box.innerHTML = elsewhereBox(v, to, asked, gone, copy, move, hostHere);
      if (open && box.querySelector("details")) box.querySelector("details").open = true;
    } else if (shown === on) return;
    Stage.trim();        // the box above "Today" took (or gave back) its room
  }
  // "Go on here" opened or closed: the box's height changed under "Today"
  $("elsewhere").addEventListener("toggle", () => Stage.trim(), true);
  function elsewhereBox(v, to, asked, gone, copy, move, hostHere) {
    if (to) return `<b>${esc(T("This game goes on at table {code}, on another screen.", {code: to}))}</b>
        ${SL.secret ? `<p class="muted">${esc(T("Anything entered here carries it on at this table instead."))}</p>` : ""}
        <a class="btn primary" href="/t/${to}" data-testid="went-on">${esc(T("Go to table {code}", {code: to}))}</a>`;
    const keeper = `<p class="muted" data-testid="keeper-hint">${esc(T("Is that screen gone for good (a flat battery)? The keeper lets this screen in: open the keeper link on the computer that runs the companion (spies-lies keeper prints it)."))}</p>`;
    if (asked) return `<b data-testid="hand-asked">${esc(T("Asked: the table's screen decides."))}</b>
      <p>${esc(T("It shows the same number as this screen:"))} <b class="ask-number" data-testid="ask-number">${handKey().number}</b></p>${hostHere ? "" : keeper}`;
    const ask = primary => `<button type="button" class="${primary ? "primary" : ""}" data-hand-ask data-testid="hand-ask">${esc(T("Make this screen the table's screen"))}</button>`;
    // (the table's screen there: asked, it lets this one take its place, the same table)
    const asking = `<details class="no-phone"><summary data-testid="move-here">${esc(T("Make this screen the table's screen?"))}</summary>
      <p class="muted">${esc(T("The table's screen is asked, and lets this one take its place."))}</p>${ask(false)}</details>`;
    if (move) return asking;
    const button = `<button type="button" class="${gone ? "" : "primary"}" data-go-on data-testid="go-on">${esc(T("Go on with this game here"))}</button>`;
    return gone ? `<b data-testid="hand-gone">${esc(T("Is the screen that opened this table gone?"))}</b>
      <p class="muted">${esc(T("This screen can take its place: the table's screen allows it, or the keeper if it is gone for good."))}</p>${ask(true)}
      ${copy ? `<details class="no-phone"><summary data-testid="no-phone">${esc(T("Or go on at a new table here"))}</summary>
        <p class="muted">${esc(T("Go on at a new table here, every event so far; the phones join it with its code."))}</p>${button}</details>` : ""}`
      : `<b>${esc(T("This screen only shows this game: it is entered on the screen that opened the table."))}</b>
      <p class="muted">${esc(T("Is that screen gone? Go on here: a new table with every event so far, the same sides entered on this screen."))}</p>${button}${hostHere ? asking : ""}`;
  }
  // the key this screen would hold as the table's screen, kept for this tab (a reload
  // goes on waiting with the same ask); only its hash leaves the page, and the number
  // both screens show comes from that hash (tables.ask_number)
  function handKey() {
    const at = "sl-host-ask-" + SL.code;
    if (!handKey.kept) {
      let key = null;
      try { key = sessionStorage.getItem(at); } catch (e) { /* a private window: this page only */ }
      if (!/^[A-Za-z0-9_-]{32,128}$/.test(key || "")) key = Keys.secret();
      try { sessionStorage.setItem(at, key); } catch (e) { /* this page only */ }
      const hash = sha256(key);
      handKey.kept = {key, hash, number: String(parseInt(hash.slice(0, 8), 16) % 10000).padStart(4, "0")};
    }
    return handKey.kept;
  }
  // this screen asked to be the table's screen: until the table's screen (or the keeper)
  // answers, it looks every 2.5 s (and at each change of the table) whose its key is
  const ASKED = "sl-host-asked-" + SL.code;
  const handAsk = {asked: false, at: 0, timer: 0};
  try { handAsk.asked = sessionStorage.getItem(ASKED) === "1"; } catch (e) { /* not asked */ }
  function setAsked(on) {
    handAsk.asked = on;
    try { if (on) sessionStorage.setItem(ASKED, "1"); else sessionStorage.removeItem(ASKED); } catch (e) { /* this page only */ }
    if (SL.view) elsewhere(SL.view);
  }
  async function askToHost(b) {
    b.disabled = true;
    const r = await SL.post("/host", {host_hash: handKey().hash});    // (no key: an ask)
    b.disabled = false;
    if (r.ok) { setAsked(true); watchAsk(); }
  }
  async function watchAsk() {
    clearTimeout(handAsk.timer);
    if (!handAsk.asked) return;
    const {key} = handKey();
    try {
      const r = await fetch(`/api/tables/${SL.code}/me`, {headers: {Authorization: "Bearer " + key}, cache: "no-store"});
      const d = r.status === 200 ? await r.json() : {};
      // let in: the page opens again as the table's screen
      if (d.role === "host") { localStorage.setItem("sl-host-" + SL.code, key); setAsked(false); location.reload(); return; }
      if (r.status === 401 || (r.status === 200 && !d.asking)) {     // refused, or no answer came
        setAsked(false);
        SL.toast(T("The table's screen did not let this screen in."));
        return;
      }
    } catch (e) { /* the live connection shows the trouble */ }
    handAsk.timer = setTimeout(watchAsk, 2500);
  }
  // SHA-256 of a key (ASCII), in hex: the hash the server keeps of a host key
  // (crypto.subtle is missing on a plain-HTTP address such as a laptop's on the LAN)
  function sha256(text) {
    const K = [], H = [], frac = x => (x - Math.floor(x)) * 4294967296 | 0;
    for (let n = 2, found = 0; found < 64; n++) {
      let prime = true;
      for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
      if (!prime) continue;
      if (found < 8) H[found] = frac(Math.sqrt(n));
      K[found++] = frac(Math.cbrt(n));
    }
    const bytes = [...text].map(c => c.charCodeAt(0) & 255), bits = bytes.length * 8;
    bytes.push(0x80);
    while (bytes.length % 64 !== 56) bytes.push(0);
    for (let i = 7; i >= 0; i--) bytes.push(i > 3 ? 0 : (bits >>> (8 * i)) & 255);
    const w = new Array(64), rot = (x, n) => x >>> n | x << (32 - n);
    for (let at = 0; at < bytes.length; at += 64) {
      for (let i = 0; i < 16; i++) w[i] = bytes[at + 4 * i] << 24 | bytes[at + 4 * i + 1] << 16 | bytes[at + 4 * i + 2] << 8 | bytes[at + 4 * i + 3];
      for (let i = 16; i < 64; i++) {
        const a = w[i - 15], b = w[i - 2];
        w[i] = (w[i - 16] + (rot(a, 7) ^ rot(a, 18) ^ a >>> 3) + w[i - 7] + (rot(b, 17) ^ rot(b, 19) ^ b >>> 10)) | 0;
      }
      let [a, b, c, d, e, f, g, h] = H;
      for (let i = 0; i < 64; i++) {
        const t1 = (h + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      [a, b, c, d, e, f, g, h].forEach((x, i) => { H[i] = (H[i] + x) | 0; });
    }
    return H.map(x => (x >>> 0).toString(16).padStart(8, "0")).join("");
  }
  // one table however often it is tapped: a retry after a lost answer gets the same one
  const goOn = {key: Keys.secret(), request: Keys.request(), tried: false};
  async function goOnHere(b) {
    const v = SL.view;
    // the keeper's screen goes on with the group's own game (the table left behind says
    // where); any other screen holds no key of the table, so its copy is an imported game
    let keeper = null;
    try { keeper = localStorage.getItem("sl-keeper"); } catch (e) { /* a private window */ }
    const auth = keeper ? {Authorization: "Bearer " + keeper} : {};
    const text = T("A new table opens here with every event so far. The table on the other screen stays as it is.");
    if (!v || !await SL.ask({id: "go-on", title: T("Go on with this game on this screen?"), yes: T("Go on here"),
      text: keeper ? text : text + " " + T("Without the table's key (the keeper's screen holds one) it opens as an imported game, and the other table does not say where the game went on.")})) return;
    b.disabled = goOn.tried = true;
    try {
      const record = await (await fetch(`/api/tables/${SL.code}/record`, {headers: auth})).json(), key = goOn.key;
      const r = await fetch("/api/tables/import", {method: "POST", headers: {"Content-Type": "application/json", ...auth}, body: JSON.stringify({
        record, ...(keeper ? {from: SL.code} : {}), teams: v.teams, deduction: "deduction" in v, first_game: v.first_game, chances: v.chances, host_secret: key,
        screen: screenSeats(v).map(x => ({side: x.side, part: x.part, name: x.name})), idempotency_key: goOn.request})});
      const d = await r.json();
      if (r.ok) { localStorage.setItem("sl-host-" + d.code, key); Result.leave("/t/" + d.code); return; }
      SL.toast(Words.said(d.error) || T("refused"));
    } catch (e) { SL.toast(T("No answer from the companion. Is it still running?")); }
    b.disabled = false;
  }

  // the sides this screen may take or give back: at a table's start, or later
  function screenTools(v) {
    if (!SL.secret || v.state.phase === "over") return "";
    const parts = v.teams ? [1, 2] : [0], out = [];
    for (const side of ["red", "blue"]) for (const part of parts) {
      const held = v.seats.find(x => x.status === "active" && x.side === side && x.part === part);
      const where = capSide(side) + (part ? " " + (part === 1 ? "1–2" : "3–4") : "");
      if (held && held.screen) out.push(`<button type="button" class="small" data-free="${side}:${part}" data-testid="free-${side}-${part}">${esc(T("{seat}: give to a phone", {seat: where}))}</button>`);
      else out.push(`<button type="button" class="small" data-take="${side}:${part}" data-name="${esc(held ? held.name : capSide(side))}" data-testid="take-${side}-${part}">${esc(T("{seat}: enter on this screen", {seat: where}))}</button>`);
    }
    return `<details class="screen-tools" data-testid="screen-tools"><summary>${esc(T("Play without phones"))}</summary><div>${out.join("")}</div></details>`;
  }

  // A first game: the first time an ability acts in this game (a card activated, or an
  // exhausted soldier a Captain uses), one sentence says what it does, from the rules' texts.
  let abilities = null, asked = false;
  function activatedRanks(r) {
    const out = r.outcome === "activated" ? [r.actual] : [];
    for (const e of r.effects) if (e.kind === "use") out.push(e.rank);
    return out;
  }
  function firstTime(v) {
    const box = $("first-time"), s = v.state, last = s.reveals[s.reveals.length - 1];
    // (the words above it are told it shows, for host.css: old TV browsers have no :has())
    const show = on => { box.classList.toggle("hidden", !on); $("narration").classList.toggle("noted", on); };
    if (!v.first_game || !last) { show(false); return; }
    if (!abilities) {
      if (!asked) {
        asked = true;
        fetch("/rules.json?lang=" + Words.lang).then(r => r.json()).then(d => {
          abilities = {};
          for (const x of d.ranks) abilities[x.rank] = x;
          // (the note comes after the reveal was drawn: the side column makes room again,
          // or on a busy 4:3 laptop it pushed the tools off the screen)
          if (SL.view) { firstTime(SL.view); Stage.trim(); }
        }).catch(() => { asked = false; });
      }
      return;
    }
    const before = new Set(s.reveals.slice(0, -1).flatMap(activatedRanks));
    const fresh = activatedRanks(last).filter(r => !before.has(r) && abilities[r]);
    // (lines of text in one box inside its padding: the side column may cut them to its
    // room, Stage.trim)
    box.innerHTML = `<div class="lines">${fresh.map(r => `${esc(T("First time in this game:"))} <b>${esc(T("the {name} ({r})", {name: abilities[r].name, r}))}</b> — ${esc(abilities[r].ability)}.`).join("<br>")}</div>`;
    show(!!fresh.length);
  }

  function seats(v) {
    // a seat shows as here only while its stream is open and its heartbeat is fresh: a
    // phone asleep or off the network turns "away" within 10 s
    const on = new Set(connected.map(String).filter(id => seen[id] !== undefined && seen[id] !== null && seen[id] <= 10));
    const active = v.seats.filter(x => x.status === "active");
    const open = $("seats").querySelector("details[open]");
    $("seats").innerHTML = (active.length ? active.map(x => `<span class="seat" data-screen="${x.screen ? 1 : 0}">${mark(x.side)}
      <span class="nm" title="${esc(x.name)}">${esc(x.name)}</span>${x.part ? ` <span class="muted">(${x.part === 1 ? "1-2" : "3-4"})</span>` : ""}
      ${x.screen ? `<span class="on-screen" title="${esc(T("entered on this screen"))}">▣</span>` : `<span class="dot ${on.has(String(x.id)) ? "on" : ""}" title="${esc(on.has(String(x.id)) ? T("connected") : T("not connected"))}"></span>`}</span>`).join("")
      : `<span class="muted">${esc(T("No phone seated yet."))}</span>`) + screenTools(v);
    if (open && $("seats").querySelector("details")) $("seats").querySelector("details").open = true;
    const pending = asking, others = SL.secret ? screensAsking : [];
    if (pending.length || others.length) $("notice").classList.add("hidden");     // the request says it all
    if (pending.length || others.length || (v.undo && SL.secret)) Moments.skip();  // the host must tap: no overlay
    // another screen asks to take this one's place (issue 50): the same number shows there
    $("requests").innerHTML = others.map(x => `<div class="req" data-testid="screen-request" data-number="${x.number}">
      <div>▣ <b>${esc(T("Another screen asks to be the table's screen."))}</b> ${esc(T("Allow it only if it shows this number:"))} <b class="ask-number">${x.number}</b></div>
      <div class="req-actions"><button class="primary" data-screen-yes="${x.id}">${esc(T("Make it the table's screen"))}</button><button data-screen-no="${x.id}">${esc(T("Keep this screen"))}</button></div></div>`).join("")
      + pending.map(x => {
      const now = active.find(y => y.side === x.side && y.part === x.part);
      const keep = now ? now.name : capSide(x.side);
      return `<div class="req" data-testid="request"><div>${mark(x.side)} <b>${esc(x.name)}</b> ${esc(now ? T("asks to take {name}'s seat", {name: keep}) : T("asks to take the {side} seat", {side: sideName(x.side)}))}</div>
      ${SL.secret ? `<div class="req-actions"><button class="primary" data-approve="${x.id}">${esc(T("Let {name} in", {name: x.name}))}</button><button data-decline="${x.id}">${esc(T("Keep {name}", {name: keep}))}</button></div>` : ""}</div>`;
    }).join("");
    const u = v.undo;       // an undo waiting for the other side: the big screen may agree too
    // (not when a side sits here and the answer is the other side's phone's)
    const mine = screenSeats(v).map(x => x.side), answers = u && SL.secret && (!mine.length || mine.includes(u.needs));
    if (answers) $("notice").classList.add("hidden");     // its card says it: not twice
    $("requests").innerHTML += answers ? `<div class="req" data-testid="undo-request"><div>${mark(u.by || "red")} <b>${esc(u.what)}</b>: ${esc(T("{side!c}'s phone or this screen agrees", {side: sideName(u.needs)}))}</div>
      <div class="req-actions"><button class="primary" data-undo="yes">${esc(T("Undo it"))}</button><button data-undo="no">${esc(T("Keep it"))}</button></div></div>` : "";
    Stage.roomy();      // (the seats' row may have grown: "Play without phones" opened)
    Stage.trim();      // the seats or a request above "Today" may have taken its room
  }

  const codes = $("join");
  function openCodes(on) {
    document.body.classList.toggle("codes-open", on);
    codes.setAttribute("aria-expanded", String(on));
  }
  codes.addEventListener("click", () => {
    if (document.body.classList.contains("seated")) openCodes(!document.body.classList.contains("codes-open"));
  });
  codes.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); codes.click(); } });
  addEventListener("keydown", e => {
    if (e.key !== "Escape") return;
    openCodes(false);
    document.querySelectorAll(".screen-tools[open]").forEach(d => { d.open = false; });
  });

  document.addEventListener("click", async e => {
    // the seats' tools open over the step's panel (a side entered here): a tap elsewhere
    // closes them, and only that (not a rank under them picked by the way)
    const menu = document.querySelector("body.entry .screen-tools[open]");
    if (menu && !menu.contains(e.target)) { menu.open = false; e.preventDefault(); return; }
    const b = e.target.closest("button");
    if (!b) return;
    if (b.id === "close-end" || b.hasAttribute("data-open-end")) Result.show(b.id !== "close-end");
    if (b.hasAttribute("data-go-on")) { await goOnHere(b); return; }
    if (b.hasAttribute("data-hand-ask")) { await askToHost(b); return; }
    if (b.dataset.rematch) await Result.rematch(b);
    if (b.id === "sound") Moments.toggleSound();
    if (b.id === "undo") {
      if (!SL.secret) return SL.toast(T("Only a seated phone or the screen that opened the table can undo."));
      const v = SL.view, next = v && v.undo_next;
      if (!next) return SL.toast(T("There is nothing to undo yet."));
      // a side on this screen and one on a phone: the phone agrees to undo what it saw
      const mine = screenSeats(v).map(x => x.side), theirs = ["red", "blue"].find(x => !mine.includes(x));
      const agree = mine.length && theirs && (next.by === "reveal" || next.by === theirs);
      if (await SL.ask({id: "undo", title: next.what, yes: T("Undo it"), no: T("Keep it"),
        text: agree ? T("{side!c}'s phone must agree.", {side: sideName(theirs)}) : ""})) await SL.post("/undo", {});
      return;
    }
    if (b.dataset.take || b.dataset.free) {
      const [side, part] = (b.dataset.take || b.dataset.free).split(":");
      const body = {side, part: +part, on: !!b.dataset.take};
      if (b.dataset.take) body.name = b.dataset.name;
      b.disabled = true;
      b.closest("details").open = false;
      await SL.post("/screen", body);
      return;
    }
    // the side that enters first, or a step entered on this screen
    if (b.dataset.entrySide || (SL.view && b.closest("#entry"))) { await Entry.click(b); return; }
    // one answer to an undo or a seat asked for (a second tap was refused: nothing waits),
    // the two buttons on again should the answer not arrive
    const answer = b.dataset.undo || b.dataset.approve || b.dataset.decline || b.dataset.screenYes || b.dataset.screenNo;
    const both = answer ? [...b.parentElement.querySelectorAll("button")] : [];
    both.forEach(x => { x.disabled = true; });
    let r = null;
    if (b.dataset.undo) r = await SL.post("/undo", {confirm: b.dataset.undo === "yes"});
    if (b.dataset.approve || b.dataset.decline) {
      const id = b.dataset.approve || b.dataset.decline;
      r = await SL.post(`/seats/${id}/decision`, {approve: !!b.dataset.approve});
      if (r.ok) { asking = asking.filter(x => String(x.id) !== id); if (SL.view) seats(SL.view); }
    }
    if (b.dataset.screenYes || b.dataset.screenNo) {
      const id = b.dataset.screenYes || b.dataset.screenNo;
      r = await SL.post(`/seats/${id}/decision`, {approve: !!b.dataset.screenYes});
      if (r.ok) {
        screensAsking = screensAsking.filter(x => String(x.id) !== id);
        if (b.dataset.screenYes) handedAway();
        else if (SL.view) seats(SL.view);
      }
    }
    if (r && !r.ok) both.forEach(x => { x.disabled = false; });
  });

  // phones asking to take over a seat, and screens asking to take this one's place, wait
  // outside the versioned view (their requests never move the version the players' taps
  // carry): the host screen looks every 3 s
  let asking = [], seen = {}, screensAsking = [];
  async function lookForRequests() {
    if (!document.hidden) {
      try {
        const r = await SL.get("/requests");
        if (r.status === 401 && SL.secret) handedAway();        // the keeper moved the table
        const screens = r.status === 200 ? r.data.screens || [] : screensAsking;
        if (JSON.stringify(screens) !== JSON.stringify(screensAsking)) { screensAsking = screens; if (SL.view) seats(SL.view); }
        const now = r.status === 200 ? r.data.requests : asking;
        if (r.status === 200 && JSON.stringify(r.data.seen) !== JSON.stringify(seen)) { seen = r.data.seen || {}; if (SL.view) seats(SL.view); }
        if (JSON.stringify(now) !== JSON.stringify(asking)) { asking = now; if (SL.view) seats(SL.view); }
      } catch (e) { /* the live connection shows the trouble */ }
    }
    setTimeout(lookForRequests, 3000);
  }


  // a phone asking for a seat, or an undo waiting for this screen, needs the host's tap:
  // it outranks any moment
  const hostMustAct = v => asking.length > 0 || screensAsking.length > 0 || !!(v.undo && SL.secret && (!screenSeats(v).length || screenSeats(v).some(x => x.side === v.undo.needs)));

  // a key the server no longer knows (another screen is the table's screen now): this one
  // shows the board as any other, and forgets it
  let keyed = !!SL.secret;
  function keyGone() {
    if (!keyed || SL.secret) return;
    keyed = false;
    localStorage.removeItem("sl-host-" + SL.code);
    $("undo").hidden = true;
  }
  // this screen let another take its place (or the keeper did): from now on it only shows
  // the board, its stream one of a viewer
  function handedAway() {
    SL.secret = null; SL.me = null; screensAsking = []; asking = [];
    keyGone();
    SL.connect("viewer");
    if (SL.view) draw(SL.view);
  }
  SL.onView(v => { keyGone(); draw(v); Moments.seen(v, hostMustAct(v)); });
  SL.watchChance(() => { if (SL.view) draw(SL.view); });
  SL.onPresence((c, watching) => {
    connected = c; presence.known = true;
    // (first: its line is in the side column until every seat is taken, which seats() fits)
    $("watchers").textContent = watching ? TN("{n} watching", "{n} watching", watching) : "";
    $("watchers").dataset.count = watching;
    if (SL.view) { seats(SL.view); elsewhere(SL.view); }
  });
  lookForRequests();
  SL.refresh().then(() => SL.connect("host"));
})();
