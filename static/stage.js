/* The big screen fitted to the screen it is on: one 1920x1080 stage scaled to any TV,
   laptop or tablet (fit), the side column's words given up to keep its tools in view
   (trim), the step's heading fitted to its two lines (heading), and the entry panel's
   keys' hint shown only where it leaves room (roomy); a change drawn first and measured
   after (batch). Measuring only: the page's other scripts draw. */
"use strict";
const Stage = (() => {
  const $ = id => document.getElementById(id);

  // any TV or laptop: the screen is laid out once at 1920x1080 (body.staged) and scaled to
  // fit, so 720p, 768p, 1440p and 4K show all of it, nothing clipped, text growing with the
  // screen (a phone-width window stacks instead: host.css, body:not(.staged))
  function fit() {
    const root = document.documentElement.style, body = document.body;
    // the screen's size: the layout viewport's, not innerWidth (an Android tablet's
    // browser, in mobile mode, widens innerWidth to a page wider than the screen: the
    // stage scaled to it was 1.33x too large, its panel off the right edge; issue 52)
    const html = document.documentElement, innerWidth = html.clientWidth || window.innerWidth,
      innerHeight = html.clientHeight || window.innerHeight;
    // a table entered here (issue 23): a tablet too gets the stage, shaped to its screen
    const entry = body.classList.contains("entry");
    // (a TV whose browser counts its 1080 lines as 540, twice as big: staged too, or its
    // codes to join were below the fold, a remote's scroll away)
    const wide = innerWidth >= 900 && innerHeight >= 500 && innerWidth > innerHeight;
    const staged = wide || (entry ? Math.min(innerWidth, innerHeight) >= 600 : innerWidth > 1000);
    body.classList.toggle("staged", staged);
    document.documentElement.classList.toggle("host-staged", staged);     // (no :has() in old TVs)
    if (!staged) { ["--s", "--x", "--y", "--w", "--h"].forEach(k => root.removeProperty(k)); body.classList.remove("portrait", "tv"); document.dispatchEvent(new Event("sl-stage")); return; }
    // the stage is as wide as the screen's shape, 1440 to 1920 for 1080 high: a 16:10
    // laptop, a 4:3 projector or a 5:4 monitor is filled, not banded above and below
    let W = 1920, H = 1080;
    const r = innerWidth / innerHeight;
    if (entry && r < 1) { W = 1080; H = Math.round(Math.min(1920, Math.max(1350, 1080 / r))); }
    else W = Math.round(Math.min(1920, Math.max(1440, 1080 * r)));
    body.classList.toggle("portrait", W < H);
    // a 16:9 screen: a TV or a laptop, read from across the room (host.css sizes the
    // step's panel's words for 3 m there; a tablet's 4:3 or 16:10 stage keeps its own)
    body.classList.toggle("tv", W >= 1800 && W > H);
    const s = Math.min(innerWidth / W, innerHeight / H);
    root.setProperty("--w", W + "px");
    root.setProperty("--h", H + "px");
    root.setProperty("--s", s);
    root.setProperty("--x", (innerWidth - W * s) / 2 + "px");
    root.setProperty("--y", (innerHeight - H * s) / 2 + "px");
    trim();
    heading();
    roomy();
    document.dispatchEvent(new Event("sl-stage"));     // (board.js: its labels' type)
  }
  // the heading whole (issue 52: a step's was cut with "…" on a tablet, in German, French
  // and Dutch; on a 4:3 screen's stage the table's own took three lines, the first above
  // the screen's edge): in two lines, a pixel smaller at a time down to 22 of the stage
  // where a side enters (its words beside the panel's), 24 elsewhere (a TV's least); the
  // longest in three lines of the header's 92, never cut
  function heading() {
    const h = $("next"), body = document.body;
    h.style.fontSize = "";
    h.style.webkitLineClamp = "";
    if (!body.classList.contains("staged")) return;
    const entry = body.classList.contains("entry"), least = entry ? 22 : 24;
    const over = lines => entry ? h.scrollHeight > h.clientHeight + 1
      : h.scrollHeight > lines * parseFloat(getComputedStyle(h).lineHeight) + 2;
    let size = parseFloat(getComputedStyle(h).fontSize);
    const smaller = (lines, to) => {
      while (over(lines) && size > to) { size -= 1; h.style.fontSize = size + "px"; } };
    smaller(2, least);
    if (!over(2)) return;
    size = 25;
    h.style.fontSize = size + "px";
    if (entry) h.style.webkitLineClamp = "3";
    smaller(3, 20);
  }
  // the side column keeps its tools on screen: a first game's note, then the last reveal,
  // give up their last lines when even an empty "Today" leaves no room for all of them
  // (a long German reveal, a note and a team's four seats on a 4:3 screen pushed the tools
  // off it); then the day's history shows the newest reveals that fit whole
  function trim() {
    const list = $("history");
    if (!list) return;
    const side = list.parentElement;
    // (the note's lines sit in a box of their own, inside its padding: cut there, a cut
    // line does not show in the padding)
    const texts = [$("first-time"), $("narration")].map(box => [box, box.querySelector(".lines") || box]);
    for (const [, text] of texts) {
      text.classList.remove("clamped");
      text.style.webkitLineClamp = "";
    }
    if (!document.body.classList.contains("entry")) {      // (there they sit under the board)
      for (const [box, text] of texts) {
        const over = side.scrollHeight - side.clientHeight;
        if (over < 1 || box.classList.contains("hidden")) continue;
        const line = parseFloat(getComputedStyle(text).lineHeight) || 32;
        text.classList.add("clamped");
        text.style.webkitLineClamp = String(Math.max(2, Math.floor((text.clientHeight - over) / line)));
      }
    }
    $("today").hidden = false;
    [...list.children].forEach(li => { li.hidden = false; });
    const newest = list.querySelector("li:first-child > span");
    if (newest) newest.style.webkitLineClamp = "none";    // whole where it fits
    // the newest stays, whole before an older one (an R60's last words were cut to four
    // lines while the day's first reveal stood whole under it)
    for (const li of [...list.children].slice(1).reverse()) {
      if (list.scrollHeight <= list.clientHeight + 1) break;
      li.hidden = true;
    }
    // the room left is shorter than even its lines (a 4:3 screen's narrower column): as
    // many whole lines as fit, none cut through
    if (newest && list.scrollHeight > list.clientHeight + 1) {
      const line = parseFloat(getComputedStyle(newest).lineHeight) || 32;
      const lines = Math.floor((list.clientHeight - 8) / line);
      newest.style.webkitLineClamp = String(Math.max(1, lines));
      newest.parentElement.hidden = lines < 1;
      // no line of it fits (a first game's note and a long reveal took the column): no
      // "Today" over an empty list either
      $("today").hidden = lines < 1;
    }
  }
  // the keys' hint only where the step leaves room for it: never a button pushed away
  function roomy() {
    const box = $("entry");
    box.classList.remove("full");
    box.classList.toggle("full", box.scrollHeight > box.clientHeight + 1);
  }
  // a change is drawn whole, then measured once (batch): each part measured as it drew
  // (the board's words, the heading, the column, the panel) made the browser lay the page
  // out again each time, ~6 layouts a change and most of a TV's 55 ms of work for it
  // (issue 51); a measure asked for while a change is drawn waits for its end, once
  let drawing = false;
  const due = [];
  const later = fn => { if (!drawing) fn(); else if (!due.includes(fn)) due.push(fn); };
  function batch(draw) {
    if (drawing) { draw(); return; }        // (inside another: measured at its end)
    drawing = true;
    try { draw(); } finally { drawing = false; }
    while (due.length) due.shift()();
  }
  // a part's markup or words put only when they changed: a part made anew is laid out,
  // painted and rasterized anew, and most changes leave most parts as they were
  const shown = new WeakMap();
  function put(el, html) {            // (true: put anew)
    if (shown.get(el) === html) return false;
    el.innerHTML = html;
    shown.set(el, html);
    return true;
  }
  const text = (el, words) => { if (el.textContent !== words) el.textContent = words; };
  addEventListener("resize", fit);
  fit();
  return {fit, batch, later, put, text, trim: () => later(trim), roomy: () => later(roomy),
          heading: () => later(heading)};
})();
