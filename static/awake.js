/* The big screen stays awake while a game is in play: the Screen Wake Lock (asked for again
   when the page comes back into view), let go when the game is over. Where the browser
   has no wake lock (plain http on a LAN address) or refuses it, a polite line on the
   screen says how to keep it on. body[data-awake]: held, released, refused or hint. */
"use strict";
(() => {
  // the words on the screen, in one place for the translators
  const WORDS = () => ({
    hint: T("Keep this screen on: switch off the TV's or laptop's sleep timer for the game."),
    ok: T("OK"),
  });
  const SEEN = "sl-awake-hint", body = document.body;
  let lock = null, asking = false;
  const playing = () => !!body.dataset.phase && body.dataset.phase !== "over";

  function hint() {
    let seen = null;
    try { seen = localStorage.getItem(SEEN); } catch (e) { /* a private window */ }
    body.dataset.awake = body.dataset.awake === "refused" ? "refused" : "hint";
    if (seen || document.getElementById("awake-hint")) return;
    const box = document.createElement("div");
    box.id = "awake-hint";
    box.className = "awake-hint";
    box.setAttribute("role", "note");
    box.dataset.testid = "awake-hint";
    box.innerHTML = `<span></span><button type="button"></button>`;
    const w = WORDS();
    box.querySelector("span").textContent = w.hint;
    box.querySelector("button").textContent = w.ok;
    box.querySelector("button").addEventListener("click", () => {
      try { localStorage.setItem(SEEN, "1"); } catch (e) { /* this page only */ }
      box.remove();
    });
    const tools = document.querySelector(".host-tools");
    if (tools) tools.before(box); else body.append(box);
  }

  async function hold() {
    if (lock || asking || document.hidden) return;
    if (!navigator.wakeLock || !navigator.wakeLock.request) { hint(); return; }
    asking = true;
    try {
      const got = await navigator.wakeLock.request("screen");
      lock = got;
      body.dataset.awake = "held";
      got.addEventListener("release", () => { if (lock === got) { lock = null; body.dataset.awake = "released"; } });
    } catch (e) {
      body.dataset.awake = "refused";
      hint();
    } finally {
      asking = false;
    }
    if (!playing()) release();             // the game ended while the browser answered
  }
  function release() {
    const held = lock;
    lock = null;
    if (held) { body.dataset.awake = "released"; held.release().catch(() => {}); }
    const box = document.getElementById("awake-hint");
    if (box) box.remove();
  }
  function update() { if (playing()) hold(); else release(); }

  new MutationObserver(update).observe(body, {attributes: true, attributeFilter: ["data-phase"]});
  document.addEventListener("visibilitychange", () => { if (!document.hidden) update(); });
  update();
})();
