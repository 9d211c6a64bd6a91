/* Back to your game (the first page, the phones' join page): the games in play this
   screen holds a key for, asked of the server, one tap to the seat or the board. */
"use strict";
(() => {
  const esc = Words.esc;
  const SIDE = {red: T("red"), blue: T("blue")};
  // a tab closed, a browser restarted: these pages offered only a new table or the code
  // to type again; the server names the held tables still in play
  async function backTo() {
    const asked = Keys.held().map(code => {
      let key = localStorage.getItem("sl-host-" + code);
      try { key = key || (JSON.parse(localStorage.getItem("sl-seat-" + code) || "null") || {}).secret; } catch (e) { /* none */ }
      return key ? {code, key} : null;
    }).filter(Boolean);
    if (!asked.length) return;
    let games = [];
    try {
      const r = await fetch("/api/tables/mine", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({tables: asked})});
      if (r.ok) games = (await r.json()).tables.slice(0, 3);
    } catch (e) { /* no answer: the page as it is */ }
    if (!games.length) return;
    // each part of the line kept whole ("missions 1–2" broke after "missions")
    const line = g => [g.role === "host" ? T("This big screen") : T("You play {side}", {side: SIDE[g.side]}),
      g.part === 1 ? T("missions 1–2") : g.part === 2 ? T("missions 3–4") : "",
      g.started ? T("Day {n}", {n: g.day}) : T("Not started yet")].filter(Boolean).map(x => `<span class="nw">${esc(x)}</span>`).join(" · ");
    const names = g => g.players.red.length && g.players.blue.length
      ? T("{red} against {blue}", {red: g.players.red.join(" & "), blue: g.players.blue.join(" & ")}) : "";
    document.getElementById("back-list").innerHTML = games.map(g => `<a class="btn back-game" href="${g.role === "host" ? "/t/" : "/j/"}${esc(g.code)}" data-testid="back-${esc(g.code)}">
      <b>${esc(T("Table {code}", {code: g.code}))}</b><span class="muted">${line(g)}</span>${names(g) ? `<span class="muted">${esc(names(g))}</span>` : ""}</a>`).join("");
    document.getElementById("back-to").hidden = false;
  }
  backTo();
})();
