/* The board on the big screen, drawn in SVG from the table's view: the double agent's
   track and the chance bar, both sides' IP tracks, each side's missions of the day (its
   cards, tokens and the guess in progress), what each side has exhausted and its
   deception tokens, and the intel card. Board.draw(v) draws it into #board;
   Board.palette() reads the page's look again when it changes (base.css). */
"use strict";
const Board = (() => {
  const $ = id => document.getElementById(id);
  const {esc, cap, rank, sideName} = SL;
  const capSide = x => cap(sideName(x));

  // a round's effect by the rank that set it off (R40-R46)
  const EFFECT_RANK = {spy: 1, scout: 2, miner: 3, bomb: 7};
  // the board's colours come from the page's look (base.css: dark room or light room)
  const VARS = {red: "--red", blue: "--blue", redBg: "--red-bg", blueBg: "--blue-bg", gold: "--gold",
                line: "--line", ink: "--ink", dim: "--dim", markRed: "--mark-red",
                onMarkRed: "--on-mark-red", markBlue: "--mark-blue", redCell: "--b-red-cell", blueCell: "--b-blue-cell",
                midCell: "--b-mid-cell", redWall: "--b-red-wall", blueWall: "--b-blue-wall",
                void: "--b-void", cell: "--b-cell", card: "--b-card", empty: "--b-empty",
                edge: "--b-edge", dt: "--b-dt", da: "--b-da"};
  const COL = {};
  function palette() {
    const cs = getComputedStyle(document.documentElement);
    for (const [k, v] of Object.entries(VARS)) COL[k] = cs.getPropertyValue(v).trim();
  }
  palette();

  // a longer word (a language other than English) squeezed to the room it has, never cut
  // (o.room: measured once drawn by fitTexts; an estimate would miss a wide font)
  function fitTexts(svg) {
    for (const el of svg.querySelectorAll("text[data-room]")) {
      const room = +el.dataset.room;
      if (el.getComputedTextLength() > room) { el.setAttribute("textLength", room); el.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
    }
  }
  // the labels' type (22 to 28 of the board) larger where the board is drawn small: on a
  // tablet entering a game it was 0.49 px a unit, labels of ~10 px read from a chair; now
  // 14 px at least, squeezed to their room where it is short (at most 22 x 1.35 units: the
  // rows are the board's own). A side's token's letter and the chance bar's figures keep
  // their size (data-mark: the shape's own, inside it).
  let big = 1;
  const LEAST_PX = 14.2;
  function labelScale() {
    const m = $("board").getScreenCTM(), k = m ? Math.hypot(m.a, m.b) : 0;
    return k ? Math.min(1.35, Math.max(1, LEAST_PX / (22 * k))) : 1;
  }
  const sized = o => o.mark ? o.size : Math.max(o.size || 26, +(22 * big).toFixed(1));
  const t = (x, y, s, o = {}) => `<text x="${x}" y="${y}" font-size="${sized(o)}" fill="${o.fill || COL.ink}"
    text-anchor="${o.anchor || "middle"}" font-weight="${o.weight || 600}" ${o.mark ? "data-mark" : ""} ${o.room ? `data-room="${o.room}"` : ""} ${o.extra || ""}>${esc(s)}</text>`;
  // a side's token: red a square with R, blue a circle with B (never colour alone)
  function token(side, x, y, r) {
    const shape = side === "red"
      ? `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="${r / 5}" fill="${COL.markRed}" stroke="${COL.edge}" stroke-width="3"/>`
      : `<circle cx="${x}" cy="${y}" r="${r}" fill="${COL.markBlue}" stroke="${COL.edge}" stroke-width="3"/>`;
    return `<g class="token" data-side="${side}">` + shape + t(x, y + r * 0.38, side === "red" ? "R" : "B", {size: r * 1.1, weight: 800, mark: true, fill: side === "red" ? COL.onMarkRed : "#06203d"}) + "</g>";
  }

  function daTrack(s, where) {
    const W = s.wall_distance, n = 2 * W + 3, x0 = 40, w = 1160 / n, y = 44, h = 64;
    let out = t(x0, 30, T("Double agent {where}", {where}), {anchor: "start", size: 24, fill: COL.ink, extra: 'data-testid="da-text"'});
    out += t(620, 30, T("centre"), {size: 22, fill: COL.dim});
    for (let p = -(W + 1); p <= W + 1; p++) {
      const x = x0 + (p + W + 1) * w, a = Math.abs(p);
      let fill = p < 0 ? COL.redCell : p > 0 ? COL.blueCell : COL.midCell;
      let label = String(a);
      if (a === W) fill = p < 0 ? COL.redWall : COL.blueWall;
      if (a === W + 1) fill = COL.void;
      out += `<rect x="${x + 2}" y="${y}" width="${w - 4}" height="${h}" rx="6" fill="${fill}" stroke="${COL.line}" stroke-width="2"/>`;
      if (a === W) out += `<path d="M${x + 4} ${y + 20}h${w - 8}M${x + 4} ${y + 42}h${w - 8}M${x + w / 2} ${y}v20M${x + w / 4} ${y + 20}v22M${x + 3 * w / 4} ${y + 20}v22M${x + w / 2} ${y + 42}v22" stroke="#0008" stroke-width="3"/>`;
      if (a === W + 1) {
        const side = p < 0 ? "red" : "blue";
        out += `<path d="M${x + w * 0.35} ${y + 54}V${y + 10}l${w * 0.4} 12l-${w * 0.4} 12" fill="${side === "red" ? COL.markRed : COL.markBlue}" stroke="${COL.edge}" stroke-width="2"/>`;
        label = T("flag");
      }
      out += t(x + w / 2, y + h + 24, a === W ? T("wall") : label, {size: 22, fill: COL.dim, room: w - 6});
    }
    // (room for the chance bar between them, when the table shows one)
    const room = SL.view && SL.view.chances ? 420 : 560;
    out += t(x0, y + h + 50, "◀ " + T("{side}'s fort · {side} territory", {side: sideName("red")}), {anchor: "start", size: 22, fill: COL.red, room});
    out += t(1200, y + h + 50, T("{side} territory · {side}'s fort", {side: sideName("blue")}) + " ▶", {anchor: "end", size: 22, fill: COL.blue, room});
    const dx = x0 + (s.da + W + 1 + 0.5) * w;
    out += `<g data-testid="da" data-pos="${s.da}" role="img" aria-label="${esc(T("double agent {where}", {where}))}"><rect x="${dx - 20}" y="${y + 6}" width="40" height="52" rx="6" fill="${COL.da}" stroke="${COL.gold}" stroke-width="4"/>
      ${t(dx, y + 40, T("DA"), {size: 22, weight: 800, fill: "#f2c14e", room: 36})}</g>`;
    return out;
  }

  // the chance to win (issues 25, 52; a table that opted in): a bar between the forts, red's
  // share from the left, blue's from the right, the draw's between them; under it one line
  // says what it is and names the draw. Whole percents from the server, summing to 100.
  // A figure of another view (being worked out) dims only when it is late (host.css).
  const CHANCE_ROOM = 44;                 // the line under the bar: the board below moves down
  function chanceBar(v) {
    const c = SL.chance;
    if (!v.chances) return "";
    const x0 = 470, w = 300, y = 139, h = 28;
    if (!c) return `<g data-testid="chance-bar" data-pending="1">${t(620, y + 58, T("Chance to win: being worked out…"), {size: 22, fill: COL.dim, room: 1160})}</g>`;
    const pc = c.percent, stale = c.version !== v.version;
    const what = c.basis === "nothing" ? T("Chance to win: nothing seen yet, so even")
      : c.basis === "exhausted" ? T("Chance to win before any reveal, from the soldiers exhausted")
      : T("Chance to win, from what the table has seen");
    const line = what + " · " + T("draw {pct}", {pct: Words.percent(pc.draw)});
    const rw = w * pc.red / 100, bw = w * pc.blue / 100;
    return `<g class="chance${stale ? " stale" : ""}" data-testid="chance-bar" data-red="${pc.red}" data-blue="${pc.blue}" data-draw="${pc.draw}" data-events="${c.events}" data-state="${c.state}" role="img"
      aria-label="${esc(T("Chance to win: red {red}%, blue {blue}%", {red: pc.red, blue: pc.blue}) + " · " + line)}">
      <rect x="${x0}" y="${y}" width="${w}" height="${h}" rx="6" fill="${COL.midCell}" stroke="${COL.line}" stroke-width="2"/>
      <rect x="${x0}" y="${y}" width="${rw}" height="${h}" rx="6" fill="${COL.markRed}"/>
      <rect x="${x0 + w - bw}" y="${y}" width="${bw}" height="${h}" rx="6" fill="${COL.markBlue}"/>
      ${t(x0 + 8, y + 22, Words.percent(pc.red), {size: 24, anchor: "start", weight: 800, mark: true, fill: pc.red >= 18 ? COL.onMarkRed : COL.ink, extra: 'data-testid="chance-red"'})}
      ${t(x0 + w - 8, y + 22, Words.percent(pc.blue), {size: 24, anchor: "end", weight: 800, mark: true, fill: pc.blue >= 18 ? "#06203d" : COL.ink, extra: 'data-testid="chance-blue"'})}
      ${t(620, y + 58, line, {size: 22, fill: COL.ink, room: 1160, extra: 'data-testid="chance-line"'})}</g>`;
  }

  function ipTrack(s, side, y) {
    const x0 = 200, w = 70;
    let out = token(side, 60, y + 26, 20) + t(92, y + 36, T("IP {n}", {n: s.ip[side]}), {anchor: "start", size: 28, weight: 800, extra: `data-testid="ip-${side}" data-value="${s.ip[side]}"`});
    for (let i = 0; i <= 10; i++) {
      const x = x0 + i * w;
      out += `<rect x="${x}" y="${y}" width="${w - 6}" height="52" rx="8" fill="${i === 10 ? COL.midCell : COL.cell}" stroke="${COL.line}" stroke-width="2"/>`;
      out += t(x + (w - 6) / 2, y + 38, i, {size: 32, weight: 700, fill: COL.dim, extra: 'class="ip-n"'});
    }
    const v = Math.max(0, Math.min(10, s.ip[side]));
    out += token(side, x0 + v * w + (w - 6) / 2, y + 26, 24);
    const st = s.stats[side];
    out += t(980, y + 36, TN("{n} infiltration", "{n} infiltrations", st.infiltrations), {anchor: "start", size: 24, fill: COL.dim, room: 250});
    return out;
  }

  // a lightning spark centred on (x, y), 22 px high: an ability acting
  const spark = (x, y) => `M${x + 3} ${y - 11}L${x - 7} ${y + 2}H${x - 1}L${x - 3} ${y + 11}L${x + 7} ${y - 2}H${x + 1}Z`;

  function card(x, y, w, h, info) {
    // info: {rank, outcome, deception, facedown, mission, token, current, side}
    const cx = x + w / 2, cy = y + h / 2;
    let body;
    if (info.rank == null) {
      body = `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="12" fill="${COL.card}" stroke="${COL.line}" stroke-width="3"/>
        ${info.current ? `<rect class="guessing" data-testid="guessing" data-side="${info.side}" data-mission="${info.mission}" x="${x - 7}" y="${y - 7}" width="${w + 14}" height="${h + 14}" rx="16" fill="none" stroke="${COL.gold}" stroke-width="6" stroke-dasharray="14 9"/>` : ""}
        <rect x="${x + 10}" y="${y + 10}" width="${w - 20}" height="${h - 20}" rx="8" fill="none" stroke="${COL[info.side]}" stroke-opacity=".45" stroke-width="2" stroke-dasharray="6 6"/>
        ${t(cx, cy + 12, "?", {size: 44, fill: COL.dim})}`;
    } else {
      // an activated card (a wrong guess: its ability acts) in gold with a spark, as the
      // story draws it: green with a ✓ read as "guessed right" (issue 52)
      const act = info.outcome === "activated";
      body = `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="12" fill="${info.side === "red" ? COL.redBg : COL.blueBg}" stroke="${act ? COL.gold : COL.edge}" stroke-width="${act ? 7 : 2}"/>
        ${t(cx, cy + 6, info.rank, {size: 64, weight: 800})}
        ${t(cx, y + h - 18, rank(info.rank), {size: 22, room: w - 14})}`;
      if (!act) body = `<g transform="rotate(-20 ${cx} ${cy})" opacity=".8">${body}</g>`;
      else body = `<g data-testid="activated" data-side="${info.side}" data-mission="${info.mission}">${body}
        <circle cx="${x + 8}" cy="${y + 8}" r="17" fill="#f2c14e" stroke="#000" stroke-width="2"/><path data-testid="spark" d="${spark(x + 8, y + 8)}" fill="#1a1405"/></g>`;
    }
    const oc = info.outcome, label = SL.outcomeWord(oc);
    let extra = t(cx, y - 12, T("mission {m}", {m: info.mission}), {size: 22, fill: info.current ? COL.gold : COL.dim, weight: info.current ? 800 : 600, room: 126});
    if (label) extra += t(cx, y + h + 28, label, {size: 22, fill: oc === "activated" ? COL.gold : COL.dim, weight: oc === "activated" ? 800 : 600, room: w + 20});
    if (info.token) extra += `<circle cx="${x + w - 8}" cy="${y + 8}" r="16" fill="#f2c14e" stroke="#000" stroke-width="2"/>${t(x + w - 8, y + 16, "i", {size: 22, weight: 800, fill: "#000"})}`;
    // the token laid on it, at the top's middle: between an activated card's spark (top left)
    // and the intel token (top right); at the top left it covered the check
    if (info.deception) extra += `<rect data-testid="dt-on" x="${cx - 27}" y="${y - 8}" width="54" height="32" rx="6" fill="${COL.dt}" stroke="#fff" stroke-width="2"/>${t(cx, y + 16, T("DT"), {size: 24, weight: 800, fill: "#fff", room: 46})}`;
    return body + extra;
  }

  function missions(v, side, y) {
    const s = v.state, d = v.draft;
    const today = SL.todays(s, side);
    let out = token(side, 60, y + 60, 26) + t(60, y + 130, capSide(side), {size: 26, fill: COL[side], weight: 800});
    for (let m = 1; m <= 4; m++) {
      const r = today[m];
      out += card(130 + (m - 1) * 140, y, 116, 160, {
        side, mission: m, rank: r ? r.actual : null, outcome: r && r.outcome,
        deception: r ? r.deception : !!(d && d.owner === side && d.mission === m && d.deception),
        token: s.tokens[side] && s.tokens[side].includes(m),
        current: d && d.owner === side && d.mission === m});
    }
    return out;
  }

  function smallCard(x, y, r, side) {
    return `<g role="img" aria-label="${rank(r)} (${r})"><title>${rank(r)}</title><rect x="${x}" y="${y}" width="62" height="84" rx="8" fill="${side === "red" ? COL.redBg : COL.blueBg}" stroke="${COL.edge}" stroke-width="2" opacity=".75"/>
      ${t(x + 31, y + 56, r, {size: 36, weight: 800})}</g>`;
  }

  function wrap(text, max) {
    const out = [];
    for (const word of text.split(" ")) {
      if (out.length && (out[out.length - 1] + " " + word).length <= max) out[out.length - 1] += " " + word;
      else out.push(word);
    }
    return out;
  }

  function sidePanel(s, side, y) {
    let out = t(960, y + 20, T("exhausted"), {anchor: "start", size: 22, fill: COL.dim, room: 140});
    const ex = s.phase === "setup" ? (s.drawn[side] || []) : s.exhausted[side];
    ex.forEach((r, i) => { out += smallCard(960 + i * 72, y + 32, r, side); });
    if (!ex.length) out += t(960, y + 80, "—", {anchor: "start", size: 26, fill: COL.dim});
    if (s.phase === "round_end") {
      const draw = T("day {n} draw: {ranks}", {n: s.day + 1, ranks: (s.drawn[side] || []).map(rank).join(", ") || T("not yet")});
      out += t(960, y + 146, draw, {anchor: "start", size: 22, fill: COL.ink, room: 275});
    }
    out += t(1110, y + 20, T("DT {n}", {n: s.dt[side]}), {anchor: "start", size: 24, fill: COL.ink, extra: `data-testid="dt-${side}" data-value="${s.dt[side]}"`});
    for (let i = 0; i < s.dt[side]; i++)
      out += `<circle cx="${1128 + i * 46}" cy="${y + 70}" r="19" fill="${COL.dt}" stroke="#fff" stroke-width="2"/>${t(1128 + i * 46, y + 78, side === "red" ? "R" : "B", {size: 22, weight: 800, fill: "#fff"})}`;
    if (!s.dt[side]) out += t(1110, y + 80, T("none"), {anchor: "start", size: 24, fill: COL.dim});
    // what stays with a side this round, in whole words, wrapped to the panel (never cut)
    const eff = s.effects[side] || [], lines = [];
    if (eff.length) lines.push(...wrap(T("In play: {effects}", {effects: eff.map(x => rank(EFFECT_RANK[x]) || cap(x)).join(", ")}), 20));
    if (s.double_damage && s.double_damage[side]) lines.push(...wrap(T("Double damage due"), 20));
    const y0 = y + (s.phase === "round_end" ? 172 : 150);
    lines.slice(0, s.phase === "round_end" ? 2 : 3).forEach((l, i) => { out += t(930, y0 + i * 26 * Math.min(big, 1.15), l, {anchor: "start", size: 22, fill: COL.gold, room: 305, extra: `data-testid="in-play-${side}"`}); });
    return out;
  }

  function intel(s) {
    let out = t(790, 312, T("Intel card"), {size: 22, fill: COL.dim, room: 200});
    const x = 690, y = 326, w = 200, h = 250;
    out += `<rect class="intel-card" x="${x}" y="${y}" width="${w}" height="${h}" rx="14" fill="${s.intel ? COL.midCell : COL.empty}" stroke="${COL.gold}" stroke-width="3"/>`;
    if (s.intel) s.intel.forEach((r, i) => { out += t(x + 38, y + 52 + i * 56, r, {size: 36, weight: 800, fill: COL.gold}) + t(x + 74, y + 48 + i * 56, rank(r), {size: 24, anchor: "start", extra: 'class="intel-name"', room: w - 84}); });
    else out += t(x + w / 2, y + h / 2, T("not yet"), {size: 24, fill: COL.dim});
    out += t(690, 632, T("DT supply"), {anchor: "start", size: 22, fill: COL.dim, room: 225});
    for (let i = 0; i < s.dt.supply; i++) out += `<circle cx="${712 + i * 44}" cy="${666}" r="18" fill="${COL.dt}" stroke="#fff" stroke-width="2"/>`;
    if (!s.dt.supply) out += t(690, 672, T("empty"), {anchor: "start", size: 22, fill: COL.dim});
    if (s.old_intel.length) {
      const old = s.old_intel.map(c => c.join("·")).join("   ");
      out += t(690, 722, T("old intel"), {anchor: "start", size: 22, fill: COL.dim, extra: 'class="old-intel"', room: 225});
      out += t(690, 754, old, {anchor: "start", size: 22, fill: COL.ink, extra: 'class="old-intel"', room: 225});
    }
    return out;
  }

  // the board's parts, each a <g> drawn again only when its markup changed (Stage.put: a
  // change moves one or two of them, and all of them made anew cost the big screen most
  // of its work for it), and the parts drawn since the last fitting
  const PARTS = {da: 0, chance: 0, moved: ["ip-red", "ip-blue", "missions-red", "missions-blue", "intel", "side-red", "side-blue"]};
  let parts = null, unfitted = [];
  function build(svg) {
    svg.innerHTML = Object.entries(PARTS).map(([k, inner]) => `<g data-part="${k}">${inner ? inner.map(x => `<g data-part="${x}"></g>`).join("") : ""}</g>`).join("");
    parts = {};
    for (const g of svg.querySelectorAll("g[data-part]")) parts[g.dataset.part] = g;
  }
  function draw(v) {
    const s = v.state, w = v.words, svg = $("board");
    // a table that shows the chance: its line's room between the forts and the IP tracks
    const down = v.chances ? CHANCE_ROOM : 0;
    svg.setAttribute("viewBox", `0 0 1240 ${790 + down}`);
    if (!parts || !svg.contains(parts.da)) build(svg);
    parts.moved.setAttribute("transform", `translate(0 ${down})`);
    const want = {da: daTrack(s, w.da), chance: chanceBar(v), "ip-red": ipTrack(s, "red", 170),
                  "ip-blue": ipTrack(s, "blue", 232), "missions-red": missions(v, "red", 340),
                  "missions-blue": missions(v, "blue", 585), intel: intel(s),
                  "side-red": sidePanel(s, "red", 330), "side-blue": sidePanel(s, "blue", 575)};
    for (const [k, html] of Object.entries(want)) if (Stage.put(parts[k], html)) unfitted.push(parts[k]);
    Stage.later(fit);
    svg.setAttribute("aria-label", T("The board, day {day}: red {red} IP, blue {blue} IP, double agent {where}, deception tokens red {dt_red}, blue {dt_blue}", {day: s.day, red: s.ip.red, blue: s.ip.blue, where: w.da, dt_red: s.dt.red, dt_blue: s.dt.blue}));
  }
  // once the page is drawn (measured after the change, Stage.batch): the labels' type for
  // the size the board is drawn at (drawn again if it is not the one they were drawn for),
  // then each word of the parts drawn anew squeezed to its room
  function fit() {
    const k = labelScale();
    if (k !== big && SL.view) { big = k; draw(SL.view); }
    for (const g of unfitted.splice(0)) fitTexts(g);
  }
  // the stage fitted again (a resize, a side entering here): the labels' type with it
  document.addEventListener("sl-stage", () => { if (SL.view && labelScale() !== big) Stage.batch(() => draw(SL.view)); });
  return {draw, palette};
})();
