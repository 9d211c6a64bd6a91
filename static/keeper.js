/* The keeper link's page (issue 20): the key comes in the link's fragment (never sent
   to the server in a request line or a Referer); the page asks the server once whether
   it is the keeper key, keeps it on this screen, and takes it out of the address bar. */
"use strict";
(() => {
  const status = document.getElementById("keeper-status"), forget = document.getElementById("keeper-forget");
  const given = new URLSearchParams(location.hash.slice(1)).get("key");
  if (given) history.replaceState(null, "", location.pathname);
  const key = given || localStorage.getItem("sl-keeper");
  function show(text, ok) {
    status.textContent = text;
    document.body.dataset.keeper = ok ? "1" : "0";
    forget.hidden = !localStorage.getItem("sl-keeper");
  }
  forget.addEventListener("click", () => {
    localStorage.removeItem("sl-keeper");
    show(T("This screen is no longer the keeper."), false);
  });
  if (!key) { show(T("This screen is not the keeper. Open the keeper link that the server printed when it started."), false); return; }
  fetch("/api/keeper", {method: "POST", headers: {"Content-Type": "application/json", Authorization: "Bearer " + key}, body: "{}"})
    .then(async r => {
      if (r.ok) { localStorage.setItem("sl-keeper", key); show(T("This screen is the keeper of the group's games: it may delete games and forget players."), true); }
      else { if (!given) localStorage.removeItem("sl-keeper"); show(Words.said((await r.json().catch(() => ({}))).error) || T("Refused."), false); }
    })
    .catch(() => show(T("No answer from the companion. Is it still running?"), false));
})();
