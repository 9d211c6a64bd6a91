/* A group (issue 54). On a group's link page (/g#group=…, a keeper link adds &key=…) the
   secret in the fragment, which no request line or Referer carries, is traded for the
   group's cookie; the page then goes to the first page (the keeper's, with the key in
   its fragment). On the first page: the groups this browser has opened, one tap to
   switch, and "Start a group", which shows the group's two links once. */
"use strict";
(() => {
  const KEPT = "sl-groups", esc = Words.esc;
  const known = () => { try { return JSON.parse(localStorage.getItem(KEPT) || "[]"); } catch (e) { return []; } };
  function keep(name, link) {            // the newest first, each link once, 20 at most
    const list = [{name, link}, ...known().filter(g => g.link !== link)].slice(0, 20);
    localStorage.setItem(KEPT, JSON.stringify(list));
  }
  async function post(url, body) {
    const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    return [r, await r.json().catch(() => ({}))];
  }

  const status = document.getElementById("group-status");
  if (status) {                          // the link's page
    const said = new URLSearchParams(location.hash.slice(1));
    const link = said.get("group") || "", key = said.get("key");
    history.replaceState(null, "", location.pathname);
    (async () => {
      try {
        const [r, d] = await post("/api/group/enter", {link});
        if (!r.ok) { status.textContent = Words.said(d.error) || T("Refused."); return; }
        if (!d.default) keep(d.name, link);
        location.replace(key ? "/keeper#key=" + encodeURIComponent(key) : "/");
      } catch (e) {
        status.textContent = T("No answer from the companion. Is it still running?");
      }
    })();
    return;
  }

  const mine = document.getElementById("my-groups"), form = document.getElementById("new-group");
  if (!form) return;
  const problem = document.getElementById("group-problem");
  const list = known();
  if (list.length) {                     // each opens its link again: this browser moves there
    mine.innerHTML = `<li class="muted">${esc(T("Groups this screen has opened:"))}</li>` + list.map(g =>
      `<li><a class="btn" href="/g#group=${encodeURIComponent(g.link)}" data-testid="my-group">${esc(g.name)}</a></li>`).join("");
    mine.hidden = false;
  }
  form.addEventListener("submit", async e => {
    e.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true; problem.textContent = "";
    try {
      const [r, d] = await post("/api/groups", {name: document.getElementById("group-name").value});
      if (!r.ok) { problem.textContent = Words.said(d.error) || T("Refused."); return; }
      keep(d.name, new URLSearchParams(new URL(d.link).hash.slice(1)).get("group"));
      document.getElementById("group-link").value = d.link;
      document.getElementById("group-keeper").value = d.keeper;
      form.hidden = true;
      document.getElementById("group-made").hidden = false;
    } catch (err) {
      problem.textContent = T("No answer from the companion. Is it still running?");
    } finally {
      button.disabled = false;
    }
  });
  document.getElementById("group-made").addEventListener("click", async e => {
    const b = e.target.closest("[data-copy]");
    if (!b) return;
    const field = document.getElementById(b.dataset.copy);
    field.select();
    try { await navigator.clipboard.writeText(field.value); } catch (err) { document.execCommand("copy"); }
    b.textContent = T("Copied");
  });
})();
