/* A learning game's lessons (issue 53): the rules the table's view names as first due at
   this step (companion/table/lessons.py), each in a few words with "Got it" (put away on
   this screen) and "More" (its rule on the rules page). The big screen shows them in its
   note under the last reveal (under the board when it enters the steps itself); a phone
   shows them under its step's taps (never pushing them off the screen) while its side
   is the one to tap. live.js loads this script only once a view names a lesson: no
   page's first load carries it. */
"use strict";
const Lessons = (() => {
  const host = document.body.classList.contains("host");
  const box = document.getElementById(host ? "first-time" : "lesson");
  let said = null, asking = false;
  // put away on this screen, since the lessons last counted anew ("Teach again")
  const putKey = () => "sl-lessons-" + SL.code + (SL.view && SL.view.lessons_from ? "-" + SL.view.lessons_from : "");
  const put = () => { try { return JSON.parse(localStorage.getItem(putKey()) || "[]"); } catch (e) { return []; } };
  const mySeat = () => { try { return JSON.parse(localStorage.getItem("sl-seat-" + SL.code)).seat; } catch (e) { return null; } };

  function load() {
    if (asking) return;
    asking = true;
    document.head.appendChild(Object.assign(document.createElement("link"), {rel: "stylesheet", href: "/static/lessons.css"}));
    fetch("/lessons.json?lang=" + Words.lang).then(r => r.json()).then(d => {
      said = d;
      if (SL.view) draw(SL.view);
    }).catch(() => { asking = false; });
  }
  // the lessons this screen shows now: named by the view, not put away here; on a phone
  // only while its side taps this step (the deception token's also on the phone of the
  // side that may lay one, while the other side guesses), and not those its player saw
  // at another table; on the big screen once every seat is taken (the codes to join in
  // view until then) and the set-up's walk-through is over
  function due(v) {
    const t = v.taps || {}, seat = mySeat() || {}, side = seat.side;
    let keys = v.lessons || [];
    if (!host) {
      const acts = !(t.sides && t.sides.length) || t.sides.includes(side);
      const lays = (v.state.next || {}).owner === side;
      keys = !side ? [] : acts ? keys : lays ? keys.filter(k => k === "deception") : [];
    }
    const gone = [...put(), ...(!host && (v.lessons_seen || {})[seat.id] || [])];
    const seated = v.seats.filter(x => x.status === "active").length >= (v.teams ? 4 : 2);
    if (host && ((!seated && !v.state.events) || document.getElementById("walk"))) return [];
    return keys.filter(k => !gone.includes(k));
  }
  function draw(v) {
    if (!box) return;
    let keys = due(v);
    if (!said) { if (keys.length) load(); return; }
    keys = keys.filter(k => said.lessons[k]);
    const w = said.words;
    box.classList.toggle("hidden", !keys.length);
    if (host) document.getElementById("narration").classList.toggle("noted", !!keys.length);
    box.classList.toggle("lesson", !!keys.length);
    if (keys.length) {
      const k = keys[0], l = said.lessons[k], more = (l.rules || [])[0];
      box.dataset.lesson = k;
      box.innerHTML = `<div class="lines"><span class="lesson-new">${SL.esc(T("First time in this game:"))}</span> <b>${SL.esc(l.title)}</b> — ${SL.esc(l.text)}</div>`
        + `<div class="lesson-tools"><button type="button" data-lesson-got="${SL.esc(k)}" data-testid="lesson-got">${SL.esc(w.got)}</button>`
        + (more ? `<a href="/rules#${SL.esc(more)}" target="_blank" rel="noopener" data-testid="lesson-more">${SL.esc(w.more)} (${SL.esc(more)})</a>` : "")
        + (keys.length > 1 ? `<span class="muted">${SL.esc(w.count.replace("{n}", 1).replace("{of}", keys.length))}</span>` : "") + "</div>";
    }
    if (host && typeof Stage !== "undefined") Stage.trim();
  }
  document.addEventListener("click", e => {
    const b = e.target.closest("[data-lesson-got]");
    if (!b) return;
    localStorage.setItem(putKey(), JSON.stringify([...put(), b.dataset.lessonGot]));
    if (SL.view) draw(SL.view);
  });
  SL.onView(draw);
  return {draw};
})();
