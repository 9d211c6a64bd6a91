/* The keeper link's page (issues 20, 50): the link's fragment (never sent to the server
   in a request line or a Referer) holds a secret that works once; the page trades it
   for the keeper key, keeps the key on this screen, and takes the fragment out of the
   address bar. The link left in the browser's history opens nothing after. A fragment
   holding the key itself (#key=…) is still taken. */
"use strict";
(async () => {
  const status = document.getElementById("keeper-status"), forget = document.getElementById("keeper-forget");
  const fragment = new URLSearchParams(location.hash.slice(1));
  const once = fragment.get("once");
  let given = fragment.get("key");
  if (once || given) history.replaceState(null, "", location.pathname);
  const copy = document.getElementById("keeper-backup"), download = document.getElementById("keeper-download");
  const group = document.getElementById("keeper-group"), wipe = document.getElementById("keeper-delete");
  function show(text, ok, backup) {
    status.textContent = text;
    document.body.dataset.keeper = ok ? "1" : "0";
    forget.hidden = !localStorage.getItem("sl-keeper");
    copy.hidden = !(ok && backup);
    group.hidden = !ok;
  }
  // a file the keeper's key fetches (a key in a header, so a fetch and a link to what came):
  // the server's games as one SQLite file, or the group's games as records (issue 54)
  async function fetchFile(button, url, fallback) {
    button.disabled = true;
    try {
      const r = await fetch(url, {method: "POST", body: "{}", headers: {
        "Content-Type": "application/json", Authorization: "Bearer " + localStorage.getItem("sl-keeper")}});
      if (!r.ok) { status.textContent = Words.said((await r.json().catch(() => ({}))).error) || T("Refused."); return; }
      const name = (/filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "") || [])[1] || fallback;
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await r.blob()); a.download = name;
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    } catch (e) {
      status.textContent = T("No answer from the companion. Is it still running?");
    } finally {
      button.disabled = false;
    }
  }
  download.addEventListener("click", () => fetchFile(download, "/api/keeper/backup", "spies-lies-games.sqlite"));
  const exported = document.getElementById("keeper-export");
  exported.addEventListener("click", () => fetchFile(exported, "/api/group/export", "spies-lies-group.json"));
  // deleting the group: a second tap says it is meant
  wipe.addEventListener("click", async () => {
    if (!wipe.dataset.sure) { wipe.dataset.sure = "1"; wipe.textContent = T("Tap again to delete the group for good"); return; }
    wipe.disabled = true;
    try {
      const r = await fetch("/api/group/delete", {method: "POST", headers: bearer(), body: "{}"});
      const d = await r.json().catch(() => ({}));
      if (!r.ok) { status.textContent = Words.said(d.error) || T("Refused."); wipe.disabled = false; return; }
      if (d.gone) {                      // (the server's own group stays, empty: its key too)
        localStorage.removeItem("sl-keeper");
        show(T("The group and everything it kept are deleted."), false);
      } else show(T("Every game, player and intel card of this group is deleted; the group stays, empty."), true);
    } catch (e) {
      status.textContent = T("No answer from the companion. Is it still running?");
      wipe.disabled = false;
    }
  });
  // screens asking to be a table's screen (issue 50): the keeper lets one in when the
  // table's own screen is gone for good; looked at every 3 s while this page is open
  const screens = document.getElementById("keeper-screens"), asks = document.getElementById("keeper-asks");
  const bearer = () => ({"Content-Type": "application/json", Authorization: "Bearer " + localStorage.getItem("sl-keeper")});
  let shown = "[]", looking = 0;
  async function lookForScreens() {
    clearTimeout(looking);
    if (!localStorage.getItem("sl-keeper")) { screens.hidden = true; return; }
    if (!document.hidden) {
      try {
        const r = await fetch("/api/keeper", {method: "POST", headers: bearer(), body: "{}", cache: "no-store"});
        const list = r.ok ? (await r.json()).screens : [];
        if (JSON.stringify(list) !== shown) {
          shown = JSON.stringify(list);
          asks.innerHTML = list.map(a => `<li data-testid="keeper-ask" data-code="${Words.esc(a.code)}"><span>${Words.esc(T("Table {code}", {code: a.code}))}</span>
            <b class="ask-number">${Words.esc(a.number)}</b><button type="button" class="primary" data-code="${Words.esc(a.code)}" data-hash="${Words.esc(a.hash)}" data-version="${a.version}">${Words.esc(T("Make it the table's screen"))}</button></li>`).join("");
          screens.hidden = !list.length;
        }
      } catch (e) { /* looked at again */ }
    }
    looking = setTimeout(lookForScreens, 3000);
  }
  // the keeper's key hands the table to the screen that asked (its key's hash): at once,
  // whatever the table's screen says; the table's version as it is now (a game in play
  // moves it between two looks: the answer brings the fresh one)
  asks.addEventListener("click", async e => {
    const b = e.target.closest("button[data-hash]");
    if (!b) return;
    b.disabled = true;
    let version = +b.dataset.version, said = T("Refused.");
    const request = Keys.request();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const r = await fetch(`/api/tables/${encodeURIComponent(b.dataset.code)}/host`, {method: "POST", headers: bearer(),
          body: JSON.stringify({version, idempotency_key: request, host_hash: b.dataset.hash})});
        const d = await r.json().catch(() => ({}));
        if (r.ok) { said = T("Table {code}: that screen is the table's screen now.", {code: b.dataset.code}); break; }
        said = Words.said(d.error) || said;
        if (!(r.status === 409 && d.code === "stale" && d.view)) break;
        version = d.view.version;
      }
    } catch (err) {
      said = T("No answer from the companion. Is it still running?");
    }
    status.textContent = said;
    b.disabled = false;
    lookForScreens();
  });
  forget.addEventListener("click", () => {
    localStorage.removeItem("sl-keeper");
    show(T("This screen is no longer the keeper."), false);
  });
  if (once) {
    try {
      const r = await fetch("/api/keeper/claim", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({once})});
      const d = await r.json().catch(() => ({}));
      if (r.ok) given = d.key;           // (spent before: a screen already the keeper stays so)
      else if (!localStorage.getItem("sl-keeper")) { show(Words.said(d.error) || T("Refused."), false); return; }
    } catch (e) { show(T("No answer from the companion. Is it still running?"), false); return; }
  }
  const key = given || localStorage.getItem("sl-keeper");
  if (!key) { show(T("This screen is not the keeper. Open the keeper link that the server printed when it started."), false); return; }
  fetch("/api/keeper", {method: "POST", headers: {"Content-Type": "application/json", Authorization: "Bearer " + key}, body: "{}"})
    .then(async r => {
      if (r.ok) {
        localStorage.setItem("sl-keeper", key);
        show(T("This screen is the keeper of the group's games: it may delete games and forget players."), true,
             (await r.json().catch(() => ({}))).backup);
        lookForScreens();
      }
      else { if (!given) localStorage.removeItem("sl-keeper"); show(Words.said((await r.json().catch(() => ({}))).error) || T("Refused."), false); }
    })
    .catch(() => show(T("No answer from the companion. Is it still running?"), false));
})();
