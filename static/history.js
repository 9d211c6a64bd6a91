/* The history pages: delete a game or forget a player, after one confirming tap (Ask).
   The buttons show only where the server would allow it (issue 20: a key, never an
   address): on the keeper's screen (the keeper key, from the link the server printed),
   on the screen that hosted that game (its host key), on the player's own phone (its
   player key). */
"use strict";
(() => {
  // when each game was played, in this screen's time: the server is told the zone (a
  // cookie, for the next pages and the month filter) and a date it wrote in another
  // zone (this screen's first visit) is written again here (companion/edge/when.py)
  let zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* none */ }
  if (zone) {                 // (what a zone's name may be is the server's to judge)
    document.cookie = `sl-tz=${zone}; path=/; max-age=31536000; samesite=lax`;
    try {                     // (a zone an old browser names but cannot format: as written)
      const shown = new Intl.DateTimeFormat(document.documentElement.lang || undefined,
                                            {dateStyle: "medium", timeStyle: "short", timeZone: zone});
      document.querySelectorAll("time[data-zone]").forEach(t => {
        if (t.dataset.zone !== zone) { t.textContent = shown.format(new Date(t.dateTime)); t.dataset.zone = zone; }
      });
    } catch (e) { /* the server's words stand */ }
  }

  const keeper = localStorage.getItem("sl-keeper");
  let me = null;
  try { me = JSON.parse(localStorage.getItem("sl-player") || "null"); } catch (e) { /* none */ }

  async function post(path, key, body) {
    const h = {"Content-Type": "application/json"};
    if (key) h.Authorization = "Bearer " + key;
    const r = await fetch(path, {method: "POST", headers: h, body: JSON.stringify(body || {})});
    return {ok: r.ok, data: await r.json().catch(() => ({}))};
  }

  // the one confirmation of every screen (static/ask.js); a refusal said beside the button
  async function confirmIn(button, question, yes, done) {
    if (!await Ask({id: "forget", title: question, yes, no: T("Keep"), danger: true})) return;
    button.disabled = true;
    refused(button, await done());
  }

  // a refusal said beside the button, which can be tapped again
  function refused(button, r) {
    if (r.ok) return;
    const box = document.createElement("p");
    box.className = "problem"; box.setAttribute("role", "alert");
    box.textContent = Words.said(r.data.error) || T("Refused.");
    button.after(box);
    button.disabled = false;
  }

  document.querySelectorAll("[data-del]").forEach(b => {
    const code = b.dataset.del, host = localStorage.getItem("sl-host-" + code);
    if (!keeper && !host) return;
    b.classList.remove("hidden");
    b.addEventListener("click", () => confirmIn(b, T("Delete the game of table {code} for good?", {code}), T("Delete"), async () => {
      const r = await post(`/api/history/${code}/delete`, keeper || host);
      if (r.ok) b.closest("li").remove();
      return r;
    }));
  });

  document.querySelectorAll("[data-del-player]").forEach(b => {
    const id = +b.dataset.delPlayer, mine = me && me.id === id ? me.key : null;
    if (!keeper && !mine) return;
    b.classList.remove("hidden");
    b.addEventListener("click", () => confirmIn(b, T("Forget this player in every game here? Their name is removed."), T("Forget"), async () => {
      const r = await post(`/api/players/${id}/delete`, keeper || mine);
      if (r.ok) {
        if (mine && (!keeper || me.id === id)) localStorage.removeItem("sl-player");
        location.href = "/stats";
      }
      return r;
    }));
  });

  // the keeper counts a game kept apart (imported, or entered faster than a table plays),
  // or sets a counted one apart: it moves to the other list (issue 50)
  if (keeper) document.querySelectorAll("[data-count]").forEach(b => {
    b.classList.remove("hidden");
    b.addEventListener("click", async () => {
      b.disabled = true;
      const r = await post(`/api/history/${b.dataset.count}/count`, keeper, {count: b.dataset.value === "true"});
      if (r.ok) b.closest("li").remove();
      refused(b, r);
    });
  });

  // the keeper forgets a player and deletes every game they sat at, in one step (a
  // stranger's made-up games, issue 50)
  document.querySelectorAll("[data-del-player-games]").forEach(b => {
    const id = +b.dataset.delPlayerGames;
    if (!keeper) return;
    b.classList.remove("hidden");
    b.addEventListener("click", () => confirmIn(b, T("Forget this player and delete every game they sat at, for good?"), T("Delete"), async () => {
      const r = await post(`/api/players/${id}/delete`, keeper, {games: true});
      if (r.ok) location.href = "/stats";
      return r;
    }));
  });

  // the keeper clears out every game opened from a saved record, in one action
  const imported = document.querySelector("[data-del-imported]");
  if (imported && keeper) {
    imported.classList.remove("hidden");
    imported.addEventListener("click", () => confirmIn(imported, T("Delete every imported game for good?"), T("Delete"), async () => {
      const r = await post("/api/history/imported/delete", keeper);
      if (r.ok) location.reload();
      return r;
    }));
  }
})();
