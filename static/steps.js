/* The steps of the game a seat enters, drawn the same wherever it is entered (issue 23):
   on a seat's phone and on the big screen for a side that sits there. One description of
   each step: what it asks, its legal taps (view.taps, from the server) and its previews.
   Steps.panel(o) makes one entry panel with its own taps in progress ("picked"):
   o.post(path, body) sends a tap, o.redraw() draws the panel again, o.plan() (a phone
   only) the button to its private line-up. */
"use strict";
const Steps = (() => {
  const {esc, mark, rank, sideName} = SL;
  const other = s => s === "red" ? "blue" : "red";
  const rankBtn = (r, attrs = "", cls = "") => `<button type="button" class="${cls}" ${attrs}><b>${r}</b>${esc(rank(r))}</button>`;
  // a grid of ranks; one that picks several (data "pick": soldiers, the intel card's ranks)
  // says which are picked to a screen reader too, as the tokens' missions do
  const grid = (ranks, data, sel = []) => `<div class="ranks">${ranks.map(r => rankBtn(r, `data-${data}="${r}"${data === "pick" ? ` aria-pressed="${sel.includes(r)}"` : ""}`, sel.includes(r) ? "sel" : "")).join("")}</div>`;
  // the deduction aid (a table that opted in): each rank's share of the line-ups the public
  // information still allows on this mission; ranks no line-up puts there are dimmed
  // (as: the step it is drawn for. For the card turned up the same grid, its shares and
  // note held unseen and nothing dimmed: each rank stands where the guess had it)
  function aidGrid(ded, d, ranks, as = "guess") {
    if (!ded || ded.side !== d.owner || ded.mission !== d.mission) return "";
    const n = ded.lineups, here = ded.missions[String(d.mission)] || {}, spent = as !== "guess";
    if (!n) return `<div class="card aid-none" data-testid="aid-none">${esc(T("No honest line-up fits what the table has seen: some intel token on the table must be wrong."))}</div>${grid(ranks, as)}`;
    const pct = c => { const p = Math.round(100 * c / n); return p ? Words.percent(p) : "<" + Words.percent(1); };
    return `<p class="aid-note muted ${spent ? "held" : ""}">${esc(TN("Deduction aid: {n} line-up fits what the table has seen.", "Deduction aid: {n} line-ups fit what the table has seen.", n))}</p><div class="ranks aid ${spent ? "spent" : ""}">${ranks.map(r => {
      const c = here[String(r)] || 0;
      return `<button type="button" class="${c || spent ? "" : "dim"}" data-${as}="${r}" data-share="${c ? Math.round(100 * c / n) : 0}"><b>${r}</b><span class="nm">${esc(rank(r))}${c ? `<small class="pct">${esc(T("{share} of line-ups", {share: pct(c)}))}</small>` : ""}</span></button>`;
    }).join("")}</div>`;
  }

  // a reveal's two questions to the guesser, the guess and then the card turned up: the
  // one asked now, and the other held unseen in the same card, so the ranks under it stand
  // in the same place for both taps (a right guess is the same rank tapped twice)
  const guessing = (d, held = false) => `${esc(T("Guess {side}'s mission {m}.", {side: sideName(d.owner), m: d.mission}))} ${esc(d.token ? T("It carries an intel token.") : T("No intel token on it."))}${d.deception ? ` <b class="dt-played" ${held ? "" : 'data-testid="dt-played"'}>${esc(T("{side!c} laid a deception token on it.", {side: sideName(d.owner)}))}</b>` : ""}`;
  function asked(d, side, guessed) {
    const head = !d.guess_needed
      ? esc(T("{side!c}'s order broke this round: mission {m} counts as identified whatever is named. Tap the rank turned up.", {side: sideName(d.owner), m: d.mission}))
      : side === d.owner ? T("{side!c} guessed {rank} for your mission {m}. Turn it up; either phone may tap its rank.", {side: esc(sideName(d.guesser)), rank: guessed, m: d.mission})
        : T("You guessed {rank}. Tap the rank turned up on {side}'s mission {m}.", {rank: guessed, side: esc(sideName(d.owner)), m: d.mission});
    return `${head}${d.deception ? " " + esc(T("A deception token lies on it.")) : ""}`;
  }
  const twin = (shown, ...held) => held.length
    ? `<div class="card twin"><span>${shown}</span>${held.map(h => `<span class="held" aria-hidden="true">${h}</span>`).join("")}</div>`
    : `<div class="card">${shown}</div>`;
  // the card turned up's words with the longest rank's name: the room they may need
  const longest = (d, side, ranks) => asked(d, side, `<b>${esc(ranks.map(rank).reduce((a, b) => b.length > a.length ? b : a, ""))}</b>`);
  // the words a reveal's card may hold, for the guess and the card turned up alike: both
  // questions, and if the owner could still lay a deception token while the guess waits,
  // both with it (laid then, it no longer pushes the ranks down under the guesser's tap)
  function room(v, d, side, ranks) {
    const out = [guessing(d, true), longest(d, side, ranks)];
    if (!d.deception && v.state.dt[d.owner] > 0) {
      const laid = {...d, deception: true};
      out.push(guessing(laid, true), longest(laid, side, ranks));
    }
    return out;
  }

  function panel(o) {
    let picked = [];
    // (view, its taps, the side entering) → the step's question and buttons
    const draw = {
    exhaust(v, t, side) {
      const n = t.count[side];
      const ask = n > 1 ? T("Which of your soldiers did {side} draw ({n}, double damage)?", {side: sideName(other(side)), n})
        : T("Which of your soldiers did {side} draw?", {side: sideName(other(side))});
      return `<div class="card">${esc(ask)}</div>
        ${grid(t.ranks[side], "pick", picked)}
        <button type="button" class="primary big" id="do-exhaust" ${picked.length === n ? "" : "disabled"}>${esc(picked.length ? T("Record {ranks}", {ranks: SL.and(picked.map(rank))}) : n > 1 ? T("Tap the {n} soldiers above", {n}) : T("Tap the soldier above"))}</button>
        <button type="button" id="do-draw">${esc(T("Draw for me at random"))}</button>`;
    },
    intel(v, t) {
      const cards = (t.cards || []).map(c => `<button type="button" class="big card-pick" data-card="${c.join(",")}" aria-label="${esc(T("intel card {ranks}", {ranks: c.join(", ")}))}">${c.join(" · ")}</button>`).join("");
      const ask = T("Tap the four ranks on the intel card: it is recorded with the fourth ({done}/{all}).", {done: picked.length, all: t.count});
      // the cards seen before stay while a new one is tapped rank by rank: the ranks under
      // them stand still (they jumped 310-320 px up at the first rank, under the next tap)
      return cards
        ? `<div class="card">${esc(T("Which intel card is turned up? One tap records a card seen before."))}</div>
          <div class="cards" data-testid="known-cards">${cards}</div>
          <div class="card muted">${esc(T("A card not listed?"))} ${esc(ask)}</div>${grid(t.ranks, "pick", picked)}${o.plan ? o.plan() : ""}`
        : `<div class="card">${esc(ask)}</div>${grid(t.ranks, "pick", picked)}${o.plan ? o.plan() : ""}`;
    },
    tokens(v, t, side) {
      const plan = o.plan ? Lineup.tokens(v, side) : [], same = plan.length === picked.length && plan.every(m => picked.includes(m));
      return `<div class="card">${esc(T("Intel card:"))} <b>${v.state.intel.join(" · ")}</b>. ${esc(T("Tap your missions that carry an intel token."))}</div>
        <div class="row" role="group" aria-label="${esc(T("Missions with an intel token"))}">${t.missions.map(m => `<button type="button" class="big mission ${picked.includes(m) ? "sel" : ""}" data-pick="${m}" aria-pressed="${picked.includes(m)}" aria-label="${esc(T("mission {m}", {m}))}"><small>${esc(T("mission"))}</small>${m}</button>`).join("")}</div>
        ${plan.length && !same ? `<button type="button" class="quiet" id="do-plan" data-testid="use-plan">${esc(T("From my private line-up: select missions {missions}", {missions: plan.join(", ")}))}</button>` : ""}
        <button type="button" class="primary big" id="do-tokens">${esc(picked.length ? T("Tokens on {missions}", {missions: [...picked].sort().join(", ")}) : T("No intel tokens"))}</button>${o.plan ? o.plan() : ""}`;
    },
    start(v, t) {
      if (!t.spin) return `<button type="button" class="primary big" data-start="${t.starts[0]}">${esc(T("{side!c} starts day {day}", {side: sideName(t.starts[0]), day: v.state.day}))}</button>`;
      return `<button type="button" class="primary big" id="do-spin">${esc(T("Spin for the starting side"))}</button>
        <div class="row">${t.starts.map(x => `<button type="button" class="${x}" data-start="${x}">${mark(x)} ${esc(T("{side!c} starts", {side: sideName(x)}))}</button>`).join("")}</div>`;
    },
    // the owner's phone while the guess is awaited: a token may be laid, nobody waits for it
    deceive(v, t, side) {
      const d = v.draft, n = v.state.dt[side];
      return `<div class="card calm" data-testid="wait-guess"><b>${esc(T("Waiting for {side}'s guess on your mission {m}.", {side: sideName(d.guesser), m: d.mission}))}</b>
        <p class="muted">${esc(TN("Nothing to tap. You hold {n} deception token; if you want to lay it on this mission, do it before the guess.", "Nothing to tap. You hold {n} deception tokens; if you want to lay one on this mission, do it before the guess.", n))}</p></div>
        ${n ? `<button type="button" class="quiet" data-dec="ask" data-testid="deceive">${esc(T("Lay a deception token…"))}</button>` : ""}`;
    },
    guess(v, t, side) {
      const d = v.draft;      // the next step's words held in the same room, unseen
      return `${twin(guessing(d), ...room(v, d, side, t.ranks))}${aidGrid(v.deduction, d, t.ranks) || grid(t.ranks, "guess")}`;
    },
    // the card is face up for everyone: the guesser's phone taps it (the owner's may too)
    actual(v, t, side) {
      const d = v.draft, shown = asked(d, side, `<b>${esc(rank(d.guess))}</b>`);
      if (!d.guess_needed || side === d.owner) return `${twin(shown)}${grid(t.ranks, "actual")}`;
      return `${twin(shown, ...room(v, d, side, t.ranks))}${aidGrid(v.deduction, d, t.ranks, "actual") || grid(t.ranks, "actual")}`;
    },
    choice(v) {
      const d = v.draft;
      return `<div class="card">${esc(T("Your {rank} is activated. Choose:", {rank: rank(d.actual)}))}</div>` + d.choices.map(o =>
        `<button type="button" class="choice big" data-choice="${esc(o.choice)}">${esc(o.label)}<small>${esc(o.summary)}</small></button>`).join("");
    },
    check(v, t, side) {
      const down = t.missions[side];
      if (!down.length) return `<div class="card">${esc(T("All your cards are face up."))}</div><button type="button" class="primary big" id="do-check">${esc(T("Confirm the capture check"))}</button>`;
      const m = down[picked.length];
      // the ranks tapped so far stay where they were, spent: the others do not move up
      // under the next tap (one mistap here loses the game)
      if (m) return `<div class="card">${esc(T("Capture check: turn up mission {m} and tap its rank.", {m}))}</div><div class="ranks">${t.ranks[side].map(r => rankBtn(r, `data-pick="${r}" aria-pressed="${picked.includes(r)}" ${picked.includes(r) ? "disabled" : ""}`)).join("")}</div>`;
      // one mistap here loses the game: say before it is sent when the cards break the order
      const four = [1, 2, 3, 4].map(m => m in v.state.revealed[side] ? v.state.revealed[side][m] : picked[down.indexOf(m)]);
      const broken = !Lineup.check(four, null).legal;
      return `<div class="card">${esc(TN("Mission {missions}: {ranks}", "Missions {missions}: {ranks}", down.length, {missions: down.join(", "), ranks: picked.map(rank).join(", ")}))}</div>
        ${broken ? `<div class="card warn" data-testid="check-broken"><b>${esc(T("These cards are out of order:"))}</b> ${esc(T("confirming cancels your flag capture and {side} wins. Check each card before you confirm.", {side: sideName(other(side))}))}</div>` : ""}
        <button type="button" class="primary big" id="do-check">${esc(broken ? T("Confirm: out of order") : T("Confirm"))}</button><button type="button" id="do-clear">${esc(T("Start again"))}</button>`;
    },
    };

    // a tap's post on its way: its button shows it, and the step's other posts wait for its
    // answer: none goes out meanwhile (on a slow network a second tap was refused as out of
    // turn, or taken for the next step); once the table has moved on (the stream often brings
    // the next step before the answer) that step's taps count at once
    let sending = null, sendingT = null, sentAt = 0;
    function release() {
      clearTimeout(sendingT);
      if (sending) { sending.classList.remove("sent"); sending.removeAttribute("aria-busy"); }
      sending = null;
    }
    async function send(b, path, body) {
      const at = SL.view ? SL.view.version : 0;
      if (sending && at === sentAt) return {ok: false, status: 0, data: {}};
      sending = b; sentAt = at;
      b.classList.add("sent"); b.setAttribute("aria-busy", "true");
      sendingT = setTimeout(release, 8000);          // a post that never answers frees the panel
      try { return await o.post(path, body); } finally { if (sending === b) release(); }
    }
    const ev = (b, e) => send(b, "/events", {event: e});
    // a tap on one of the panel's buttons for ``side``: true when it was one of them
    async function tap(b, v, side) {
      const t = v.taps;
      if (b.dataset.pick) {
        const x = +b.dataset.pick;
        if (picked.includes(x)) picked = picked.filter(y => y !== x);
        else {
          const max = t.step === "exhaust" ? t.count[side] : t.step === "intel" ? t.count : 10;
          if (picked.length >= max) picked.shift();
          picked.push(x);
          // the intel card is recorded with its fourth rank: no extra tap (undo fixes a slip)
          if (t.step === "intel" && picked.length === t.count) { await ev(b, {type: "intel", ranks: [...picked].sort((a, c) => a - c)}); return true; }
        }
        o.redraw(); return true;
      }
      const posts = {
        card: () => ev(b, {type: "intel", ranks: b.dataset.card.split(",").map(Number)}),
        guess: () => send(b, "/draft", {step: "guess", value: +b.dataset.guess}),
        actual: () => send(b, "/draft", {step: "actual", value: +b.dataset.actual}),
        choice: () => send(b, "/draft", {step: "choice", value: b.dataset.choice}),
        start: () => ev(b, {type: "start", side: b.dataset.start}),
      };
      const key = Object.keys(posts).find(k => b.dataset[k]);
      if (key) { await posts[key](); return true; }
      const ids = {
        "do-exhaust": () => ev(b, {type: "exhaust", side, ranks: picked}),
        "do-draw": () => ev(b, {type: "exhaust", side, random: true}),
        "do-tokens": () => ev(b, {type: "tokens", side, missions: [...picked].sort()}),
        "do-spin": () => ev(b, {type: "start", random: true}),
        "do-check": () => {
          const ranks = {}; t.missions[side].forEach((m, i) => { ranks[m] = picked[i]; });
          return ev(b, {type: "check", side, ranks});
        },
      };
      if (ids[b.id]) { await ids[b.id](); return true; }
      if (b.id === "do-clear") { picked = []; o.redraw(); return true; }
      if (b.id === "do-plan") { picked = Lineup.tokens(v, side); o.redraw(); return true; }
      if (b.dataset.dec === "ask") {     // a scarce token: a second tap, in words, lays it
        const d = v.draft, n = v.state.dt[side];
        const yes = await SL.ask({id: "deceive", yes: T("Lay it"), no: T("Not now"),
          // the side named: on a screen both sides share, this one dialog serves either
          title: T("{side!c}: lay a deception token on your mission {m}?", {side: sideName(d.owner), m: d.mission}),
          text: TN("You hold {n} deception token.", "You hold {n} deception tokens.", n)});
        if (yes && SL.view && SL.view.draft && SL.view.draft.mission === d.mission && SL.view.draft.owner === d.owner)
          await send(b, "/draft", {step: "deception", value: true});
        return true;
      }
      if (b.dataset.dec) { await send(b, "/draft", {step: "deception", value: b.dataset.dec === "1"}); return true; }
      return false;
    }
    // Backspace on a keyboard: the last of the taps in progress taken back (false: none)
    function back() {
      if (!picked.length) return false;
      picked.pop(); o.redraw(); return true;
    }
    return {draw, tap, back, get picked() { return picked; }, set picked(x) { picked = x; }};
  }
  return {panel, grid, rankBtn};
})();
