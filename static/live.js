/* Talking to the table: authenticated JSON posts with version and idempotency key,
   and a live connection (Server-Sent Events, falling back to polling). */
"use strict";
const SL = (() => {
  const code = document.body.dataset.code;
  let view = null, me = null, secret = null, onView = [], onPresence = [], es = null, pollT = null;
  let heard = false;         // the open stream has said who is connected (reset when it breaks)

  const key = Keys.request, newSecret = Keys.secret;
  function headers() {
    const h = {"Content-Type": "application/json"};
    if (secret) h.Authorization = "Bearer " + secret;
    return h;
  }
  // the operations of a delta (companion/live/delta.py): set, del, add (append to a list),
  // on a copy (a view is JSON: copied as JSON, as the TV browsers of 2021-2023 and iOS
  // before 15.4 can, which have no structuredClone; their screens stayed on the first view)
  function patch(v, ops) {
    const out = JSON.parse(JSON.stringify(v));
    for (const [kind, path, value] of ops) {
      if (!path.length) return value;          // (parsed from this message: no one else's)
      let parent = out;
      for (const k of path.slice(0, -1)) parent = parent[k];
      const last = path[path.length - 1];
      if (kind === "set") parent[last] = value;
      else if (kind === "del") delete parent[last];
      else parent[last].push(...value);
    }
    return out;
  }
  // a learning game's lessons: their script loaded once a view names one, on the pages
  // that show them (static/lessons.js)
  let lessons = false;
  function lessonsDue(v) {
    if (lessons || !(v.lessons || []).length || !document.querySelector("#first-time, #lesson")) return;
    lessons = true;
    document.head.appendChild(Object.assign(document.createElement("script"), {src: "/static/lessons.js"}));
  }
  function setView(v) {
    if (!v || (view && v.version < view.version)) return;
    view = v; onView.forEach(f => f(v));
    lessonsDue(v);
    if (chanceAsked && v.chances && chanceBehind()) chancePoll();
  }
  // the companion upgraded while this page was open (a restart, the stream back): its
  // scripts are the old version's, so it loads again (static/screen.js, assets.py), once
  // for each new version (two servers of two versions behind one address: no loop)
  const assets = (document.querySelector('meta[name="sl-assets"]') || {}).content;
  function upgraded(now) {
    if (!now || !assets || now === assets) return;
    try {
      if (sessionStorage.getItem("sl-assets-reload") === now) return;
      sessionStorage.setItem("sl-assets-reload", now);
    } catch (e) { return; }      // nowhere to note it: never risk a loop
    location.reload();
  }
  async function get(path) {
    const r = await fetch(`/api/tables/${code}${path}`, {headers: headers(), cache: "no-store"});
    upgraded(r.headers.get("X-Assets"));
    return {status: r.status, data: await r.json()};
  }
  async function post(path, body) {
    // the answer brings what changed since this view (a delta), not the whole view
    // with the live stream open the answer is only the new version (the stream brings
    // the change); without it, what changed since this view (a delta)
    const answer = es && es.readyState === 1 ? "none" : "delta";
    const payload = JSON.stringify({version: view ? view.version : 0, idempotency_key: key(), answer, ...body});
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetch(`/api/tables/${code}${path}`, {method: "POST", headers: headers(), body: payload});
        const data = await r.json();
        // the server lost its database connection (PostgreSQL restarted): the same key again
        if (r.status === 503 && data.code === "database_unavailable" && attempt < 3) throw new Error("retry");
        if (data.view) setView(data.view);
        else if (data.delta) {
          if (view && view.version === data.delta.from) setView(patch(view, data.delta.ops));
          else if (!view || view.version < data.delta.to) refresh();
        } else if (data.version && (!view || view.version < data.version)) {
          // the stream brings it; should it have dropped meanwhile, look once
          setTimeout(() => { if (!view || view.version < data.version) refresh(); }, 1500);
        }
        if (!r.ok) toast(Words.said(data.error) || T("refused"));
        return {ok: r.ok, status: r.status, data};
      } catch (e) {          // the same key again: never applied twice
        if (attempt >= 3) { toast(T("No connection to the table. Check the Wi-Fi.")); return {ok: false, status: 0, data: {}}; }
        await new Promise(res => setTimeout(res, 600 * (attempt + 1)));
      }
    }
  }
  async function refresh() {
    try {
      const r = await get(view ? `/state?since=${view.version}` : "/state");
      if (r.status === 401 && secret) { secret = null; me = null; return refresh(); }
      // no view yet and none given (a page drawn for an address that waits after too many
      // wrong codes, with no key of this table): the reason stays on the screen
      if (!view && !r.data.view && r.status === 429 && r.data.error) toast(Words.said(r.data.error));
      if (r.data.view) setView(r.data.view);
      if (r.data.me) me = r.data.me;
      // who is connected, unless the open stream has said it: its word is the newer one (an
      // answer made before a screen came back, arriving after the stream said it had, put
      // that screen back to "gone" until the next change of who is there)
      if (r.data.connected && !heard) onPresence.forEach(f => f(r.data.connected, r.data.watching || 0));
      link(true);
      return r;
    } catch (e) { link(false); return null; }
  }
  // the server out of reach (Wi-Fi gone, laptop asleep): after 3 s a clear line says so,
  // and goes when the table answers again (the stream and the polling retry by themselves)
  let downT = null;
  function link(up) {
    let b = document.getElementById("link-down");
    if (up) {
      clearTimeout(downT); downT = null;
      if (b) b.hidden = true;
      document.body.dataset.link = "up";
      return;
    }
    if (downT) return;
    downT = setTimeout(() => {
      if (!b) {
        b = document.createElement("div"); b.id = "link-down"; b.className = "link-down";
        b.setAttribute("role", "status"); b.dataset.testid = "link-down";
        b.innerHTML = `<b>${esc(T("Reconnecting…"))}</b> ${esc(T("The server cannot be reached; this screen tries again by itself."))}`;
        document.body.appendChild(b);
      }
      b.hidden = false;
      document.body.dataset.link = "down";
    }, 3000);
  }
  function poll() { clearTimeout(pollT); pollT = setTimeout(async () => { await refresh(); poll(); }, 2000); }
  // a watcher counts as one device (a key kept on this phone), however many tabs it opens
  function device() {
    let d = null;
    try { d = localStorage.getItem("sl-device"); } catch (e) { /* a private window */ }
    if (!d || !/^[A-Za-z0-9_-]{8,64}$/.test(d)) {
      d = Keys.request();
      try { localStorage.setItem("sl-device", d); } catch (e) { /* this page only */ }
    }
    return d;
  }
  async function connect(who) {
    if (es) es.close();
    heard = false;           // (the next stream says who is connected first thing)
    if (!window.EventSource) { poll(); return; }
    who = who || "viewer";
    let extra = "";
    if (who === "watch") extra = `&device=${device()}`;
    else if (who !== "viewer" && secret) {
      // a seat (or the host) counts as connected only with the proof its key earns
      if (!me || !me.proof || (me.role === "seat" && String(me.id) !== String(who))) {
        const r = await get("/me").catch(() => null);
        if (r && r.status === 200) me = r.data;
      }
      if (me && me.proof) extra = `&proof=${me.proof}`;
    }
    if (es) es.close();
    es = new EventSource(`/api/tables/${code}/stream?since=${view ? view.version : 0}&seat=${who}${extra}`);
    es.addEventListener("state", e => { clearTimeout(pollT); setView(JSON.parse(e.data)); });
    // what changed since the view this screen shows (issue 15): applied to a copy of it;
    // a screen that is behind some other way loads the whole view
    es.addEventListener("delta", e => {
      clearTimeout(pollT);
      const d = JSON.parse(e.data);
      if (view && view.version === d.from) setView(patch(view, d.ops));
      else if (!view || view.version < d.to) refresh();
    });
    es.addEventListener("presence", e => { heard = true; const d = JSON.parse(e.data); onPresence.forEach(f => f(d.connected, d.watching || 0)); });
    es.onopen = () => { clearTimeout(pollT); link(true); refresh(); };
    es.onerror = () => { heard = false; poll(); };  // the browser retries the stream; poll meanwhile
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  window.addEventListener("online", () => refresh());
  let toastT;
  function toast(msg, info) {
    let t = document.getElementById("toast");
    if (!t) {        // said to a screen reader too, inside the page's main landmark
      t = document.createElement("div"); t.id = "toast"; t.setAttribute("role", "status");
      (document.querySelector("main") || document.body).appendChild(t);
    }
    t.className = "toast" + (info ? " info" : ""); t.textContent = msg; t.hidden = false;
    clearTimeout(toastT); toastT = setTimeout(() => { t.hidden = true; }, 4500);
  }
  const ask = Ask;      // every confirmation: static/ask.js
  // a rank's name on one line in its button: a long one (Feldmarschall on a 360 px phone)
  // a little smaller, and wrapped only if even 13 px is too wide; fitted again when the
  // screen turns (its buttons' widths change: a name fitted sideways ran past its button
  // upright, and one fitted upright past a narrower one sideways)
  function fitNames(root) {
    for (const b of root.querySelectorAll(".ranks button")) {
      b.style.fontSize = ""; b.classList.remove("wrap");
      let size = parseFloat(getComputedStyle(b).fontSize);
      while (b.scrollWidth > b.clientWidth + 1 && size > 13) { size -= 1; b.style.fontSize = size + "px"; }
      if (b.scrollWidth > b.clientWidth + 1) b.classList.add("wrap");
    }
  }
  let refit = 0;
  addEventListener("resize", () => {
    cancelAnimationFrame(refit); refit = requestAnimationFrame(() => fitNames(document));
  });

  // what became of a card turned up, in the board's words; a side's cards of the day by mission
  const OUTCOME = {activated: T("activated"), identified: T("retreated"), neutralised: T("neutralised")};
  const outcomeWord = oc => OUTCOME[oc] || "";
  function todays(state, side) {
    const out = {};
    for (const r of state.reveals) if (r.day === state.day && r.owner === side) out[r.mission] = r;
    return out;
  }
  const esc = Words.esc;
  const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
  const mark = side => `<span class="mark ${side}" aria-hidden="true">${side === "red" ? "R" : "B"}</span>`;
  // the words come from the server (view.words): a rank's name, by its number
  const rank = r => view ? view.words.ranks[r] : String(r);
  // a side's name in the page's language; a list "a, b and c"
  const SIDES = {red: T("red"), blue: T("blue")};
  const sideName = s => SIDES[s] || s;
  const and = xs => xs.length < 2 ? xs.join("") : T("{first} and {last}", {first: xs.slice(0, -1).join(", "), last: xs[xs.length - 1]});
  // the chance to win (issues 25, 52), for a table that opted in: worked out by the server
  // off the request path. Asked for as soon as a view comes that the figure is not of (a
  // public state seen before is answered at once), then every 250 ms until it comes (it
  // waited up to 2 s for its turn, and the bar stayed dimmed all that time)
  let chance = null, chanceAsked = false, chanceT = null, chanceBusy = false;
  const onChance = [];
  const chanceBehind = () => !chance || !view || chance.version !== view.version;
  async function chancePoll() {
    clearTimeout(chanceT);
    if (chanceBusy) return;            // the one under way asks again if need be
    const v = view;
    if (v && v.chances && !document.hidden && chanceBehind()) {
      chanceBusy = true;
      try {
        const r = await get("/chances"), got = r.status === 200 && r.data.live;
        if (got && (!chance || got.version !== chance.version || got.state !== chance.state)) {
          chance = got;
          onChance.forEach(f => f(chance));
        }
      } catch (e) { /* the live connection shows the trouble */ }
      chanceBusy = false;
    }
    chanceT = setTimeout(chancePoll, chanceBehind() ? 250 : 2000);
  }
  function watchChance(f) {
    onChance.push(f);
    if (!chanceAsked) { chanceAsked = true; chancePoll(); }
  }
  return {
    code, key, newSecret, get, post, refresh, connect, toast, ask, fitNames, outcomeWord, todays, rank, esc, cap, mark, sideName, and,
    watchChance, get chance() { return chance; },
    get view() { return view; }, get streaming() { return !!es && es.readyState === 1; }, get me() { return me; }, set me(m) { me = m; },
    get secret() { return secret; }, set secret(s) { secret = s; },
    // a view that came before the page's script listened is drawn now (it stayed blank)
    onView: f => { onView.push(f); if (view) f(view); }, onPresence: f => onPresence.push(f),
  };
})();
