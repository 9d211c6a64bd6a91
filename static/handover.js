/* Which screen is the table's screen: the table's key this screen holds (forgotten once
   the server no longer knows it), and what a screen without it may do (issue 50): ask to
   take the table's screen's place, or go on with the game at a new table of its own when
   the screen that entered its sides is gone. Handover.draw(v) draws the box that offers
   it (#elsewhere). */
"use strict";
const Handover = (() => {
  const $ = id => document.getElementById(id);
  const {esc} = SL;
  const {screenSeats} = Entry, {presence} = Column;
  SL.secret = localStorage.getItem("sl-host-" + SL.code);
  if (SL.secret) Keys.held(SL.code);
  // a second screen opened on the table's link has no key: its undo would only refuse
  $("undo").hidden = !SL.secret;

  // a screen without the table's key, at a game whose sides are entered on the screen
  // that opened it: if that one is gone (a flat battery, a browser that forgot its key),
  // nothing could enter those sides' steps again; this screen may go on with the game at
  // a new table of its own, every event so far replayed, the same sides on it
  // (once one has, every screen of this table says where, until anything more is entered
  // here: this table's own screen, back, may carry the game on here after all).
  // Any screen without the key may ask to be the table's screen instead (issue 50): the
  // same table goes on, seats and all, once the table's screen allows it, or the keeper
  // (the table's screen gone for good). Who is connected only says how loudly it offers.
  const AWAY_MS = 4000;
  let awaySince = 0;                   // since when the table's screen is not connected
  function draw(v) {
    // (a table this screen opened, its answer lost: a second tap here is answered with it)
    const box = $("elsewhere"), to = !goOn.tried && v.went_on;
    const keyless = !SL.secret && presence.known && !v.rematch;
    const phones = v.seats.some(x => x.status === "active" && !x.screen);
    const hostHere = presence.connected.map(String).includes("host");
    // the table's screen away for a moment (opening the new table after a rematch, a
    // reload) is not gone: the offer to take its place is loud once it has been away a while
    if (hostHere || !keyless) awaySince = 0;
    else if (!awaySince) {
      awaySince = Date.now();
      setTimeout(() => { if (SL.view) draw(SL.view); }, AWAY_MS + 50);
    }
    const gone = keyless && !hostHere && Date.now() - awaySince >= AWAY_MS;
    const asked = keyless && handAsk.asked;
    const copy = keyless && !!screenSeats(v).length && v.state.phase !== "over";
    // the table's screen still open elsewhere (a laptop, the TV to be): ask it, quietly
    const move = keyless && hostHere && phones && !copy && v.state.phase !== "over";
    const on = !!to || asked || gone || copy || move, shape = [v.version, asked, gone, copy, move, hostHere].join("|");
    const shown = !box.classList.contains("hidden");
    box.classList.toggle("hidden", !on);
    box.classList.toggle("quiet", move && !to && !asked);
    if (asked && handAsk.at !== v.version) { handAsk.at = v.version; watchAsk(); }   // let in?
    if (on && box.dataset.shape !== shape) {
      const open = !!box.querySelector("details[open]");     // opened: it stays open
      box.dataset.shape = shape;
      box.innerHTML = elsewhereBox(v, to, asked, gone, copy, move, hostHere);
      if (open && box.querySelector("details")) box.querySelector("details").open = true;
    } else if (shown === on) return;
    Stage.trim();        // the box above "Today" took (or gave back) its room
  }
  // "Go on here" opened or closed: the box's height changed under "Today"
  $("elsewhere").addEventListener("toggle", () => Stage.trim(), true);
  function elsewhereBox(v, to, asked, gone, copy, move, hostHere) {
    if (to) return `<b>${esc(T("This game goes on at table {code}, on another screen.", {code: to}))}</b>
        ${SL.secret ? `<p class="muted">${esc(T("Anything entered here carries it on at this table instead."))}</p>` : ""}
        <a class="btn primary" href="/t/${to}" data-testid="went-on">${esc(T("Go to table {code}", {code: to}))}</a>`;
    const keeper = `<p class="muted" data-testid="keeper-hint">${esc(T("Is that screen gone for good (a flat battery)? The keeper lets this screen in: open the keeper link on the computer that runs the companion (spies-lies keeper prints it)."))}</p>`;
    if (asked) return `<b data-testid="hand-asked">${esc(T("Asked: the table's screen decides."))}</b>
      <p>${esc(T("It shows the same number as this screen:"))} <b class="ask-number" data-testid="ask-number">${handKey().number}</b></p>${hostHere ? "" : keeper}`;
    const ask = primary => `<button type="button" class="${primary ? "primary" : ""}" data-hand-ask data-testid="hand-ask">${esc(T("Make this screen the table's screen"))}</button>`;
    // (the table's screen there: asked, it lets this one take its place, the same table)
    const asking = `<details class="no-phone"><summary data-testid="move-here">${esc(T("Make this screen the table's screen?"))}</summary>
      <p class="muted">${esc(T("The table's screen is asked, and lets this one take its place."))}</p>${ask(false)}</details>`;
    if (move) return asking;
    const button = `<button type="button" class="${gone ? "" : "primary"}" data-go-on data-testid="go-on">${esc(T("Go on with this game here"))}</button>`;
    return gone ? `<b data-testid="hand-gone">${esc(T("Is the screen that opened this table gone?"))}</b>
      <p class="muted">${esc(T("This screen can take its place: the table's screen allows it, or the keeper if it is gone for good."))}</p>${ask(true)}
      ${copy ? `<details class="no-phone"><summary data-testid="no-phone">${esc(T("Or go on at a new table here"))}</summary>
        <p class="muted">${esc(T("Go on at a new table here, every event so far; the phones join it with its code."))}</p>${button}</details>` : ""}`
      : `<b>${esc(T("This screen only shows this game: it is entered on the screen that opened the table."))}</b>
      <p class="muted">${esc(T("Is that screen gone? Go on here: a new table with every event so far, the same sides entered on this screen."))}</p>${button}${hostHere ? asking : ""}`;
  }
  // the key this screen would hold as the table's screen, kept for this tab (a reload
  // goes on waiting with the same ask); only its hash leaves the page, and the number
  // both screens show comes from that hash (tables.ask_number)
  function handKey() {
    const at = "sl-host-ask-" + SL.code;
    if (!handKey.kept) {
      let key = null;
      try { key = sessionStorage.getItem(at); } catch (e) { /* a private window: this page only */ }
      if (!/^[A-Za-z0-9_-]{32,128}$/.test(key || "")) key = Keys.secret();
      try { sessionStorage.setItem(at, key); } catch (e) { /* this page only */ }
      const hash = sha256(key);
      handKey.kept = {key, hash, number: String(parseInt(hash.slice(0, 8), 16) % 10000).padStart(4, "0")};
    }
    return handKey.kept;
  }
  // this screen asked to be the table's screen: until the table's screen (or the keeper)
  // answers, it looks every 2.5 s (and at each change of the table) whose its key is
  const ASKED = "sl-host-asked-" + SL.code;
  const handAsk = {asked: false, at: 0, timer: 0};
  try { handAsk.asked = sessionStorage.getItem(ASKED) === "1"; } catch (e) { /* not asked */ }
  function setAsked(on) {
    handAsk.asked = on;
    try { if (on) sessionStorage.setItem(ASKED, "1"); else sessionStorage.removeItem(ASKED); } catch (e) { /* this page only */ }
    if (SL.view) draw(SL.view);
  }
  async function askToHost(b) {
    b.disabled = true;
    const r = await SL.post("/host", {host_hash: handKey().hash});    // (no key: an ask)
    b.disabled = false;
    if (r.ok) { setAsked(true); watchAsk(); }
  }
  async function watchAsk() {
    clearTimeout(handAsk.timer);
    if (!handAsk.asked) return;
    const {key} = handKey();
    try {
      const r = await fetch(`/api/tables/${SL.code}/me`, {headers: {Authorization: "Bearer " + key}, cache: "no-store"});
      const d = r.status === 200 ? await r.json() : {};
      // let in: the page opens again as the table's screen
      if (d.role === "host") { localStorage.setItem("sl-host-" + SL.code, key); setAsked(false); location.reload(); return; }
      if (r.status === 401 || (r.status === 200 && !d.asking)) {     // refused, or no answer came
        setAsked(false);
        SL.toast(T("The table's screen did not let this screen in."));
        return;
      }
    } catch (e) { /* the live connection shows the trouble */ }
    handAsk.timer = setTimeout(watchAsk, 2500);
  }
  // SHA-256 of a key (ASCII), in hex: the hash the server keeps of a host key
  // (crypto.subtle is missing on a plain-HTTP address such as a laptop's on the LAN)
  function sha256(text) {
    const K = [], H = [], frac = x => (x - Math.floor(x)) * 4294967296 | 0;
    for (let n = 2, found = 0; found < 64; n++) {
      let prime = true;
      for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
      if (!prime) continue;
      if (found < 8) H[found] = frac(Math.sqrt(n));
      K[found++] = frac(Math.cbrt(n));
    }
    const bytes = [...text].map(c => c.charCodeAt(0) & 255), bits = bytes.length * 8;
    bytes.push(0x80);
    while (bytes.length % 64 !== 56) bytes.push(0);
    for (let i = 7; i >= 0; i--) bytes.push(i > 3 ? 0 : (bits >>> (8 * i)) & 255);
    const w = new Array(64), rot = (x, n) => x >>> n | x << (32 - n);
    for (let at = 0; at < bytes.length; at += 64) {
      for (let i = 0; i < 16; i++) w[i] = bytes[at + 4 * i] << 24 | bytes[at + 4 * i + 1] << 16 | bytes[at + 4 * i + 2] << 8 | bytes[at + 4 * i + 3];
      for (let i = 16; i < 64; i++) {
        const a = w[i - 15], b = w[i - 2];
        w[i] = (w[i - 16] + (rot(a, 7) ^ rot(a, 18) ^ a >>> 3) + w[i - 7] + (rot(b, 17) ^ rot(b, 19) ^ b >>> 10)) | 0;
      }
      let [a, b, c, d, e, f, g, h] = H;
      for (let i = 0; i < 64; i++) {
        const t1 = (h + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      [a, b, c, d, e, f, g, h].forEach((x, i) => { H[i] = (H[i] + x) | 0; });
    }
    return H.map(x => (x >>> 0).toString(16).padStart(8, "0")).join("");
  }
  // one table however often it is tapped: a retry after a lost answer gets the same one
  const goOn = {key: Keys.secret(), request: Keys.request(), tried: false};
  async function goOnHere(b) {
    const v = SL.view;
    // the keeper's screen goes on with the group's own game (the table left behind says
    // where); any other screen holds no key of the table, so its copy is an imported game
    let keeper = null;
    try { keeper = localStorage.getItem("sl-keeper"); } catch (e) { /* a private window */ }
    const auth = keeper ? {Authorization: "Bearer " + keeper} : {};
    const text = T("A new table opens here with every event so far. The table on the other screen stays as it is.");
    if (!v || !await SL.ask({id: "go-on", title: T("Go on with this game on this screen?"), yes: T("Go on here"),
      text: keeper ? text : text + " " + T("Without the table's key (the keeper's screen holds one) it opens as an imported game, and the other table does not say where the game went on.")})) return;
    b.disabled = goOn.tried = true;
    try {
      const record = await (await fetch(`/api/tables/${SL.code}/record`, {headers: auth})).json(), key = goOn.key;
      const r = await fetch("/api/tables/import", {method: "POST", headers: {"Content-Type": "application/json", ...auth}, body: JSON.stringify({
        record, ...(keeper ? {from: SL.code} : {}), teams: v.teams, deduction: "deduction" in v, first_game: v.first_game, chances: v.chances, host_secret: key,
        screen: screenSeats(v).map(x => ({side: x.side, part: x.part, name: x.name})), idempotency_key: goOn.request})});
      const d = await r.json();
      if (r.ok) { localStorage.setItem("sl-host-" + d.code, key); Result.leave("/t/" + d.code); return; }
      SL.toast(Words.said(d.error) || T("refused"));
    } catch (e) { SL.toast(T("No answer from the companion. Is it still running?")); }
    b.disabled = false;
  }

  // a key the server no longer knows (another screen is the table's screen now): this one
  // shows the board as any other, and forgets it
  let keyed = !!SL.secret;
  function keyGone() {
    if (!keyed || SL.secret) return;
    keyed = false;
    localStorage.removeItem("sl-host-" + SL.code);
    $("undo").hidden = true;
  }
  // this screen let another take its place (or the keeper did): from now on it only shows
  // the board, its stream one of a viewer (host.js draws it again)
  function handedAway() {
    SL.secret = null; SL.me = null; Column.forget();
    keyGone();
    SL.connect("viewer");
  }

  return {draw, askToHost, goOnHere, keyGone, handedAway};
})();
