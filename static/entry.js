/* The entry panel on the big screen (issue 23): the sides that sit on this screen enter
   their steps here, drawn as on a phone (static/steps.js, the one description of the
   steps), for the side whose step it is; a laptop's keys do the same as the taps.
   Entry.draw(v) draws the panel, Entry.click(b) takes a tap in it. */
"use strict";
const Entry = (() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, sideName} = SL;
  const capSide = x => cap(sideName(x));

  // the seats that sit on this screen, and whether a side's step (a team's part) is one
  const screenSeats = v => v.seats.filter(x => x.screen && x.status === "active");
  const onScreen = (v, side, part) => screenSeats(v).some(x => x.side === side && (!v.teams || !part || x.part === 0 || x.part === part));
  // a tap's picks are done with once it is taken, unless the stream brought the next step
  // before the tap's own answer (it often does): picks made since are that step's
  function postStep(path, body) {
    const from = entryKey;
    return SL.post(path, body).then(r => { if (r.ok && entryKey === from) { steps.picked = []; if (SL.view) draw(SL.view); } return r; });
  }
  const steps = Steps.panel({post: postStep, redraw: () => SL.view && draw(SL.view)});
  let entryKey = "", entrySide = null, chosen = null;   // chosen: the side tapped to enter first
  // the step this screen enters now, and for which side (null: anyone at the table)
  function acting(v) {
    const t = v.taps;
    if (!screenSeats(v).length || !SL.secret || t.step === "over") return null;
    if (!t.sides.length) return {step: t.step, side: null};
    const open = t.sides.filter(x => onScreen(v, x, t.part));
    const side = open.includes(chosen) ? chosen : open[0];
    if (side) return {step: t.step, side, open};
    if (t.deceive && onScreen(v, t.deceive.side, t.part)) return {step: "deceive", side: t.deceive.side};
    return {step: "wait", side: null};
  }
  // the entry panel's width, told to host.css (entry-wide, entry-narrow) as a container
  // query would tell it: older iPads and TVs have none
  if (window.ResizeObserver) {
    new ResizeObserver(([seen]) => {
      const w = seen.contentRect.width, on = document.body.classList.contains("entry") && w > 0;
      document.body.classList.toggle("entry-wide", on && w >= 900);
      document.body.classList.toggle("entry-narrow", on && w < 540);
    }).observe($("entry"));
  }
  function draw(v) {
    const box = $("entry"), on = !!screenSeats(v).length && !!SL.secret;
    box.classList.toggle("hidden", !on);
    if (document.body.classList.contains("entry") !== on) {
      document.body.classList.toggle("entry", on);
      // the codes to join (while a seat waits for its phone), a request to answer, the
      // table's notice and the last reveal's words under the board: the side column is the
      // step's (the codes, a team's four seats or a notice pushed its ranks and last button away)
      if (on) $("board").after($("join"), $("requests"), $("notice"), $("narration"), $("first-time"));
      else { $("seats").before($("join")); $("aids").after($("requests"), $("notice")); $("today").before($("narration"), $("first-time")); }
      setTimeout(Stage.fit);
    }
    if (!on) return;
    const a = acting(v), t = v.taps, body = $("entry-body");
    // what this screen enters now, for which side: a new one starts with nothing picked
    // (a side entering elsewhere at the same time, on its phone, leaves the picks here)
    const key = [a && a.step, a && a.side, t.part, v.state.day, v.draft ? v.draft.mission : ""].join("|");
    if (key !== entryKey) { steps.picked = []; entryKey = key; }
    entrySide = a && a.side;
    // the step's name as a phone's panel says it (#act): reveal steps as "reveal-…"
    box.dataset.step = !a ? "over" : ["guess", "actual", "choice"].includes(a.step) ? "reveal-" + a.step : a.step;
    box.dataset.side = entrySide || "";
    const seat = entrySide && screenSeats(v).find(x => x.side === entrySide && (!v.teams || !t.part || x.part === 0 || x.part === t.part));
    $("entry-who").innerHTML = !a ? `<b>${esc(T("Game over"))}</b>`
      : a.step === "wait" ? `<span class="muted">${esc(v.words.waiting || v.words.next)}</span>`
      : entrySide ? `${mark(entrySide)} <b>${esc(capSide(entrySide))}</b>${seat && !seat.name.startsWith(capSide(entrySide)) ? ` · ${esc(seat.name)}` : ""}${v.teams && t.part ? ` <span class="muted">${esc(t.part === 1 ? T("missions 1–2") : T("missions 3–4"))}</span>` : ""}`
      : `<b>${esc(T("The table"))}</b>`;
    // both sides may enter this step here, each its own (soldiers, tokens, a capture's
    // check): either goes first, a tap away. Not a reveal's card turned up, which either
    // side may tap for both: the switch only pushed its ranks down a line in team play
    if (a && a.open && a.open.length > 1 && !["guess", "actual", "choice"].includes(a.step))
      $("entry-who").innerHTML += `<span class="entry-switch">${a.open.filter(x => x !== entrySide).map(x => `<button type="button" class="small" data-entry-side="${x}" data-testid="entry-side-${x}">${mark(x)} ${esc(T("{side!c} first", {side: sideName(x)}))}</button>`).join("")}</span>`;
    $("entry-keys-now").textContent = "";
    // the game over: its result again, once the board was looked at (nothing else led back)
    if (!a) { body.innerHTML = `<button type="button" class="primary big" data-open-end data-testid="open-end">${esc(T("Show the result"))}</button>`; return; }
    if (a.step === "wait") { body.innerHTML = ""; return; }
    let html = steps.draw[a.step](v, t, entrySide);
    // both sides here: the owner of the mission being guessed may lay a token first
    if (a.step === "guess" && t.deceive && onScreen(v, t.deceive.side, t.part) && v.state.dt[t.deceive.side])
      html += `<button type="button" class="quiet" data-dec="ask" data-for="${t.deceive.side}" data-testid="deceive">${mark(t.deceive.side)} ${esc(T("{side!c}: lay a deception token…", {side: sideName(t.deceive.side)}))}</button>`;
    body.innerHTML = html;
    // the Captain's and the Marshal's choices by their numbers, shown on them (issue 52:
    // the digits worked, unsaid)
    const choices = [...body.querySelectorAll("button.choice")];
    choices.forEach((b, i) => { b.dataset.key = i + 1; b.insertAdjacentHTML("afterbegin", `<kbd class="key" aria-hidden="true">${i + 1}</kbd>`); });
    // the keys of this step that the line under the panel does not name
    if (a.step === "start") $("entry-keys-now").textContent = " · " + T("R or B: who starts");
    else if (choices.length) $("entry-keys-now").textContent = " · " + T("1–{n}: a choice", {n: choices.length});
    else if (body.querySelector('[data-dec="ask"]')) $("entry-keys-now").textContent = " · " + T("D: a deception token");
    Stage.later(() => SL.fitNames(body));
    Stage.roomy();
  }
  // a tap at the panel: the side that enters first, or a step entered on this screen
  async function click(b) {
    if (b.dataset.entrySide) { chosen = b.dataset.entrySide; if (SL.view) draw(SL.view); return; }
    const v = SL.view, a = acting(v);
    if (a && (a.side || a.step !== "wait")) await steps.tap(b, v, b.dataset.for || a.side);
  }

  // a laptop's keyboard at the entry panel (issue 23): 1–9 and 0 (10) pick a rank (or on
  // the tokens step a mission; M then 1–4 a mission anywhere; on a choice's step the
  // choice by its number), Enter confirms the step, Backspace takes back the last tap
  // (a pick, or this screen's last tap of the reveal in progress; none: the undo, asked
  // first), ? opens the rules
  let missionNext = false;
  // this screen's own last tap of the reveal in progress (a guess, the card turned up, a
  // deception token): Backspace takes it back as it takes back a pick, no question asked
  // (issue 52: it opened "Undo", and the digits typed next were lost in that dialog)
  const ownTap = v => !!(v && v.draft && v.undo_next && (v.draft.guess != null || v.draft.actual != null || v.draft.deception)
    && screenSeats(v).some(x => x.side === v.undo_next.by));
  addEventListener("keydown", e => {
    const box = $("entry"), k = e.key;
    if (box.classList.contains("hidden") || e.ctrlKey || e.metaKey || e.altKey) return;
    // a question of the panel's open (the undo, a deception token): a digit answers it with
    // its safe answer and goes on to the panel (issue 52: it was dropped, and a guess typed
    // while "Undo" was asked was lost); any other key is the dialog's
    const asked = document.querySelector("dialog[open]");
    if (asked) {
      const typed = /^[0-9]$/.test(k) || /^(?:Digit|Numpad)[0-9]$/.test(e.code || "");
      if (!typed || !/^(undo|deceive)$/.test(asked.dataset.ask || "")) return;
      asked.close("no");
    }
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    const press = sel => {
      const b = $("entry-body").querySelector(sel);
      if (!b || b.disabled) return false;
      e.preventDefault(); b.click(); return true;
    };
    if (k === "?") { e.preventDefault(); $("rules-link").click(); return; }
    if (k === "Enter") { if (!e.target.closest("button, a, summary")) press("button.primary"); return; }
    if (k === "Backspace") {
      e.preventDefault();
      if (steps.back()) return;
      if (ownTap(SL.view)) SL.post("/undo", {});
      else $("undo").click();
      return;
    }
    if (k === "m" || k === "M") { missionNext = true; return; }
    // R or B: the side that starts (red, rouge, rot, rood; blue, bleu, blau, blauw);
    // D: a deception token laid, asked first as a tap is; typed, D then Enter lays it, as
    // the keys' line says Enter confirms (its "Lay it" focused: the tap's dialog focuses
    // "Not now", and D, Enter threw the token away), Escape or a digit keeps it
    const letter = /^[a-z]$/i.test(k) ? k.toUpperCase() : (/^Key([A-Z])$/.exec(e.code || "") || [])[1];
    if (letter === "R" || letter === "B") { press(`[data-start="${letter === "R" ? "red" : "blue"}"]`); return; }
    if (letter === "D") {
      // (the tap opens its dialog at once, before its first wait: it is open now)
      const lay = press('[data-dec="ask"]') && document.querySelector('dialog[data-ask="deceive"][open] [value="yes"]');
      if (lay) lay.focus();
      return;
    }
    // a digit by its key, not its character: a French or Belgian (AZERTY) laptop's
    // digits' keys give & é " ' ( - è _ ç à without Shift
    const digit = /^[0-9]$/.test(k) ? k : (/^(?:Digit|Numpad)([0-9])$/.exec(e.code || "") || [])[1];
    if (!digit) return;
    const n = digit === "0" ? 10 : +digit, mission = missionNext || box.dataset.step === "tokens";
    missionNext = false;
    if (mission) press(`button.mission[data-pick="${n}"]`);
    else press(`[data-pick="${n}"], [data-guess="${n}"], [data-actual="${n}"]`) || press(`button.choice[data-key="${n}"]`);
  });
  return {screenSeats, onScreen, draw, click};
})();
