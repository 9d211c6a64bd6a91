/* The big screen's page (the host screen, /t/<code>): the table's view drawn by its parts,
   each a script of its own loaded before this one (stage.js fits the page to the screen;
   board.js, column.js, entry.js, handover.js, result.js and moments.js draw), the header
   (the day, what happens next) and the host's tools; every tap handed to the part it
   belongs to; the table listened to. */
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const {esc, sideName} = SL;
  const {screenSeats} = Entry;

  document.addEventListener("sl-theme", () => { Board.palette(); if (SL.view) draw(SL.view); });

  // (drawn whole, then measured once: Stage.batch; the version marked once all is)
  const draw = v => { Stage.batch(() => drawParts(v)); document.body.dataset.version = v.version; };
  function drawParts(v) {
    const s = v.state, w = v.words;
    document.body.dataset.phase = s.phase;
    Board.draw(v);
    Stage.put($("day"), [1, 2, 3].map(d => `<span class="${d === s.day ? "on" : ""}" title="${esc(T("day {n}", {n: d}))}">${d}</span>`).join(""));
    const seated = v.seats.filter(x => x.status === "active");
    Stage.text($("next"), s.phase === "over" ? T("Game over")
      : !seated.length && !s.reveals.length ? T("Scan the code with your phones to join: one phone per side") : w.next);
    Stage.heading();
    $("rules-link").href = "/rules?phase=" + s.phase;
    $("open-end").hidden = s.phase !== "over";
    // a learning game that skips what everyone seated saw at another table (issue 53)
    $("teach").hidden = !(v.first_game && v.lessons_known && s.phase !== "over");
    Column.draw(v);
    Entry.draw(v);
    Handover.draw(v);
    Result.draw(v);
    // a learning game before day 1: its set-up's script fetched only then (issue 53); the
    // practice round's own drawing only at its table (it has no set-up of the box)
    const load = src => document.head.appendChild(Object.assign(document.createElement("script"), {src}));
    if (v.first_game && !v.practice && v.walk !== false && !s.events && !walk) walk = load("/static/walk.js");
    if (v.practice && !practice) practice = load("/static/practice.js");
  }
  let walk, practice;

  document.addEventListener("click", async e => {
    // the seats' tools open over the step's panel (a side entered here): a tap elsewhere
    // closes them, and only that (not a rank under them picked by the way)
    const menu = document.querySelector("body.entry .screen-tools[open]");
    if (menu && !menu.contains(e.target)) { menu.open = false; e.preventDefault(); return; }
    const b = e.target.closest("button");
    if (!b) return;
    if (b.id === "close-end" || b.hasAttribute("data-open-end")) Result.show(b.id !== "close-end");
    if (b.hasAttribute("data-go-on")) { await Handover.goOnHere(b); return; }
    if (b.hasAttribute("data-hand-ask")) { await Handover.askToHost(b); return; }
    if (b.dataset.rematch) await Result.rematch(b);
    if (b.id === "sound") Moments.toggleSound();
    if (b.id === "teach") { await SL.post("/teach", {}); return; }
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
    if (b.dataset.take || b.dataset.free) { await Column.screenTool(b); return; }
    // the side that enters first, or a step entered on this screen
    if (b.dataset.entrySide || (SL.view && b.closest("#entry"))) { await Entry.click(b); return; }
    await Column.answer(b, handedAway);     // an undo, a seat or this screen's place asked for
  });

  // this screen let another take its place (or the keeper did): it shows the board only
  function handedAway() {
    Handover.handedAway();
    if (SL.view) draw(SL.view);
  }
  SL.onView(v => { Handover.keyGone(); draw(v); Moments.seen(v, Column.mustAct(v)); });
  SL.watchChance(() => { if (SL.view) draw(SL.view); });
  SL.onPresence((c, watching) => {
    Column.present(c, watching);
    if (SL.view) { Column.seats(SL.view); Handover.draw(SL.view); }
  });
  Column.watch(handedAway);
  SL.refresh().then(() => SL.connect("host"));
})();
