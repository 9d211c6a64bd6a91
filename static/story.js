/* The story of a game: steps through GET /api/tables/<code>/story one event at a time.
   Draws the board at the step, its words, a chart of the whole game (inline SVG, drawn
   here) and the key moments by day. Buttons, ←/→, Home/End, the slider and the chart
   all move the same step. */
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const code = document.body.dataset.code;
  // the drawing's colours come from the page's look (base.css: dark room or light room)
  const VARS = {red: "--red", blue: "--blue", redBg: "--red-bg", blueBg: "--blue-bg", gold: "--gold",
                line: "--line", ink: "--ink", dim: "--dim", dt: "--b-dt", markRed: "--mark-red",
                onMarkRed: "--on-mark-red", markBlue: "--mark-blue", redCell: "--b-red-cell", blueCell: "--b-blue-cell",
                midCell: "--b-mid-cell", redWall: "--b-red-wall", blueWall: "--b-blue-wall",
                void: "--b-void", cell: "--b-cell", card: "--b-card", edge: "--b-edge", da: "--b-da",
                onGold: "--on-gold"};
  const COL = {};
  function palette() {
    const cs = getComputedStyle(document.documentElement);
    for (const [k, v] of Object.entries(VARS)) COL[k] = cs.getPropertyValue(v).trim();
  }
  palette();
  const small = matchMedia("(max-width: 600px)");  // a phone: the board drawn tall (G below)
  const redraw = () => { if (story) { drawChart(); drawChances(); go(at); } };
  document.addEventListener("sl-theme", () => { palette(); redraw(); });
  const esc = Words.esc;
  const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
  const t = (x, y, s, o = {}) => `<text x="${x}" y="${y}" font-size="${o.size || 18}" fill="${o.fill || COL.ink}"
    text-anchor="${o.anchor || "middle"}" font-weight="${o.weight || 600}" ${o.extra || ""}>${esc(s)}</text>`;
  const PHASES = {setup: T("setting up"), intel: T("intel and tokens"), mission: T("missions"), round_end: T("end of the day"),
                  capture_check: T("capture check"), over: T("game over")};
  const SIDE = {red: T("red"), blue: T("blue")};
  // a longer word (a language other than English) squeezed to the room it has, never cut
  const squeeze = (text, size, room) => String(text).length * size * 0.58 > room ? `textLength="${room}" lengthAdjust="spacingAndGlyphs"` : "";
  let story = null, at = 0;

  function daWords(da) {
    const side = SIDE[da < 0 ? "red" : "blue"];
    if (story && Math.abs(da) > story.wall_distance) return T("on {side}'s flag", {side});
    return da === 0 ? T("at the centre") : T("{n} toward {side}", {n: Math.abs(da), side});
  }

  // --- the board at one step ----------------------------------------------------
  // A TV or a laptop draws the board in one wide picture (1000 x 320). A phone would
  // shrink that to a third, its small print to 6 px: it draws the same board in a tall
  // picture instead (440 x 480): the tracks full width, each side's missions on their own row.
  // ipLabel: x and baseline (from its row's top) of a side's "Red IP 4", above the row on a
  // phone, where its deception tokens stand too; ip: x, cell, height; dt: the word's x, the
  // first token's x, the step, the radius; card: width, step, height.
  const G = () => small.matches
    ? {w: 440, h: 480, x0: 10, span: 420, ipLabel: [10, -9], ip: [10, 38, 32], dt: [250, 300, 26, 10],
       ipY: {red: 136, blue: 206}, cardY: {red: 274, blue: 394}, cardX: {red: 10, blue: 10}, card: [100, 106, 84]}
    : {w: 1000, h: 320, x0: 20, span: 960, ipLabel: [20, 25], ip: [170, 50, 36], dt: [745, 790, 34, 13],
       ipY: {red: 114, blue: 158}, cardY: {red: 230, blue: 230}, cardX: {red: 20, blue: 516}, card: [108, 118, 84]};

  function daTrack(s, W, g) {
    const n = 2 * W + 3, x0 = g.x0, w = g.span / n, y = 32, h = 48;
    // the centre's word may reach over its neighbours when the cells are narrow (a long
    // track on a phone); the forts' names stop short of it
    const centre = Math.max(w - 4, Math.min(60, 3 * w - 8));
    let out = t(x0, 22, T("Double agent {where}", {where: daWords(s.da)}), {anchor: "start", size: 20, extra: 'data-testid="da-text"'});
    for (let p = -(W + 1); p <= W + 1; p++) {
      const x = x0 + (p + W + 1) * w, a = Math.abs(p);
      let fill = p < 0 ? COL.redCell : p > 0 ? COL.blueCell : COL.midCell;
      if (a === W) fill = p < 0 ? COL.redWall : COL.blueWall;
      if (a === W + 1) fill = COL.void;
      out += `<rect x="${x + 2}" y="${y}" width="${w - 4}" height="${h}" rx="5" fill="${fill}" stroke="${COL.line}" stroke-width="2"/>`;
      if (a === W) out += `<path d="M${x + 4} ${y + 16}h${w - 8}M${x + 4} ${y + 32}h${w - 8}" stroke="#0008" stroke-width="3"/>`;
      if (a === W + 1) out += `<path d="M${x + w * 0.38} ${y + 40}V${y + 8}l${w * 0.34} 9l-${w * 0.34} 9" fill="${p < 0 ? COL.markRed : COL.markBlue}" stroke="${COL.edge}" stroke-width="1.5"/>`;
      // the flags are drawn; on a long track the fort names stand under the walls instead
      const label = a === W && w >= 80 ? T("wall") : p === 0 ? T("centre") : "";
      if (label) out += t(x + w / 2, y + h + 18, label, {size: 15, fill: COL.dim, extra: squeeze(label, 15, a ? w - 4 : centre)});
    }
    // each fort's name from its end of the track up to the wall's word (a long name, as
    // German's "Festung von Rot", is narrowed rather than written over it)
    const wallWord = w >= 80 ? Math.min(T("wall").length * 15 * 0.58, w - 4) : 0;
    const room = (w >= 80 ? 1.5 * w - wallWord / 2 : (W + 1) * w - Math.max(0, (centre - w) / 2)) - 10;
    const red = "◀ " + T("{side}'s fort", {side: SIDE.red}), blue = T("{side}'s fort", {side: SIDE.blue}) + " ▶";
    out += t(x0, y + h + 18, red, {anchor: "start", size: 15, fill: COL.red, extra: squeeze(red, 15, room)});
    out += t(x0 + g.span, y + h + 18, blue, {anchor: "end", size: 15, fill: COL.blue, extra: squeeze(blue, 15, room)});
    const dx = x0 + (s.da + W + 1 + 0.5) * w;
    out += `<g data-testid="da" data-pos="${s.da}"><rect x="${dx - 17}" y="${y + 4}" width="34" height="40" rx="5" fill="${COL.da}" stroke="${COL.gold}" stroke-width="3"/>${t(dx, y + 30, T("DA"), {size: 16, weight: 800, fill: "#f2c14e"})}</g>`;
    return out;
  }

  function token(side, x, y, r) {
    return side === "red"
      ? `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="${r / 4}" fill="${COL.markRed}" stroke="${COL.edge}" stroke-width="2"/>${t(x, y + r * 0.4, "R", {size: r * 1.15, weight: 800, fill: COL.onMarkRed})}`
      : `<circle cx="${x}" cy="${y}" r="${r}" fill="${COL.markBlue}" stroke="${COL.edge}" stroke-width="2"/>${t(x, y + r * 0.4, "B", {size: r * 1.15, weight: 800, fill: "#06203d"})}`;
  }

  function ipTrack(s, side, g) {
    const y = g.ipY[side], [x0, w, ch] = g.ip, [dtx, dcx, dstep, dr] = g.dt, v = Math.max(0, Math.min(10, s.ip[side]));
    const ly = y + g.ipLabel[1], dy = g.ipLabel[1] < 0 ? ly - 6 : y + ch / 2;
    let out = t(g.ipLabel[0], ly, T("{side!c} IP {n}", {side: SIDE[side], n: s.ip[side]}), {anchor: "start", size: 20, weight: 800, fill: COL[side], extra: `data-testid="ip-${side}" data-value="${s.ip[side]}"`});
    for (let i = 0; i <= 10; i++) {
      out += `<rect x="${x0 + i * w}" y="${y}" width="${w - 4}" height="${ch}" rx="5" fill="${i === 10 ? COL.midCell : COL.cell}" stroke="${COL.line}" stroke-width="1.5"/>`;
      out += t(x0 + i * w + (w - 4) / 2, y + ch / 2 + 6, i, {size: 15, fill: COL.dim});
    }
    out += token(side, x0 + v * w + (w - 4) / 2, y + ch / 2, 14);
    out += t(dtx, dy + 7, T("DT"), {anchor: "start", size: 18, fill: COL.dim, extra: `data-testid="dt-${side}" data-value="${s.dt[side]}"`});
    for (let i = 0; i < s.dt[side]; i++) out += `<circle cx="${dcx + i * dstep}" cy="${dy}" r="${dr}" fill="${COL.dt}" stroke="#fff" stroke-width="2"/>`;
    if (!s.dt[side]) out += t(dcx - 8, dy + 7, T("none"), {anchor: "start", size: 16, fill: COL.dim});
    return out;
  }

  function cards(s, side, g) {
    const words = {activated: T("activated"), identified: T("retreated"), neutralised: T("neutralised")};
    const x0 = g.cardX[side], y = g.cardY[side], [w, step, h] = g.card;
    let out = t(x0, y - 13, T("{side!c}'s missions today", {side: SIDE[side]}), {anchor: "start", size: 16, fill: COL[side], weight: 700});
    const tokens = s.tokens[side] || [];
    for (let m = 1; m <= 4; m++) {
      const x = x0 + (m - 1) * step, c = s.revealed[side][m];
      if (!c) {
        out += `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="9" fill="${COL.card}" stroke="${COL.line}" stroke-width="2" stroke-dasharray="5 5"/>` + t(x + w / 2, y + 50, "?", {size: 30, fill: COL.dim});
      } else {
        const act = c.outcome === "activated", name = story.ranks[c.rank];
        const said = c.outcome ? words[c.outcome] : T("turned up");
        out += `<g data-testid="card-${side}-${m}" data-rank="${c.rank}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="9" fill="${side === "red" ? COL.redBg : COL.blueBg}" stroke="${act ? COL.gold : COL.edge}" stroke-width="${act ? 4 : 1.5}" opacity="${act || !c.outcome ? 1 : 0.7}"/>`
          // the rank over its name, the name the card's whole width ("Feldmarschall")
          + t(x + w / 2, y + 28, c.rank, {size: 26, weight: 800})
          + t(x + w / 2, y + 50, name, {size: 15, extra: squeeze(name, 15, w - 8)})
          + t(x + w / 2, y + 74, said, {size: 15, fill: act ? COL.gold : COL.dim, weight: act ? 800 : 600, extra: squeeze(said, 15, w - 8)}) + "</g>";
        if (c.deception) out += `<rect x="${x + w - 34}" y="${y - 8}" width="34" height="20" rx="4" fill="${COL.dt}" stroke="#fff"/>` + t(x + w - 17, y + 7, T("DT"), {size: 13, weight: 800, fill: "#fff"});
      }
      if (tokens.includes(m)) out += `<circle cx="${x + 10}" cy="${y + 2}" r="9" fill="#f2c14e" stroke="#000"/>` + t(x + 10, y + 7, "i", {size: 14, weight: 800, fill: "#000"});
    }
    return out;
  }

  function drawBoard(s) {
    const W = story.wall_distance, g = G(), board = $("board");
    board.setAttribute("viewBox", `0 0 ${g.w} ${g.h}`);
    board.innerHTML = daTrack(s, W, g) + ipTrack(s, "red", g) + ipTrack(s, "blue", g)
      + cards(s, "red", g) + cards(s, "blue", g);
    board.setAttribute("aria-label", T("Day {day}: red {red} IP, blue {blue} IP, double agent {where}, deception tokens red {dt_red}, blue {dt_blue}", {day: s.day, red: s.ip.red, blue: s.ip.blue, where: daWords(s.da), dt_red: s.dt.red, dt_blue: s.dt.blue}));
    const intel = s.intel ? s.intel.join(" · ") : T("not yet");
    // the score again in words in one column (a tablet's board is the wide one, smaller)
    const score = `<span class="small-only">${esc(cap(SIDE.red))} <b>${s.ip.red}</b> IP · ${esc(cap(SIDE.blue))} <b>${s.ip.blue}</b> IP</span>`
      + `<span class="small-only">${esc(T("DA"))} <b>${esc(daWords(s.da))}</b></span><span class="small-only">${esc(T("DT"))} ${esc(SIDE.red)} <b>${s.dt.red}</b> · ${esc(SIDE.blue)} <b>${s.dt.blue}</b></span>`;
    $("facts").innerHTML = `<span data-testid="day" data-day="${s.day}">${T("Day {n} of 3", {n: `<b>${s.day}</b>`})}</span><span>${esc(PHASES[s.phase] || s.phase)}</span>` + score
      + `<span>${esc(T("Intel card"))} <b>${esc(intel)}</b></span><span>${esc(T("DT supply"))} <b>${s.dt.supply}</b></span>`;
  }

  // --- the chart of the whole game ------------------------------------------------
  const CH = {x0: 78, x1: 984, ipTop: 46, ipBot: 134, daTop: 154, daBot: 240};
  const cx = n => CH.x0 + n * (CH.x1 - CH.x0) / Math.max(1, story.steps.length - 1);
  const ipY = v => CH.ipBot - Math.max(0, Math.min(10, v)) * (CH.ipBot - CH.ipTop) / 10;
  const daY = v => { const F = story.wall_distance + 1; return (CH.daTop + CH.daBot) / 2 - v * (CH.daBot - CH.daTop) / (2 * F); };
  function stepLine(vals, y) {      // a value holds until the next step changes it
    let d = `M${cx(0)} ${y(vals[0])}`;
    for (let i = 1; i < vals.length; i++) d += `H${cx(i)}V${y(vals[i])}`;
    return d;
  }
  // In one column (a phone, a tablet) the chart is as many units wide as it has pixels
  // (at least 440), not 1000 squeezed: its words keep their size on a narrow screen.
  const oneColumn = matchMedia("(max-width: 900px)");
  const chartWidth = () => oneColumn.matches
    ? Math.round(Math.max(440, Math.min(1000, $("chart").getBoundingClientRect().width))) : 1000;
  function drawChart() {
    const st = story.steps, W = story.wall_distance, width = chartWidth();
    CH.x1 = width - 16;
    $("chart").setAttribute("viewBox", `0 0 ${width} 264`);
    $("chance").setAttribute("viewBox", `0 0 ${width} 130`);
    let out = "";
    story.days.forEach((d, i) => {
      const a = cx(d.first), b = cx(d.last);
      if (i % 2 === 0) out += `<rect x="${a}" y="${CH.ipTop - 24}" width="${Math.max(0, b - a)}" height="${CH.daBot - CH.ipTop + 32}" fill="${COL.ink}" fill-opacity=".04"/>`;
      if (i) out += `<path d="M${a} ${CH.ipTop - 24}V${CH.daBot + 6}" stroke="${COL.dim}" stroke-dasharray="4 5" stroke-width="1.5"/>`;
      out += t((a + b) / 2, 34, T("Day {n}", {n: d.day}), {size: 15, fill: COL.dim, weight: 700});
    });
    for (const v of [0, 5, 10]) {
      out += `<path d="M${CH.x0} ${ipY(v)}H${CH.x1}" stroke="${COL.line}" stroke-width="1"/>` + t(CH.x0 - 8, ipY(v) + 5, v, {size: 14, anchor: "end", fill: COL.dim});
    }
    out += t(8, (CH.ipTop + CH.ipBot) / 2 + 5, "IP", {size: 15, anchor: "start", fill: COL.dim, weight: 800});
    for (const [v, label, fill] of [[W, T("wall"), COL.blue], [0, T("centre"), COL.dim], [-W, T("wall"), COL.red]]) {
      out += `<path d="M${CH.x0} ${daY(v)}H${CH.x1}" stroke="${v ? fill : COL.line}" stroke-opacity="${v ? 0.5 : 1}" stroke-width="1" ${v ? 'stroke-dasharray="6 4"' : ""}/>` + t(CH.x0 - 8, daY(v) + 5, label, {size: 13, anchor: "end", fill, extra: squeeze(label, 13, CH.x0 - 14)});
    }
    out += t(8, CH.daTop - 3, T("DA"), {size: 15, anchor: "start", fill: COL.gold, weight: 800});
    out += `<path d="${stepLine(st.map(s => s.ip.red), ipY)}" fill="none" stroke="${COL.red}" stroke-width="3"/>`;
    out += `<path d="${stepLine(st.map(s => s.ip.blue), ipY)}" fill="none" stroke="${COL.blue}" stroke-width="3" stroke-dasharray="8 4"/>`;
    out += `<path d="${stepLine(st.map(s => s.da), daY)}" fill="none" stroke="${COL.gold}" stroke-width="3"/>`;
    for (const m of story.moments) {
      const x = cx(m.step), big = m.kinds.includes("decisive") || m.kinds.includes("end");
      out += `<path d="M${x} ${CH.daBot + 6}l-6 10h12z" fill="${big ? COL.gold : COL.dim}"><title>${esc(m.text)}</title></path>`;
    }
    // a key that does not rely on colour: red solid, blue dashed
    out += `<path d="M${CH.x1 - 350} 10h26" stroke="${COL.red}" stroke-width="3"/>` + t(CH.x1 - 318, 15, T("{side} IP", {side: SIDE.red}), {size: 14, anchor: "start", fill: COL.red});
    out += `<path d="M${CH.x1 - 210} 10h26" stroke="${COL.blue}" stroke-width="3" stroke-dasharray="8 4"/>` + t(CH.x1 - 178, 15, T("{side} IP", {side: SIDE.blue}), {size: 14, anchor: "start", fill: COL.blue});
    out += `<path d="M${CH.x1 - 88} 10h26" stroke="${COL.gold}" stroke-width="3"/>` + t(CH.x1 - 56, 15, T("DA"), {size: 14, anchor: "start", fill: COL.gold});
    out += `<g id="cursor"></g>`;
    $("chart").innerHTML = out;
  }
  function drawCursor(s) {
    const x = cx(at);
    $("cursor").innerHTML = `<path d="M${x} ${CH.ipTop - 8}V${CH.daBot + 4}" stroke="${COL.ink}" stroke-width="2"/>`
      + `<rect x="${x - 7}" y="${ipY(s.ip.red) - 7}" width="14" height="14" fill="${COL.markRed}" stroke="${COL.edge}" stroke-width="2"/>`
      + `<circle cx="${x}" cy="${ipY(s.ip.blue)}" r="7" fill="${COL.markBlue}" stroke="${COL.edge}" stroke-width="2"/>`
      + `<circle cx="${x}" cy="${daY(s.da)}" r="7" fill="${COL.da}" stroke="${COL.gold}" stroke-width="3"/>`;
  }

  // --- the chance to win over the game (issue 25) and its turning points ----------
  const CC = {top: 26, bot: 116};
  const ccY = p => CC.bot - p * (CC.bot - CC.top);
  function drawChances() {
    const c = story.chances, box = $("chance"), list = $("turning");
    // (the layout is told too, for its rows: old TV browsers have no :has())
    const shown = on => { box.classList.toggle("hidden", !on); box.closest(".layout").classList.toggle("no-chance", !on); };
    if (!c) { shown(false); list.innerHTML = ""; return; }
    if (c.pending) {
      shown(false);
      list.innerHTML = `<p class="muted" data-testid="turning-pending">${esc(T("Working out each side's chance to win, step by step…"))}</p>`;
      return;
    }
    shown(true);
    const red = c.steps.map(x => x[0]), blue = c.steps.map(x => x[1]);
    const line = vals => vals.map((p, i) => `${i ? "L" : "M"}${cx(i)} ${ccY(p)}`).join("");
    let out = t(8, 12, T("Chance to win"), {size: 15, anchor: "start", fill: COL.dim, weight: 800});
    for (const p of [0, 0.5, 1]) out += `<path d="M${CH.x0} ${ccY(p)}H${CH.x1}" stroke="${COL.line}" stroke-width="1" ${p === 0.5 ? 'stroke-dasharray="6 4"' : ""}/>` + t(CH.x0 - 8, ccY(p) + 5, Words.percent(Math.round(100 * p)), {size: 13, anchor: "end", fill: COL.dim});
    out += `<path d="${line(red)}" fill="none" stroke="${COL.red}" stroke-width="3"/>`;
    out += `<path d="${line(blue)}" fill="none" stroke="${COL.blue}" stroke-width="3" stroke-dasharray="8 4"/>`;
    c.turning.forEach((m, k) => {
      const x = cx(m.step), y = ccY(red[m.step]);
      out += `<g class="turn" data-step="${m.step}"><circle cx="${x}" cy="${y}" r="11" fill="${COL.gold}" stroke="${COL.edge}" stroke-width="2"/>${t(x, y + 5, k + 1, {size: 14, weight: 800, fill: COL.onGold})}<title>${esc(m.text)}</title></g>`;
    });
    box.innerHTML = out;
    list.innerHTML = c.turning.length ? `<h2>${esc(T("Turning points"))}</h2><ol>${c.turning.map((m, k) => `<li><button type="button" data-step="${m.step}" data-testid="turning-point" data-swing="${m.swing}">
      <span class="n">${k + 1}</span><span>${esc(m.text)} <small class="swing side-${m.toward}">${esc(T("{points} points toward {side}", {points: Math.round(100 * m.swing), side: SIDE[m.toward]}))}</small></span></button></li>`).join("")}</ol>` : "";
  }
  $("chance").addEventListener("pointerdown", e => {
    if (!story) return;
    const svg = $("chance"), p = svg.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    const x = p.matrixTransform(svg.getScreenCTM().inverse()).x;
    go(Math.round((x - CH.x0) / (CH.x1 - CH.x0) * (story.steps.length - 1)));
  });

  // --- the key moments, by day ----------------------------------------------------
  function drawMoments() {
    const days = story.days.map(d => d.day);
    let out = "";
    for (const day of days) {
      const ms = story.moments.filter(m => m.day === day);
      out += `<h3>${esc(T("Day {n}", {n: day}))}</h3>`;
      out += ms.length ? `<ol>${ms.map(m => `<li><button type="button" class="${m.kinds.includes("decisive") ? "decisive" : ""}" data-step="${m.step}" data-kinds="${m.kinds.join(" ")}" data-testid="moment"><span class="n">#${m.step}</span><span>${esc(m.text)}</span></button></li>`).join("")}</ol>`
        : `<p class="none">${esc(T("Nothing decisive that day."))}</p>`;
    }
    $("moments").innerHTML = out || `<p class="none">${esc(T("No event yet."))}</p>`;
  }

  // --- moving through the game ----------------------------------------------------
  // on a tablet, a laptop or a TV the step's words have a box of their own: beside the
  // drawings the room left under the controls, elsewhere three lines. A long step (300
  // letters in French) is set smaller to fit, down to 13 px beside the drawings and on a
  // tablet, 16 on a TV
  const boxed = matchMedia("(min-width: 901px)");
  const tv = matchMedia("(min-width: 1200px) and (min-height: 901px)");
  function tell(text) {
    const p = $("told");
    p.textContent = text;
    p.style.fontSize = "";
    if (!boxed.matches) return;
    const least = tv.matches ? 16 : 13;
    for (let px = parseFloat(getComputedStyle(p).fontSize) - 1; px >= least && p.scrollHeight > p.clientHeight; px--) {
      p.style.fontSize = `${px}px`;
    }
  }
  function go(n) {
    if (!story) return;
    at = Math.max(0, Math.min(story.steps.length - 1, n));
    const s = story.steps[at];
    drawBoard(s);
    drawCursor(s);
    tell(s.text);
    $("slider").value = at;
    $("slider").setAttribute("aria-valuetext", T("step {n} of {all}, day {day}", {n: at, all: story.steps.length - 1, day: s.day}));
    $("where").textContent = T("Step {n} of {all}", {n: at, all: story.steps.length - 1});
    document.body.dataset.step = at;
    $("first").disabled = $("prev").disabled = at === 0;
    $("last").disabled = $("next").disabled = at === story.steps.length - 1;
    let current = null;
    for (const m of story.moments) if (m.step <= at) current = m.step;
    document.querySelectorAll("[data-step]").forEach(b => b.classList.toggle("on", +b.dataset.step === current));
    history.replaceState(null, "", `#step=${at}`);
  }

  document.addEventListener("keydown", e => {
    if (!story || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.id === "slider") return;          // the slider moves itself on these keys
    const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: story.steps.length - 1}[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
  document.addEventListener("click", e => {
    const b = e.target.closest("button");
    if (!b || !story) return;
    if (b.id === "first") go(0);
    else if (b.id === "prev") go(at - 1);
    else if (b.id === "next") go(at + 1);
    else if (b.id === "last") go(story.steps.length - 1);
    else if (b.dataset.step) go(+b.dataset.step);
  });
  $("slider").addEventListener("input", e => go(+e.target.value));
  // a phone turned, a window narrowed: drawn again when the drawing's shape would change
  let shape = "";
  addEventListener("resize", () => {
    const now = `${small.matches} ${chartWidth()}`;
    if (now !== shape) { shape = now; redraw(); }
    if (story) tell(story.steps[at].text);
  });
  $("chart").addEventListener("pointerdown", e => {
    if (!story) return;
    const svg = $("chart"), p = svg.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    const x = p.matrixTransform(svg.getScreenCTM().inverse()).x;
    go(Math.round((x - CH.x0) / (CH.x1 - CH.x0) * (story.steps.length - 1)));
  });

  // this screen's key of the table, if it holds one (the TV's, a seated phone's): the
  // story answers it even while this address waits after too many wrong codes (issue 50)
  function asked() {
    let key = null;
    try {
      key = localStorage.getItem("sl-host-" + code) || (JSON.parse(localStorage.getItem("sl-seat-" + code) || "null") || {}).secret;
    } catch (e) { /* none kept */ }
    return {cache: "no-store", headers: key ? {Authorization: "Bearer " + key} : {}};
  }
  async function load() {
    try {
      const r = await fetch(`/api/tables/${code}/story`, asked());
      const d = await r.json();
      if (!r.ok) { $("told").textContent = Words.said(d.error) || T("This story cannot be told."); return; }
      story = d;
    } catch (e) { $("told").textContent = T("No answer from the companion. Is it still running?"); return; }
    const win = story.winner;
    $("result").textContent = story.end || (story.over ? "" : T("The game goes on: this is its story so far."));
    $("result").dataset.winner = win || "";
    $("slider").max = story.steps.length - 1;
    drawChart();
    drawMoments();
    drawChances();
    const m = /step=(\d+)/.exec(location.hash);
    go(m ? +m[1] : 0);
    document.body.dataset.ready = "1";
    if (story.chances && story.chances.pending) setTimeout(moreChances, 2000);
  }
  // a finished game's chances are worked out once, in the background: asked again until in
  async function moreChances() {
    try {
      const r = await fetch(`/api/tables/${code}/story`, asked());
      const d = await r.json();
      if (r.ok && d.chances && !d.chances.pending) { story.chances = d.chances; drawChances(); go(at); return; }
    } catch (e) { /* tried again below */ }
    setTimeout(moreChances, 2000);
  }
  load();
})();
