/* Create a table: wall distance (with a drawing of how to count it), team play, the deduction
   aid, a learning game (the big screen then shows how to set up the box and explains each
   ability the first time it acts). */
"use strict";
(() => {
  let wall = 4, teams = false, deduction = false, enter = "phones", chances = false;
  // a learning game (the first game's explanations and the set-up shown): as the page
  // chose it, on while the group has finished no game here (issue 53)
  let firstGame = document.querySelector('[data-first="1"]').classList.contains("sel");
  // the seats entered on the big screen (issue 23): none, every one, or blue's
  const SIDE = {red: T("red"), blue: T("blue")}, cap = w => w[0].toUpperCase() + w.slice(1);
  const screen = () => (enter === "screen" ? ["red", "blue"] : enter === "blue" ? ["blue"] : [])
    .flatMap(side => (teams ? [1, 2] : [0]).map(part => ({side, part, name: cap(SIDE[side])})));
  const pic = document.getElementById("wd-pic");
  const esc = Words.esc;
  // a longer word squeezed to its square, never cut
  const fit = (text, size, room) => text.length * size * 0.58 > room ? `textLength="${room}" lengthAdjust="spacingAndGlyphs"` : "";
  // a phone draws it narrower, not smaller: its words keep a readable size
  const narrow = matchMedia("(max-width: 600px)");
  function drawPic() {
    const span = narrow.matches ? 420 : 740, n = 2 * wall + 3, w = span / n, cs = getComputedStyle(document.documentElement);
    pic.setAttribute("viewBox", `0 16 ${span + 20} 102`);
    const C = k => cs.getPropertyValue("--" + k).trim();
    // a flag's word where its square has room for it, else the flag's sign
    const flag = fit(T("flag"), 18, w - 6) ? "⚑" : T("flag");
    let s = "";
    for (let p = -(wall + 1); p <= wall + 1; p++) {
      const x = 10 + (p + wall + 1) * w, a = Math.abs(p);
      const fill = a === wall + 1 ? C("b-void") : a === wall ? (p < 0 ? C("b-red-wall") : C("b-blue-wall")) : p === 0 ? C("b-mid-cell") : C("b-card");
      s += `<rect x="${x + 2}" y="20" width="${w - 4}" height="50" rx="5" fill="${fill}" stroke="${C("line")}" stroke-width="2"/>`;
      // the count in gold, on the wall's own colour in ink (gold on the light look's blue read 2.6:1)
      if (p > 0 && p <= wall) s += `<text x="${x + w / 2}" y="52" font-size="22" fill="${C(p === wall ? "ink" : "gold")}" text-anchor="middle" font-weight="800">${p}</text>`;
      // the flag's square is dark in both looks: its word light on it (the light look's grey was unreadable)
      if (a === wall + 1) s += `<text x="${x + w / 2}" y="52" font-size="18" fill="#ece6d4" text-anchor="middle" ${fit(flag, 18, w - 6)}>${esc(flag)}</text>`;
    }
    const c = 10 + (wall + 1.5) * w, e = 10 + (2 * wall + 2) * w;
    s += `<text x="${c}" y="100" font-size="18" fill="${C("ink")}" text-anchor="middle" font-weight="700">${esc(T("centre"))}</text>`;
    s += `<text x="${e - w / 2}" y="100" font-size="18" fill="${C("ink")}" text-anchor="middle" font-weight="700">${esc(T("wall"))}</text>`;
    s += `<path d="M${c + w / 2} 110 H${e - w}" stroke="${C("gold")}" stroke-width="3" marker-end="url(#a)"/>`;
    s += `<defs><marker id="a" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto"><path d="M0 0L8 4L0 8z" fill="${C("gold")}"/></marker></defs>`;
    pic.innerHTML = s;
    document.getElementById("wd-show").textContent = wall;
  }
  // one of a set chosen: shown by its frame and said to a screen reader (a radio's
  // aria-checked for the wall distance, aria-pressed for the two-way choices)
  function choose(attr, b) {
    document.querySelectorAll(`[data-${attr}]`).forEach(x => {
      x.classList.toggle("sel", x === b);
      if (x.getAttribute("role") === "radio") { x.setAttribute("aria-checked", String(x === b)); x.tabIndex = x === b ? 0 : -1; }
      else x.setAttribute("aria-pressed", String(x === b));
    });
  }
  document.addEventListener("click", e => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.w) { wall = +b.dataset.w; choose("w", b); drawPic(); }
    // the thinking aids: the deduction aid and the chance to win each on or off, "No aid"
    // chosen when neither is (it stood chosen beside "Chance to win", issue 52)
    if (b.dataset.aid || b.dataset.chances) {
      if (b.dataset.chances) chances = !chances;
      else if (b.dataset.aid === "1") deduction = !deduction;
      else deduction = chances = false;
      const on = {"[data-aid='0']": !deduction && !chances, "[data-aid='1']": deduction, "[data-chances]": chances};
      for (const [sel, yes] of Object.entries(on)) {
        const x = document.querySelector(sel);
        x.classList.toggle("sel", yes); x.setAttribute("aria-pressed", String(yes));
      }
    }
    if (b.dataset.first) { firstGame = b.dataset.first === "1"; choose("first", b); }
    if (b.dataset.teams) { teams = b.dataset.teams === "1"; choose("teams", b); }
    if (b.dataset.enter) { enter = b.dataset.enter; choose("enter", b); }
  });
  // the wall distance is a radio group: the arrow keys move the choice
  document.querySelector(".wd").addEventListener("keydown", e => {
    const step = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1}[e.key];
    if (!step) return;
    e.preventDefault();
    const next = document.querySelector(`[data-w="${Math.min(8, Math.max(2, wall + step))}"]`);
    next.click(); next.focus();
  });
  // a phone that opened this page came to join: the big screen's set-up folds away
  const setup = document.getElementById("setup");
  if (matchMedia("(max-width: 700px)").matches) setup.open = false;
  // one table at a time: a second tap while the first opens it made a second table (the
  // button stays off once the page leaves for the table, and is on again if Back returns)
  let opening = false;
  const openButton = document.querySelector("#create button[type=submit]");
  const ready = () => { opening = false; openButton.disabled = false; };
  async function open(url, body, say) {
    if (opening) return;
    opening = true; openButton.disabled = true;
    if (!await opened(url, body, say)) ready();
  }
  addEventListener("pageshow", e => { if (e.persisted) ready(); });
  // One key per attempt at opening a table (a retry after a lost answer opens the same
  // table), and the host screen's own key, sent once: no retry ever needs one back;
  // true: the page goes to the table
  async function opened(url, body, say) {
    const host = Keys.secret();
    const payload = JSON.stringify({idempotency_key: Keys.request(), host_secret: host, ...body});
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: payload});
        const d = await r.json();
        if (!r.ok) { say(Words.said(d.error) || T("refused")); return false; }
        // a finished game that is already here (its record imported before): its story
        if (d.existing) { location.href = `/t/${d.code}/story`; return true; }
        localStorage.setItem("sl-host-" + d.code, host);
        location.href = "/t/" + d.code;
        return true;
      } catch (e) {
        if (attempt >= 3) { say(T("No answer from the companion. Is it still running?")); return false; }
        await new Promise(res => setTimeout(res, 600 * (attempt + 1)));
      }
    }
  }
  const problem = document.getElementById("import-problem");
  document.getElementById("create").addEventListener("submit", e => {
    e.preventDefault();
    open("/api/tables", {wall_distance: wall, teams, deduction, first_game: firstGame, screen: screen(), chances}, msg => { document.getElementById("create-problem").textContent = msg; });
  });
  // the practice round (issue 53): its table, both sides on this screen, opened at once
  document.getElementById("try-practice").addEventListener("click", () => {
    const screen = ["red", "blue"].map(side => ({side, part: 0, name: cap(SIDE[side])}));
    open("/api/tables", {practice: true, screen}, msg => { document.getElementById("create-problem").textContent = msg; });
  });
  document.getElementById("import-file").addEventListener("change", async e => {
    const file = e.target.files[0];
    if (!file) return;
    problem.textContent = "";
    let record;
    try { record = JSON.parse(await file.text()); }
    catch (err) { problem.textContent = T("This file is not a saved game (it is not JSON)."); return; }
    open("/api/tables/import", {record, teams, deduction, first_game: firstGame}, msg => { problem.textContent = msg; });
  });
  document.addEventListener("sl-theme", drawPic);
  narrow.addEventListener("change", drawPic);       // a window narrowed, a tablet turned
  drawPic();
})();
