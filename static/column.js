/* The side column of the big screen: the seats and whether each phone is here, the
   sides this screen may enter ("Play without phones"), the requests waiting for the
   host's tap (a phone asking for a seat, another screen asking to be the table's screen,
   an undo to agree to), the last reveal, a first game's note on a new ability, the day's
   reveals, the table's notice, and the codes to join (a corner once every seat is taken).
   Column.draw(v) draws it; the requests come from their own look every 3 s (watch). */
"use strict";
const Column = (() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, rank, sideName} = SL;
  const capSide = x => cap(sideName(x));
  const {screenSeats} = Entry;
  const presence = {known: false, connected: []};     // who is connected, once the server has said

  function draw(v) {
    const s = v.state;
    $("aids").classList.toggle("hidden", !("deduction" in v));
    // every seat taken: the join and watch codes go to a corner, the board takes the room
    const full = v.seats.filter(x => x.status === "active").length >= (v.teams ? 4 : 2);
    if (full !== document.body.classList.contains("seated")) {
      document.body.classList.toggle("seated", full);
      const j = $("join");                 // in its corner it is a button that shows them big
      if (full) { j.setAttribute("role", "button"); j.tabIndex = 0; j.setAttribute("aria-label", j.dataset.label); j.setAttribute("aria-expanded", "false"); }
      else { ["role", "tabindex", "aria-label", "aria-expanded"].forEach(a => j.removeAttribute(a)); document.body.classList.remove("codes-open"); }
      setTimeout(Stage.fit);
    }
    const lastRev = s.reveals[s.reveals.length - 1];
    Stage.text($("narration"), lastRev ? lastRev.narration : T("No reveal yet."));
    $("narration").classList.toggle("muted", !lastRev);
    const today = s.reveals.filter(r => r.day === s.day);
    // each earlier reveal of the day under its number in the day, in one short line (the
    // newest is whole above the list; its whole words are the line's title)
    const items = today.length ? today.slice(0, -1).map((r, i) => [short(r), i + 1, r.narration]).reverse()
      : v.log.slice(-6).reverse().map(l => [esc(l.text), 0, l.text]);
    Stage.put($("history"), items.map(([x, n, all]) => `<li${n ? ` value="${n}"` : ` class="plain"`}><span title="${esc(all)}">${x}</span></li>`).join(""));
    $("today").classList.toggle("hidden", !items.length);
    Stage.text($("notice"), v.notice || "");
    $("notice").classList.toggle("hidden", !v.notice);
    seats(v);
  }
  // a reveal in "Today", short (issue 52: whole sentences of three or four lines each left
  // room for one to three of a day's eight on a 1920x1080 screen, cut with "…"): whose
  // mission, the card turned up and the guess, what became of it
  function short(r) {
    const guessed = r.guess != null && !(r.rule === "R60" && !r.effects.some(e => e.kind === "order_broken"));
    const said = guessed
      ? T("mission {m}: {actual} ({guess} guessed)", {m: r.mission, actual: rank(r.actual), guess: rank(r.guess)})
      : T("mission {m}: {actual}", {m: r.mission, actual: rank(r.actual)});
    const what = SL.outcomeWord(r.outcome);
    return `${mark(r.owner)} ${esc(said)}${what ? ` · ${esc(what)}` : ""}`;
  }
  // who is connected, and how many watch, as the live stream says
  function present(connected, watching) {
    presence.connected = connected; presence.known = true;
    // (first: its line is in the side column until every seat is taken, which seats() fits)
    $("watchers").textContent = watching ? TN("{n} watching", "{n} watching", watching) : "";
    $("watchers").dataset.count = watching;
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

  function seats(v) {
    // a seat shows as here only while its stream is open and its heartbeat is fresh: a
    // phone asleep or off the network turns "away" within 10 s
    const on = new Set(presence.connected.map(String).filter(id => seen[id] !== undefined && seen[id] !== null && seen[id] <= 10));
    const active = v.seats.filter(x => x.status === "active");
    const open = $("seats").querySelector("details[open]");
    Stage.put($("seats"), (active.length ? active.map(x => `<span class="seat" data-screen="${x.screen ? 1 : 0}">${mark(x.side)}
      <span class="nm" title="${esc(x.name)}">${esc(x.name)}</span>${x.part ? ` <span class="muted">(${x.part === 1 ? "1-2" : "3-4"})</span>` : ""}
      ${x.screen ? `<span class="on-screen" title="${esc(T("entered on this screen"))}">▣</span>` : `<span class="dot ${on.has(String(x.id)) ? "on" : ""}" title="${esc(on.has(String(x.id)) ? T("connected") : T("not connected"))}"></span>`}</span>`).join("")
      : `<span class="muted">${esc(T("No phone seated yet."))}</span>`) + screenTools(v));
    if (open && $("seats").querySelector("details")) $("seats").querySelector("details").open = true;
    const pending = asking, others = SL.secret ? screensAsking : [];
    if (pending.length || others.length) $("notice").classList.add("hidden");     // the request says it all
    if (pending.length || others.length || (v.undo && SL.secret)) Moments.skip();  // the host must tap: no overlay
    // another screen asks to take this one's place (issue 50): the same number shows there
    const asked = others.map(x => `<div class="req" data-testid="screen-request" data-number="${x.number}">
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
    Stage.put($("requests"), asked + (answers ? `<div class="req" data-testid="undo-request"><div>${mark(u.by || "red")} <b>${esc(Words.clause(u.what))}</b>: ${esc(T("{side!c}'s phone or this screen agrees", {side: sideName(u.needs)}))}</div>
      <div class="req-actions"><button class="primary" data-undo="yes">${esc(T("Undo it"))}</button><button data-undo="no">${esc(T("Keep it"))}</button></div></div>` : ""));
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

  // phones asking to take over a seat, and screens asking to take this one's place, wait
  // outside the versioned view (their requests never move the version the players' taps
  // carry): the host screen looks every 3 s
  let asking = [], seen = {}, screensAsking = [];
  async function lookForRequests() {
    if (!document.hidden) {
      try {
        const r = await SL.get("/requests");
        if (r.status === 401 && SL.secret) gone();              // the keeper moved the table
        const screens = r.status === 200 ? r.data.screens || [] : screensAsking;
        if (JSON.stringify(screens) !== JSON.stringify(screensAsking)) { screensAsking = screens; if (SL.view) seats(SL.view); }
        const now = r.status === 200 ? r.data.requests : asking;
        if (r.status === 200 && JSON.stringify(r.data.seen) !== JSON.stringify(seen)) { seen = r.data.seen || {}; if (SL.view) seats(SL.view); }
        if (JSON.stringify(now) !== JSON.stringify(asking)) { asking = now; if (SL.view) seats(SL.view); }
      } catch (e) { /* the live connection shows the trouble */ }
    }
    setTimeout(lookForRequests, 3000);
  }
  // the look starts (onGone: told when another screen is the table's screen now)
  let gone = () => {};
  function watch(onGone) { gone = onGone; lookForRequests(); }

  // a phone asking for a seat, or an undo waiting for this screen, needs the host's tap:
  // it outranks any moment
  const mustAct = v => asking.length > 0 || screensAsking.length > 0 || !!(v.undo && SL.secret && (!screenSeats(v).length || screenSeats(v).some(x => x.side === v.undo.needs)));

  // a side taken to be entered on this screen, or given back to a phone
  async function screenTool(b) {
    const [side, part] = (b.dataset.take || b.dataset.free).split(":");
    const body = {side, part: +part, on: !!b.dataset.take};
    if (b.dataset.take) body.name = b.dataset.name;
    b.disabled = true;
    b.closest("details").open = false;
    const r = await SL.post("/screen", body);
    if (!r.ok) b.disabled = false;      // refused: on again, as an answer's buttons are
  }
  // one answer to an undo or a seat asked for (a second tap was refused: nothing waits),
  // the two buttons on again should the answer not arrive (onGone: this screen let
  // another be the table's screen)
  async function answer(b, onGone) {
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
        if (b.dataset.screenYes) onGone();
        else if (SL.view) seats(SL.view);
      }
    }
    if (r && !r.ok) both.forEach(x => { x.disabled = false; });
  }
  // this screen is the table's screen no more: no request waits for it
  function forget() { screensAsking = []; asking = []; }
  return {draw, seats, present, presence, watch, mustAct, forget, answer, screenTool};
})();
