/* A learning game's set-up, walked through on the big screen before day 1 (issue 53): the
   goal and a day, then the box laid out step by step, each step a drawing (the server's
   /setup-walk, in the screen's language). "Done" or Enter goes on, "Skip the set-up" ends
   it; either way this screen does not show it again for this table. host.js loads this
   script only for a learning game with nothing entered yet: no page's first load carries
   it. */
"use strict";
const Walk = (() => {
  let box = null, steps = [], at = 0, key = "";

  function close() {
    if (!box) return;
    localStorage.setItem(key, "1");
    box.remove(); box = null;
    removeEventListener("keydown", keys, true);
    document.body.classList.remove("walking");
    if (SL.view) Stage.heading();
    // the lessons wait for the set-up's end (static/lessons.js)
    if (SL.view && typeof Lessons !== "undefined") Lessons.draw(SL.view);
  }
  function show(i) {
    at = i;
    steps.forEach((s, j) => { s.hidden = j !== i; });
    box.querySelector('[data-walk="done"]').focus();
  }
  const next = () => (at + 1 < steps.length ? show(at + 1) : close());
  // while it shows, the keys are its own (the entry panel's digits and Enter wait under it)
  function keys(e) {
    if (!box) return;
    e.stopImmediatePropagation();
    if (e.key !== "Enter" || e.target.closest('[data-walk="skip"]')) return;
    e.preventDefault();
    next();
  }
  async function open(v) {
    key = "sl-setup-" + v.code;
    if (box || localStorage.getItem(key)) return;
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/static/walk.css";
    const styled = new Promise(res => { css.onload = css.onerror = res; });
    document.head.append(css);
    let html;
    try {
      const r = await fetch("/setup-walk?wall=" + v.wall_distance);
      if (!r.ok) return;
      html = await r.text();
    } catch (e) { return; }            // no set-up shown: the game itself goes on
    await styled;
    if (box || (SL.view && SL.view.state.events)) return;
    box = document.createElement("div");
    box.className = "walk";
    box.id = "walk";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-modal", "true");
    box.innerHTML = html;
    steps = [...box.querySelectorAll(".walk-step")];
    box.addEventListener("click", e => {
      const b = e.target.closest("[data-walk]");
      if (b) (b.dataset.walk === "skip" ? close : next)();
    });
    addEventListener("keydown", keys, true);
    document.body.append(box);
    document.body.classList.add("walking");
    show(0);
  }
  // shown once every seat is taken (the codes to join stay in view until then); the game
  // gone on without it (a phone entered day 1's first step): shown no more; nor when
  // everyone seated was walked through it at another table (the view's walk, issue 53)
  SL.onView(v => {
    if (v.state.events || v.walk === false) close();
    else if (v.seats.filter(x => x.status === "active").length >= (v.teams ? 4 : 2)) open(v);
  });
  return {open};
})();
