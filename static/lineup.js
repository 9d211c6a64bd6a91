/* My line-up, checked in private (issue 13): before deploying, a player lays out the four
   cards they plan and sees whether the order is legal (R10, the Sergeant anywhere) and
   which missions need an intel token on this round's card (R11). The plan never leaves
   this phone: no request carries it; it is kept in localStorage only, per table, side
   and day. Lineup.check is the same check as companion/engine/deduce.py check_lineup,
   tested on the same cases (tests/cases/lineups.json). */
"use strict";
const Lineup = (() => {
  const SERGEANT = 4;

  // ranks: missions 1-4 in order, null for a mission not chosen yet; intel: 4 ranks or null
  function check(ranks, intel) {
    const placed = [];
    ranks.forEach((r, i) => { if (r !== null && r !== undefined) placed.push([i + 1, r]); });
    const values = placed.map(p => p[1]);
    const rest = values.filter(r => r !== SERGEANT);
    const rising = rest.every((r, i) => i === 0 || rest[i - 1] < r);
    const card = new Set(intel || []);
    return {
      legal: new Set(values).size === values.length && rising,
      complete: placed.length === 4,
      tokens: placed.filter(([, r]) => r !== SERGEANT && card.has(r)).map(p => p[0]),
      either: placed.filter(([, r]) => r === SERGEANT).map(p => p[0]),
    };
  }

  const key = (code, side, day) => `sl-lineup-${code}-${side}-day${day}`;
  function load(code, side, day) {
    try {
      const v = JSON.parse(localStorage.getItem(key(code, side, day)) || "null");
      if (Array.isArray(v) && v.length === 4) return v;
    } catch (e) { /* none */ }
    return [null, null, null, null];
  }
  function save(code, side, day, plan) {
    try { localStorage.setItem(key(code, side, day), JSON.stringify(plan)); } catch (e) { /* private mode */ }
  }

  // the missions the tokens step should start with: the plan's tokens on this card
  function tokens(view, side) {
    const plan = load(view.code, side, view.state.day);
    return view.state.intel ? check(plan, view.state.intel).tokens : [];
  }

  let ctx = null, slot = 0;   // ctx: {view, side}
  const $ = id => document.getElementById(id);

  function draw() {
    const {view, side} = ctx, s = view.state, day = s.day;
    const plan = load(view.code, side, day);
    const out = s.exhausted[side] || [];
    const c = check(plan, s.intel);
    const slots = plan.map((r, i) => `<button type="button" class="lu-slot ${i === slot ? "sel" : ""}" data-lslot="${i}" aria-pressed="${i === slot}" aria-label="${SL.esc(r ? Words.colon(T("mission {m}", {m: i + 1})) + " " + SL.rank(r) : T("mission {m}", {m: i + 1}))}"><small>${SL.esc(T("mission {m}", {m: i + 1}))}</small><b>${r || "–"}</b><span>${r ? SL.esc(SL.rank(r)) : ""}</span></button>`).join("");
    const ranks = Array.from({length: 10}, (_, i) => i + 1).map(r => {
      const gone = out.includes(r), used = plan.includes(r);
      return `<button type="button" class="${used ? "sel" : ""}" data-lrank="${r}" aria-pressed="${used}" ${gone ? "disabled" : ""}><b>${r}</b>${SL.esc(SL.rank(r))}${gone ? ` <small>${SL.esc(T("exhausted"))}</small>` : ""}</button>`;
    }).join("");
    let verdict;
    const esc = SL.esc;
    if (!plan.some(r => r)) verdict = `<p class="muted">${esc(T("Tap a mission, then a rank. Nothing you enter here leaves this phone."))}</p>`;
    else if (!c.legal) verdict = `<div class="lu-verdict bad" data-testid="lu-order" data-legal="0">${esc(T("Out of order: apart from the Sergeant, ranks must rise from mission 1 to mission 4."))}</div>`;
    else verdict = `<div class="lu-verdict ok" data-testid="lu-order" data-legal="1">${esc(c.complete ? T("Legal order.") : T("In order so far."))}</div>`;
    let intel;
    if (!s.intel) intel = `<p class="muted">${esc(T("The intel card is not recorded yet: the tokens show once it is."))}</p>`;
    else {
      const needs = c.tokens.length ? TN("intel token on mission {missions}", "intel tokens on missions {missions}", c.tokens.length, {missions: `<b>${c.tokens.join(", ")}</b>`}) : esc(T("no mission needs an intel token"));
      const either = c.either.length ? esc(T("; the Sergeant on mission {m} may carry one or not", {m: c.either[0]})) : "";
      intel = `<div class="lu-tokens" data-testid="lu-tokens" data-tokens="${c.tokens.join(",")}">${esc(T("Intel card {card}:", {card: s.intel.join(" · ")}))} ${needs}${either}.</div>`;
    }
    $("panel-body").innerHTML = `<p class="muted">${esc(T("Private: kept on this phone for day {day} only.", {day}))}</p>
      <div class="lu-slots">${slots}</div>${verdict}${intel}
      <div class="ranks lu-ranks">${ranks}</div>
      <button type="button" id="lu-clear">${esc(T("Clear the plan"))}</button>`;
    SL.fitNames($("panel-body"));
  }

  function open(view, side) {
    ctx = {view, side};
    const plan = load(view.code, side, view.state.day);
    slot = Math.max(0, plan.indexOf(null));
    $("panel-title").textContent = T("My line-up (private)");
    $("panel").classList.remove("hidden");
    draw();                          // once shown: its names are fitted to their buttons
  }

  document.addEventListener("click", e => {
    const b = e.target.closest("button");
    if (!b || !ctx || $("panel").classList.contains("hidden")) return;
    const {view, side} = ctx, day = view.state.day;
    const plan = load(view.code, side, day);
    if (b.dataset.lslot) {
      const i = +b.dataset.lslot;
      if (i === slot && plan[i]) { plan[i] = null; save(view.code, side, day, plan); }
      slot = i; draw();
    } else if (b.dataset.lrank) {
      const r = +b.dataset.lrank, was = plan.indexOf(r);
      if (was >= 0) plan[was] = null;
      plan[slot] = r;
      save(view.code, side, day, plan);
      const next = plan.indexOf(null);
      if (next >= 0) slot = next;
      draw();
    } else if (b.id === "lu-clear") {
      save(view.code, side, day, [null, null, null, null]); slot = 0; draw();
    }
  });

  return {check, open, tokens};
})();
