/* The rules page: search, and the rules of one phase. */
"use strict";
(() => {
  const phases = JSON.parse(document.getElementById("phases").textContent);
  const items = [...document.querySelectorAll(".rule")];
  const esc = s => String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  let phase = new URLSearchParams(location.search).get("phase") || "";
  function show() {
    const q = document.getElementById("q").value.trim().toLowerCase();
    items.forEach(el => {
      const okQ = !q || el.dataset.text.includes(q);
      const okP = !phase || q || el.dataset.phases.split(" ").includes(phase) || el.matches(":target");
      el.classList.toggle("hidden", !(okQ && okP));
    });
    document.querySelectorAll("[data-phase]").forEach(b => b.classList.toggle("sel", b.dataset.phase === phase));
    const ph = phases[phase];
    document.getElementById("phase-note").innerHTML = ph && !q ? `<div class="rule"><h3>${esc(T("Now: {title}", {title: ph.title}))}</h3><p>${esc(ph.text)}</p></div>` : "";
  }
  document.getElementById("q").addEventListener("input", show);
  document.addEventListener("click", e => { const b = e.target.closest("[data-phase]"); if (b) { phase = b.dataset.phase; show(); } });
  if (location.hash) phase = "";
  window.addEventListener("hashchange", () => { phase = ""; show(); });
  show();
})();
