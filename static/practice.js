/* The practice round (issue 53), loaded only at a practice table (host.js, phone.js): the
   script's cards face up (on the big screen's board, on a phone in a strip over its
   panel), the tap the script wants next marked in the entry panel (steps.js draws it, as
   in any game: this only outlines the button, and tells a screen reader why), and the end
   with the way to the real game. Its words come in the view (view.practice.words). */
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const {esc, rank, mark, sideName, cap} = SL;
  const host = document.body.classList.contains("host");
  const panel = host ? $("entry") : $("act");
  const mySide = () => {
    try { const s = JSON.parse(localStorage.getItem("sl-seat-" + SL.code) || "null"); return s && s.seat ? s.seat.side : null; } catch (e) { return null; }
  };
  document.head.insertAdjacentHTML("beforeend", `<style>
    .practice-want { outline: 5px solid var(--gold) !important; outline-offset: 3px; box-shadow: 0 0 0 10px rgba(242,193,78,.35) !important; animation: practice-pulse 1.2s ease-in-out infinite alternate; position: relative; z-index: 1; }
    @keyframes practice-pulse { from { box-shadow: 0 0 0 3px rgba(242,193,78,.25); } to { box-shadow: 0 0 0 12px rgba(242,193,78,.5); } }
    @media (prefers-reduced-motion: reduce) { .practice-want { animation: none; } }
    [data-dec="ask"] { display: none !important; }   /* the script lays no deception token */
    .practice-tip { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    .practice-badge { color: var(--gold); font-weight: 800; border: 2px solid var(--gold); border-radius: 10px; padding: 2px 10px; white-space: nowrap; }
    .practice-badge span { font-weight: 600; color: var(--ink); margin-left: .4em; }
    .practice-hint { margin: 0 0 8px; color: var(--gold); font-weight: 700; }
    .practice-hint .practice-badge { display: inline-block; margin: 0 .4em 4px 0; }
    body.entry header .practice-badge { display: none; }    /* the panel's hint says it */
    body.entry-narrow .practice-say { display: none; }      /* a tablet: the ranks keep their room */
    @media (max-height: 700px) { .practice-strip .practice-hint { display: none; } .practice-strip .pc b { font-size: 1.2em; } }
    .practice-strip .practice-badge { display: inline-block; margin: 0 0 6px; }
    .practice-strip .practice-hint { font-size: .9em; }
    .practice-strip { border: 2px solid var(--gold); border-radius: 12px; padding: 8px 10px; margin: 0 0 10px; background: var(--felt); }
    .practice-strip .row-cards { display: flex; align-items: center; gap: 6px; margin: 4px 0; }
    .practice-strip .pc { flex: 1; min-width: 0; text-align: center; border-radius: 8px; padding: 2px 0; border: 2px dashed currentColor; }
    .practice-strip .pc b { display: block; font-size: 1.4em; line-height: 1.1; }
    .practice-strip .pc small { display: block; font-size: .68em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding: 0 2px; }
    .practice-strip .pc.red { background: var(--red-bg); color: var(--ink); border-color: var(--red); }
    .practice-strip .pc.blue { background: var(--blue-bg); color: var(--ink); border-color: var(--blue); }
    .practice-strip .pc.up { opacity: .4; border-style: solid; }
    .practice-end { position: fixed; inset: 0; z-index: 50; display: flex; align-items: center; justify-content: center; background: var(--end-bg); padding: 16px; }
    .practice-end > div { max-width: min(900px, 94vw); background: var(--end-bg); border: 3px solid var(--gold); border-radius: 18px; padding: 24px 28px; text-align: center; }
    .practice-end h2 { color: var(--gold); margin: 0 0 12px; font-size: 1.6em; }
    .practice-end p { margin: 0 0 18px; }
    html.table-screen .practice-end > div { font-size: 40px; }
  </style>`);
  document.body.insertAdjacentHTML("beforeend", '<span id="practice-tip" class="practice-tip"></span>');

  // the script's cards face up on the board's cards still face down, over the board's
  // last part (board.js draws again only the parts a change moved: they are drawn again
  // when the cards face down are not those they were drawn for)
  function faces(v) {
    const svg = $("board"), g = svg && svg.lastElementChild;
    if (!g) return;
    const key = JSON.stringify(["red", "blue"].map(side => SL.todays(v.state, side))), was = g.querySelector(".practice-faces");
    if (was && was.dataset.key === key && g.lastElementChild === was) return;
    if (was) was.remove();
    let out = "";
    for (const [side, y] of [["red", 340], ["blue", 585]]) {
      const today = SL.todays(v.state, side);
      v.practice.lineups[side].forEach((r, i) => {
        if (today[i + 1]) return;
        const x = 130 + i * 140, name = rank(r);
        out += `<rect x="${x + 8}" y="${y + 28}" width="100" height="112" rx="8" style="fill:var(--${side}-bg);stroke:var(--${side})" stroke-width="3" stroke-dasharray="8 5"/>
          <text x="${x + 58}" y="${y + 98}" text-anchor="middle" font-size="60" font-weight="800" style="fill:var(--ink)">${r}</text>
          <text x="${x + 58}" y="${y + 130}" text-anchor="middle" font-size="19" font-weight="700" style="fill:var(--ink)" ${name.length > 9 ? 'textLength="94" lengthAdjust="spacingAndGlyphs"' : ""}>${esc(name)}</text>`;
      });
    }
    g.insertAdjacentHTML("beforeend", `<g class="practice-faces" data-testid="practice-faces" data-key="${esc(key)}">${out}</g>`);
  }
  // a phone: both sides' four cards in a strip over its panel, those turned up faded
  function strip(v) {
    let el = $("practice-strip");
    if (!el) { el = document.createElement("div"); el.id = "practice-strip"; el.className = "practice-strip"; el.dataset.testid = "practice-strip"; panel.before(el); }
    const p = v.practice, w = p.words;
    el.innerHTML = `<div><span class="practice-badge">${esc(w.title)}<span>${esc(w.step)}</span></span></div>
      <p class="practice-hint">${esc(w.hint)}</p>` + ["red", "blue"].map(side => {
      const today = SL.todays(v.state, side);
      return `<div class="row-cards" role="group" aria-label="${esc(cap(sideName(side)))}">${mark(side)}${p.lineups[side].map((r, i) => `<span class="pc ${side} ${today[i + 1] ? "up" : ""}"><b>${r}</b><small>${esc(rank(r))}</small></span>`).join("")}</div>`;
    }).join("");
  }
  // the big screen: a badge in the header, or with the hint over the entry panel when the
  // screen enters a side (the header's heading keeps its room on a tablet)
  function badge(v) {
    const w = v.practice.words, html = `${esc(w.title)}<span>${esc(w.step)}</span>`;
    let b = $("practice-badge");
    if (!b) { b = document.createElement("div"); b.id = "practice-badge"; b.className = "practice-badge"; document.querySelector("header.top .brand").after(b); }
    b.innerHTML = html;
    let h = $("practice-hint");
    if (!h) { h = document.createElement("p"); h.id = "practice-hint"; h.className = "practice-hint"; $("entry-who").before(h); }
    const said = `<span class="practice-badge">${html}</span><span class="practice-say">${esc(w.hint)}</span>`;
    if (h.dataset.said !== said) { h.dataset.said = said; h.innerHTML = said; }   // (seen: once)
  }

  // the button of the panel the script wants tapped now (null: none of this panel's)
  function wanted(v) {
    const step = panel.dataset.step, side = host ? panel.dataset.side : mySide();
    const w = v.practice.want.find(x => x.step === step && (step.startsWith("reveal-") || !x.side || x.side === side));
    if (!w) return null;
    const q = s => panel.querySelector(s);
    if (step.startsWith("reveal-")) return q(`[data-${step.slice(7)}="${w.value}"]`);
    if (step === "start") return q(`[data-start="${w.start}"]`);
    if (step === "intel" && q(`[data-card="${w.ranks.join(",")}"]`)) return q(`[data-card="${w.ranks.join(",")}"]`);
    // picks, then the confirm: a pick the script does not want first taken back
    const want = step === "tokens" ? w.missions : w.ranks, sel = step === "tokens" ? "button.mission[data-pick]" : "[data-pick]";
    const picks = [...panel.querySelectorAll(sel)], on = b => b.getAttribute("aria-pressed") === "true";
    return picks.find(b => on(b) && !want.includes(+b.dataset.pick)) || picks.find(b => !on(b) && want.includes(+b.dataset.pick))
      || q(step === "tokens" ? "#do-tokens" : "#do-exhaust");
  }
  function marks() {
    const v = SL.view;
    if (!v || !v.practice) return;
    for (const b of document.querySelectorAll(".practice-want")) { b.classList.remove("practice-want"); b.removeAttribute("aria-describedby"); }
    $("practice-tip").textContent = v.practice.words.want;
    const b = !v.practice.over && wanted(v);
    if (!b) return;
    b.classList.add("practice-want"); b.setAttribute("aria-describedby", "practice-tip");
    // a phone: a new wanted button below the fold (under the tabs) scrolled into view
    const key = [v.version, panel.dataset.step, b.outerHTML].join("|");
    if (!host && key !== shown && b.getBoundingClientRect().bottom > innerHeight - 90) b.scrollIntoView({block: "center"});
    shown = key;
  }
  let shown = "";
  // the end: the practice over, the way to the real game's set-up (the first page's form)
  function end(v) {
    let e = $("practice-end");
    if (!v.practice.over) { if (e) e.remove(); return; }
    if (e) return;
    const w = v.practice.words;
    document.body.insertAdjacentHTML("beforeend", `<div id="practice-end" class="practice-end" role="dialog" aria-modal="true" aria-labelledby="practice-end-title" data-testid="practice-end"><div>
      <h2 id="practice-end-title">${esc(w.over)}</h2><p>${esc(w.then)}</p>
      <button type="button" class="primary big" id="practice-setup">${esc(w.setup)}</button></div></div>`);
    $("practice-setup").addEventListener("click", () => { location.href = "/#setup"; });
    $("practice-setup").focus();
  }
  function draw(v) {
    if (!v.practice) return;
    if (host) { badge(v); faces(v); } else strip(v);
    marks();
    end(v);
  }
  // drawn again whenever the panel or the board is (a pick, a redraw, a resize)
  let due = false;
  const soon = () => { if (due) return; due = true; queueMicrotask(() => { due = false; if (SL.view) draw(SL.view); }); };
  new MutationObserver(soon).observe(panel, {childList: true, subtree: true});
  if (host) new MutationObserver(soon).observe($("board"), {childList: true, subtree: true});
  SL.onView(soon);
  soon();
})();
