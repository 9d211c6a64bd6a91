/* The rules page: the rules of one phase, and a search the server answers
   (/rules/search: accents and case folded, every language's words, a typo forgiven);
   what it finds is shown best first in #found, and goes back in its place after. */
"use strict";
(() => {
  const phases = JSON.parse(document.getElementById("phases").textContent);
  const items = [...document.querySelectorAll("main .rule[id]")];
  const found = document.getElementById("found"), input = document.getElementById("q");
  const problem = document.getElementById("search-problem");
  const esc = Words.esc;
  // each entry's home: a marker it goes back after when the search is cleared
  const home = new Map(items.map(el => { const m = document.createComment(el.id); el.before(m); return [el, m]; }));
  let phase = new URLSearchParams(location.search).get("phase") || "", q = "", hits = null, asked = 0;

  function show() {
    const searching = q && hits;
    for (const [el, m] of home) if (el.parentNode === found) m.after(el);   // all home first
    if (searching) hits.forEach(id => { const el = document.getElementById(id); if (el) found.appendChild(el); });
    items.forEach(el => {
      const okP = !phase || el.dataset.phases.split(" ").includes(phase) || el.matches(":target");
      el.classList.toggle("hidden", searching ? el.parentNode !== found : !okP);
    });
    // what it finds under a heading of its own (the sections' step aside), or that it
    // found nothing
    document.querySelectorAll("main > h2").forEach(h => h.classList.toggle("hidden", !!searching === (h.id !== "found-title")));
    let none = document.getElementById("found-none");
    if (searching && !hits.length && !none) {
      none = document.createElement("p"); none.id = "found-none"; none.className = "muted";
      none.textContent = T("Nothing matches."); found.after(none);
    }
    if (none) none.hidden = !(searching && !hits.length);
    // a search looks in every phase: their buttons step aside for what it finds
    document.querySelector(".phases").classList.toggle("hidden", !!q);
    document.querySelectorAll("[data-phase]").forEach(b => b.classList.toggle("sel", b.dataset.phase === phase));
    // on a phone the phases are one row that scrolls sideways: the chosen one in sight
    const sel = document.querySelector(".phases .sel"), row = sel && sel.parentNode;
    if (row && row.scrollWidth > row.clientWidth) {
      row.scrollLeft += sel.getBoundingClientRect().left - row.getBoundingClientRect().left - 8;
    }
    const ph = phases[phase];
    document.getElementById("phase-note").innerHTML = ph && !q ? `<div class="rule"><h2>${esc(T("Now: {title}", {title: ph.title}))}</h2><p>${esc(ph.text)}</p></div>` : "";
    document.body.dataset.searched = searching ? q : q ? "…" : "";
  }
  let timer = null;
  async function ask() {
    const mine = ++asked, typed = input.value.trim();
    if (!typed) { q = ""; hits = null; problem.classList.add("hidden"); show(); return; }
    try {
      const r = await fetch(`/rules/search?q=${encodeURIComponent(typed)}`);
      const d = await r.json();
      if (mine !== asked) return;                  // a later keystroke asked again
      q = typed; hits = d.ids; problem.classList.add("hidden");
    } catch (e) {
      if (mine !== asked) return;
      q = typed; hits = []; problem.classList.remove("hidden");
    }
    show();
  }
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
  document.addEventListener("click", e => { const b = e.target.closest("[data-phase]"); if (b) { phase = b.dataset.phase; show(); } });
  if (location.hash) phase = "";
  window.addEventListener("hashchange", () => { phase = ""; show(); });
  show();
})();
