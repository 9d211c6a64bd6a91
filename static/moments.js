/* Moments on the big screen: a short overlay over the whole screen when something big
   just happened, seen live (never for the state the page opened with): a flag captured,
   an infiltration, the double agent moving, who starts, a day's recap; and the beep the
   host may switch on for each. Moments.seen(v, quiet) is told each new view. */
"use strict";
const Moments = (() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, mark, sideName} = SL;
  const capSide = x => cap(sideName(x));

  const SOUND_KEY = "sl-host-sound";
  let soundOn = localStorage.getItem(SOUND_KEY) === "on", audio = null;
  function soundButton() {
    const b = $("sound");
    if (!b) return;
    b.textContent = soundOn ? T("Sound on") : T("Sound off");
    b.setAttribute("aria-pressed", String(soundOn));
    b.dataset.on = soundOn ? "1" : "0";
  }
  function beep(kind) {
    if (!soundOn) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const notes = {infiltration: [523, 659, 784], flag: [784, 659, 523, 784], da: [440, 554],
                     start: [392, 523], "day-end": [523, 392]}[kind] || [440];
      notes.forEach((f, i) => {
        const o = audio.createOscillator(), g = audio.createGain(), at = audio.currentTime + i * 0.16;
        o.type = "triangle"; o.frequency.value = f;
        g.gain.setValueAtTime(0.0001, at);
        g.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
        g.gain.exponentialRampToValueAtTime(0.0001, at + 0.15);
        o.connect(g).connect(audio.destination);
        o.start(at); o.stop(at + 0.16);
      });
    } catch (e) { /* no sound on this screen: the overlay says it all */ }
  }

  const MOMENT_MS = 3000;
  let queue = [], showing = null, timer = null, last = null;
  const sideWord = x => `<span class="side-${x}">${mark(x)} ${esc(capSide(x))}</span>`;
  // a moment's title with a side in it: the words escaped, the side's mark kept
  const HOLE = "\u0000", withSide = (text, x) => esc(text).replace(HOLE, sideWord(x));
  // a number kept on the line of the word before it ("day 1", "Tag 1", "jour 1")
  const keepNumber = text => text.replace(/ (\d+)/g, "\u00a0$1");

  // what the day's reveals did, per side (the recap at the end of a day)
  function recap(s, day) {
    const out = {ip: {red: 0, blue: 0}, da: {red: 0, blue: 0}, identified: {red: 0, blue: 0}};
    for (const r of s.reveals) {
      if (r.day !== day) continue;
      if (r.outcome === "identified") out.identified[r.guesser] += 1;     // the guesser's doing
      for (const e of r.effects) {
        if (e.kind === "ip" && e.amount > 0) out.ip[e.side] += e.amount;
        if (e.kind === "da") out.da[e.side] += e.steps;
      }
    }
    return out;
  }

  function momentsBetween(a, b) {
    const out = [], sa = a.state, sb = b.state;
    if (sb.reveals.length > sa.reveals.length) {
      for (const r of sb.reveals.slice(sa.reveals.length)) {
        const fx = r.effects || [];
        const flag = fx.find(e => e.kind === "flag"), inf = fx.find(e => e.kind === "infiltrate");
        const da = fx.filter(e => e.kind === "da" && e.steps > 0);
        // an infiltration that took the flag is told in the flag's own words: shown after
        // it, "Blue infiltrates! 10 IP reached." was the last word on the game (issue 52)
        if (flag) out.push({kind: "flag", side: flag.side, title: withSide(T("{side} captures the flag!", {side: HOLE}), flag.side),
                            sub: esc(inf && inf.side === flag.side ? T("10 IP reached: the double agent reached the enemy fort.") : T("The double agent reached the enemy fort."))});
        if (inf && !(flag && flag.side === inf.side)) out.push({kind: "infiltration", side: inf.side, title: withSide(T("{side} infiltrates!", {side: HOLE}), inf.side),
                           sub: esc(inf.kept ? T("10 IP reached (the Colonel keeps the rest).") : T("10 IP reached."))});
        if (da.length && !flag) {
          const e = da[da.length - 1];
          out.push({kind: "da", side: e.side, title: esc(T("The double agent moves")),
                    sub: esc(TN("{n} step for {side!c}: now {where}.", "{n} steps for {side!c}: now {where}.", e.steps, {side: sideName(e.side), where: b.words.da}))});
        }
      }
    }
    if (sb.day === 1 && sa.phase === "intel" && sb.phase === "mission" && sb.starter)
      out.push({kind: "start", side: sb.starter, title: withSide(keepNumber(T("{side} starts day {day}", {side: HOLE, day: 1})), sb.starter),
                sub: esc(T("{side!c} guesses first.", {side: sideName(sb.starter)}))});
    const dayOver = sa.phase === "mission" && (sb.phase === "round_end"
      || (sb.phase === "over" && sb.reveals.filter(r => r.day === sa.day).length >= 8));
    if (dayOver) {
      const day = sa.day, rc = recap(sb, day);
      const row = (key, label, f) => `<tr><td>${esc(label)}</td><td data-testid="recap-${key}-red">${f("red")}</td><td data-testid="recap-${key}-blue">${f("blue")}</td></tr>`;
      out.push({kind: "day-end", day, recap: rc, title: esc(keepNumber(T("End of day {day}", {day}))),
        table: `<table class="recap"><tr><th></th><th>${sideWord("red")}</th><th>${sideWord("blue")}</th></tr>
          ${row("ip", T("IP gained"), x => rc.ip[x])}
          ${row("da", T("double-agent steps won"), x => rc.da[x])}
          ${row("identified", T("enemy cards identified"), x => rc.identified[x])}</table>
          <div class="moment-sub">${esc(T("Double agent now {where}", {where: b.words.da}))}</div>`});
    }
    return out;
  }

  // a moment that waited this long behind others is news no longer: the board shows it
  // (a flag capture and a day's recap are always shown)
  const STALE_MS = 6000;
  const passing = m => m.kind === "start" || m.kind === "da";
  function showNext() {
    clearTimeout(timer);
    const box = $("moment"), now = Date.now();
    queue = queue.filter(m => !passing(m) && m.kind !== "infiltration" || now - m.at < STALE_MS);
    showing = queue.shift() || null;
    if (!showing) { box.classList.add("hidden"); box.classList.remove("leaving"); box.innerHTML = ""; delete box.dataset.kind; return; }
    const m = showing;
    box.dataset.kind = m.kind;
    delete box.dataset.day; delete box.dataset.recap;
    if (m.day) box.dataset.day = m.day;
    if (m.recap) box.dataset.recap = JSON.stringify(m.recap);
    box.innerHTML = `<div class="moment-card moment-${m.kind}" data-testid="moment-card">
      <div class="moment-title">${m.title}</div>${m.sub ? `<div class="moment-sub">${m.sub}</div>` : ""}${m.table || ""}
      <div class="moment-skip">${esc(T("tap or press any key to skip"))}</div></div>`;
    box.classList.remove("hidden");
    // restart the animation for each moment
    box.classList.remove("play"); void box.offsetWidth; box.classList.add("play");
    beep(m.kind);
    box.classList.remove("leaving");
    const ms = (m.kind === "day-end" ? MOMENT_MS + 500 : MOMENT_MS) / (queue.length ? 2 : 1);
    timer = setTimeout(() => { box.classList.add("leaving"); timer = setTimeout(showNext, 300); }, ms - 300);
  }
  function skip() {
    if (!showing) return false;
    queue = [];
    showNext();
    return true;
  }
  function toggleSound() {
    soundOn = !soundOn;
    localStorage.setItem(SOUND_KEY, soundOn ? "on" : "off");
    soundButton();
    if (soundOn) beep("start");
  }
  // each new view of the table (quiet: the host must tap first, a phone asking for a seat
  // or an undo waiting for this screen, which outranks any moment)
  function seen(v, quiet) {
    if (quiet || v.state.phase === "over") { skip(); last = v; return; }
    if (last && v.state && last.state) {
      const fresh = momentsBetween(last, v);
      // a newer double-agent move replaces one still waiting its turn
      if (fresh.some(m => m.kind === "da")) queue = queue.filter(m => m.kind !== "da");
      fresh.forEach(m => { m.at = Date.now(); });
      if (fresh.length) {
        queue.push(...fresh);
        // the table has moved on: who starts, or the last step of the double agent, gives way
        if (!showing || passing(showing)) showNext();
      }
    }
    last = v;
  }
  // (on a screen a side enters at, a key or a tap goes on to the step: the moment gives way)
  addEventListener("keydown", e => { if (skip() && !document.body.classList.contains("entry")) e.preventDefault(); }, true);
  // the overlay covers the whole screen: a tap anywhere lands on it (and on nothing below,
  // but for the entry panel of a side that enters here: host.css lets taps through)
  $("moment").addEventListener("click", () => skip());
  document.addEventListener("pointerdown", e => { if (e.target.closest("#entry")) skip(); }, true);
  soundButton();
  return {seen, skip, toggleSound};
})();
