/* The end of a game on the big screen: the result (who won, why, each side's figures),
   the way to the story of the game and the rematch, in a dialog over the board; and the
   move to the rematch's table once it is open. Result.draw(v) is told each view. */
"use strict";
const Result = (() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, sideName} = SL;
  const capSide = x => cap(sideName(x));

  // one navigation to the rematch, whichever of the answer and the push comes first
  let leaving = false;
  const leave = url => { if (!leaving) { leaving = true; location.replace(url); } };
  let before = false;       // this page showed this game before its rematch was opened

  function draw(v) {
    const s = v.state, w = v.words, box = $("end");
    // the rematch opened from this screen (it holds the new table's key): go on there
    if (v.rematch && localStorage.getItem("sl-host-" + v.rematch.code)) { leave("/t/" + v.rematch.code); return; }
    // a second screen showing the board (no key) follows, as a watching phone does, when
    // it was showing this game before the rematch (an old table's board opened later stays)
    if (v.rematch && !SL.secret && before) { leave("/t/" + v.rematch.code); return; }
    if (!v.rematch) before = true;
    if (s.phase !== "over") { box.classList.add("hidden"); return; }
    const rows = [[T("IP now"), x => s.ip[x]], [T("identifications"), x => s.stats[x].identified],
      [T("IP from identifying"), x => s.stats[x].ip_identified], [T("IP from abilities"), x => s.stats[x].ip_abilities],
      [T("IP from deception"), x => s.stats[x].ip_deception], [T("infiltrations"), x => s.stats[x].infiltrations],
      [T("double-agent steps"), x => s.stats[x].da_steps], [T("cards activated"), x => s.stats[x].activated]];
    box.innerHTML = `<h1 id="end-title" data-testid="winner" data-winner="${s.winner}">${s.winner === "draw" ? "" : mark(s.winner) + " "}${esc(w.winner)}</h1>
      <div class="end-reason" data-testid="reason" data-reason="${s.reason}">${esc(w.reason || "")}</div>
      <table><tr><th></th><th class="side-red">${mark("red")} ${esc(capSide("red"))}</th><th class="side-blue">${mark("blue")} ${esc(capSide("blue"))}</th></tr>
      ${rows.map(([k, f]) => `<tr><td>${esc(k)}</td><td>${f("red")}</td><td>${f("blue")}</td></tr>`).join("")}</table>
      <div class="end-acts"><a class="btn primary story-link" href="/t/${SL.code}/story" data-testid="story-link">${esc(T("The story of the game"))}&nbsp;▶</a>
      ${v.rematch ? `<span data-testid="rematch-at">${esc(T("The rematch is at table {code}.", {code: v.rematch.code}))} <a href="/t/${v.rematch.code}">${v.rematch.code}</a></span>`
        : SL.secret ? `<span class="rematch" data-testid="rematch"><button type="button" class="primary" data-rematch="same">${esc(T("Rematch — same seats"))}</button>
          <button type="button" data-rematch="swap">${esc(T("Rematch — swap colours"))}</button></span>` : ""}</div>
      <p class="muted">${esc(T("Double agent {where}", {where: w.da}))} · <button id="close-end" type="button">${esc(T("Show the board"))}</button></p>`;
    box.classList.remove("hidden");
  }

  // the result shown again, or the board looked at
  const show = on => $("end").classList.toggle("hidden", !on);
  // one tap: a new table, same options, everyone seated
  async function rematch(b) {
    const key = Keys.secret();
    b.disabled = true;
    const r = await SL.post("/rematch", {swap: b.dataset.rematch === "swap", host_secret: key});
    if (r.ok) { localStorage.setItem("sl-host-" + r.data.rematch.code, key); leave("/t/" + r.data.rematch.code); }
    else b.disabled = false;
  }
  return {draw, show, rematch, leave};
})();
