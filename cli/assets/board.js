// rollcall's table drawing, shared by the replay viewer (`rollcall view`)
// and the play page (`GET /games/{id}/play`): small DOM helpers, dice, and
// per ruleset the table (an SVG) and the panel beside it, drawn from a state
// as the engine writes it. It only draws: no rule is written here.
'use strict';
const RollcallBoard = (function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  // The scenario of the game drawn (leader-activation names its pieces from it).
  let SCENARIO = {};

  // ---- defensive readers: states grow new fields, and old records stay ----
  function obj(x) { return x && typeof x === 'object' && !Array.isArray(x) ? x : {}; }
  function arr(x) { return Array.isArray(x) ? x : []; }
  function num(x, d) { return typeof x === 'number' && isFinite(x) ? x : d; }
  function pt(x) { return Array.isArray(x) && x.length >= 2 && isFinite(x[0]) && isFinite(x[1]) ? [x[0], x[1]] : null; }
  function str(x) { return x === null || x === undefined ? '' : String(x); }

  // Appends the kids that are there: a null, undefined or false kid is none.
  function put(e, ...kids) {
    for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k);
    return e;
  }
  function attrs(e, list) {
    for (const [k, v] of Object.entries(list || {})) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
    return e;
  }
  function h(tag, list, ...kids) { return put(attrs(document.createElement(tag), list), ...kids); }
  function s(tag, list, ...kids) { return put(attrs(document.createElementNS(SVGNS, tag), list), ...kids); }
  function tag(text, kind) { return h('span', { class: 'tag' + (kind ? ' ' + kind : '') }, text); }
  function round(x) { return Math.round(x * 100) / 100; }

  // ---- drawing helpers ----
  const SIDE_COLOURS = ['#2b5aa8', '#b0413e', '#3c8a3c', '#7a4fa0'];
  function sideColour(sides, side) {
    const i = sides.indexOf(side);
    return i >= 0 ? SIDE_COLOURS[i % SIDE_COLOURS.length] : '#777';
  }
  function bounds(points, pad) {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const p of points) { x0 = Math.min(x0, p[0]); y0 = Math.min(y0, p[1]); x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1]); }
    if (!isFinite(x0)) { x0 = 0; y0 = 0; x1 = 100; y1 = 100; }
    const span = Math.max(x1 - x0, y1 - y0, 10);
    const m = pad(span);
    return { x: x0 - m, y: y0 - m, w: x1 - x0 + 2 * m, h: y1 - y0 + 2 * m, span };
  }
  // The states to take the table's extent from: every one for a short game, a sample for a long one.
  function sampleStates(run) {
    const n = run.states.length;
    const step = Math.max(1, Math.floor(n / 400));
    const out = [];
    for (let i = 0; i < n; i += step) out.push(run.states[i]);
    out.push(run.states[n - 1]);
    return out;
  }
  function svgTable(box, unitLabel, unitSize) {
    const svg = s('svg', { class: 'table', viewBox: [box.x, box.y, box.w, box.h].map(round).join(' '), 'data-units': unitLabel, role: 'img' });
    // A scale bar, a round length of about a fifth of the table.
    const mag = Math.pow(10, Math.floor(Math.log10(box.w / 5)));
    const len = [1, 2, 5, 10].map((k) => k * mag).filter((l) => l <= box.w / 4).pop() || mag;
    const y = box.y + box.h - unitSize * 0.6;
    const x = box.x + unitSize * 0.6;
    svg.append(s('g', { class: 'scale' },
      s('line', { x1: x, y1: y, x2: x + len, y2: y, stroke: '#444', 'stroke-width': unitSize / 8 }),
      s('text', { x, y: y - unitSize / 4, 'font-size': unitSize * 0.7, fill: '#444' }, `${len} ${unitLabel}`)));
    return svg;
  }
  function grid(svg, box, every) {
    const g = s('g', { class: 'grid' });
    for (let x = Math.ceil(box.x / every) * every; x <= box.x + box.w; x += every) g.append(s('line', { x1: x, y1: box.y, x2: x, y2: box.y + box.h, 'stroke-width': box.span / 800 }));
    for (let y = Math.ceil(box.y / every) * every; y <= box.y + box.h; y += every) g.append(s('line', { x1: box.x, y1: y, x2: box.x + box.w, y2: y, 'stroke-width': box.span / 800 }));
    svg.append(g);
  }
  function circle(svg, at, r, label, size) {
    svg.append(s('circle', { class: 'range', cx: at[0], cy: at[1], r, 'stroke-width': size / 10, 'data-r': r }));
    if (label) svg.append(s('text', { class: 'range-label', x: at[0] + r * 0.71, y: at[1] - r * 0.71, 'font-size': size * 0.6 }, label));
  }
  function markText(marks) { return marks.join(' '); }

  // ---- dice ----
  function dieFace(die, value, size) {
    const g = s('svg', { width: size, height: size, viewBox: '0 0 20 20', class: 'die-face' });
    if (die === 'd6' && value >= 1 && value <= 6) {
      g.append(s('rect', { x: 1, y: 1, width: 18, height: 18, rx: 4, fill: '#fff', stroke: '#333' }));
      const P = { 1: [[10, 10]], 2: [[5, 5], [15, 15]], 3: [[5, 5], [10, 10], [15, 15]], 4: [[5, 5], [15, 5], [5, 15], [15, 15]],
        5: [[5, 5], [15, 5], [10, 10], [5, 15], [15, 15]], 6: [[5, 5], [15, 5], [5, 10], [15, 10], [5, 15], [15, 15]] }[value];
      for (const [x, y] of P) g.append(s('circle', { cx: x, cy: y, r: 1.8, fill: '#222', class: 'pip' }));
    } else if (die === 'd10') {
      g.append(s('polygon', { points: '10,1 19,8 10,19 1,8', fill: '#fff', stroke: '#333' }));
      g.append(s('text', { x: 10, y: 13, 'font-size': 8, 'text-anchor': 'middle', fill: '#222' }, str(value)));
    } else {
      g.append(s('rect', { x: 1, y: 4, width: 18, height: 12, rx: 2, fill: '#f4e6c4', stroke: '#333' }));
      g.append(s('text', { x: 10, y: 13, 'font-size': 7, 'text-anchor': 'middle', fill: '#222' }, '#' + str(value)));
    }
    return g;
  }
  const PROOF = {
    proven: 'proven: re-drawn from the committed seed when this page was made',
    unproven: 'unproven: a table die, rolled by hand',
    sealed: 'sealed until its turn ends',
    unchecked: 'not checked: at or after the first event verify refused',
  };
  function dieBox(ev, later) {
    const b = obj(ev.body);
    const proof = PROOF[ev.proof] ? ev.proof : 'unknown';
    const address = `(${num(b.decision, 0)}, ${str(b.label)}, ${num(b.index, 0)})`;
    return h('div', { class: 'die' + (later ? ' later' : ''), 'data-seq': ev.seq, 'data-die': str(b.die), 'data-value': str(b.value),
      'data-address': address, 'data-proof': proof, title: `${str(b.die)} at address ${address}: ${PROOF[proof] || 'status ' + str(ev.proof)}` },
      dieFace(str(b.die), b.value, 26), h('span', {}, `${str(b.label)} #${num(b.index, 0)}`), h('span', { class: 'proof proof-' + proof }, proof));
  }

  // ---- the rulesets ----
  const DRAW = {};

  // leader-activation: positions in millimetres.
  DRAW['leader-activation'] = {
    extent(run) {
      const pts = [];
      for (const st of sampleStates(run)) for (const p of Object.values(obj(st.pieces)).map(obj)) { const a = pt(p.at); if (a) pts.push(a); }
      const cfg = obj(run.states[0].config);
      const reach = Math.max(num(cfg.command_range_elite_mm, 0), num(cfg.command_range_trained_mm, 0), num(cfg.command_range_conscript_mm, 0));
      return bounds(pts, (span) => Math.max(span / 12, Math.min(reach, span / 4), 20));
    },
    table(state, box) {
      const size = Math.max(box.span / 30, 8);
      const svg = svgTable(box, 'mm', size);
      grid(svg, box, 100);
      const sides = arr(state.sides);
      const pieces = obj(state.pieces);
      const act = obj(obj(state.turn).activation);
      const leader = pieces[act.leader];
      if (leader && pt(leader.at)) {
        const cfg = obj(state.config);
        const radii = new Map();
        for (const [skill, key] of [['Elite', 'command_range_elite_mm'], ['Trained', 'command_range_trained_mm'], ['Conscript', 'command_range_conscript_mm']]) {
          const r = num(cfg[key], 0);
          if (r > 0) radii.set(r, (radii.get(r) ? radii.get(r) + '/' : '') + skill);
        }
        for (const [r, who] of radii) circle(svg, pt(leader.at), r, `${who} ${r} mm`, size);
        for (const u of arr(act.commanded)) {
          const p = pieces[u];
          if (p && pt(p.at)) svg.append(s('line', { x1: leader.at[0], y1: leader.at[1], x2: p.at[0], y2: p.at[1], stroke: '#2b5aa8', 'stroke-width': size / 8, 'stroke-dasharray': `${size / 3} ${size / 4}` }));
        }
      }
      const names = {};
      for (const p of arr(SCENARIO.leaders).concat(arr(SCENARIO.units))) if (p && p.id) names[p.id] = p.name || p.id;
      for (const p of Object.values(pieces).map(obj)) {
        const at = pt(p.at);
        if (!at) continue;
        const marks = [];
        if (p.broken) marks.push('broken');
        if (p.locked) marks.push('locked');
        if (p.activated) marks.push('activated');
        if (p.id === act.leader) marks.push('active');
        if (arr(act.commanded).includes(p.id)) marks.push('commanded');
        const colour = sideColour(sides, p.side);
        const g = s('g', { class: 'piece', 'data-id': p.id, 'data-at': `${at[0]},${at[1]}`, 'data-role': str(p.role), 'data-side': str(p.side), 'data-marks': markText(marks), opacity: p.activated && p.id !== act.leader ? 0.6 : 1 });
        const stroke = marks.includes('active') || marks.includes('commanded') ? '#f0b400' : '#222';
        const width = marks.includes('active') || marks.includes('commanded') ? size / 4 : size / 12;
        if (p.role === 'leader') g.append(s('circle', { cx: at[0], cy: at[1], r: size * 0.55, fill: colour, stroke, 'stroke-width': width }));
        else g.append(s('rect', { x: at[0] - size * 0.8, y: at[1] - size * 0.45, width: size * 1.6, height: size * 0.9, fill: colour, stroke, 'stroke-width': width }));
        if (p.broken) g.append(s('path', { d: `M${at[0] - size * 0.6},${at[1] - size * 0.6}L${at[0] + size * 0.6},${at[1] + size * 0.6}M${at[0] + size * 0.6},${at[1] - size * 0.6}L${at[0] - size * 0.6},${at[1] + size * 0.6}`, stroke: '#d01010', 'stroke-width': size / 6 }));
        if (p.locked) g.append(s('circle', { cx: at[0], cy: at[1], r: size * 0.85, fill: 'none', stroke: '#000', 'stroke-width': size / 8, 'stroke-dasharray': `${size / 5} ${size / 8}` }));
        g.append(s('text', { x: at[0], y: at[1] + size * 1.2, 'font-size': size * 0.55, 'text-anchor': 'middle' }, names[p.id] || p.id));
        const flags = marks.filter((m) => m === 'broken' || m === 'locked');
        if (flags.length) g.append(s('text', { x: at[0], y: at[1] - size * 0.75, 'font-size': size * 0.5, 'text-anchor': 'middle', fill: '#b00' }, flags.join(', ')));
        g.append(s('title', {}, `${names[p.id] || p.id} (${str(p.side)} ${str(p.role)}, ${str(p.skill)}) at (${at[0]}, ${at[1]}) mm${marks.length ? ': ' + marks.join(', ') : ''}`));
        svg.append(g);
      }
      return svg;
    },
    panel(state) {
      const turn = state.turn ? obj(state.turn) : null;
      const out = [];
      if (!turn) out.push(h('p', {}, 'Before the first turn.'));
      else {
        out.push(h('h3', {}, `Turn ${str(turn.number)}`), h('p', {}, `first: ${str(turn.first)} · slot: ${turn.next ? str(turn.next) : 'none (the turn is over)'}`));
        const rows = arr(state.sides).map((side) => h('tr', {}, h('td', {}, side), h('td', {}, str(obj(turn.leaders)[side])), h('td', {}, str(obj(turn.skips)[side]))));
        out.push(h('table', {}, h('tr', {}, h('th', {}, 'side'), h('th', {}, 'leaders'), h('th', {}, 'skips left')), rows));
        const act = turn.activation ? obj(turn.activation) : null;
        if (act) out.push(h('h3', {}, 'Activation'), h('p', {}, `${str(act.leader)} (${str(act.side)}) commands: ${arr(act.commanded).join(', ') || 'nobody yet'}`,
          act.leader_acted ? tag('acted') : null, act.self_rally_tried ? tag('self-rally tried') : null));
      }
      const pieces = Object.values(obj(state.pieces)).map(obj);
      const rows = pieces.map((p) => h('tr', { 'data-id': p.id }, h('td', {}, p.id), h('td', {}, str(p.side)), h('td', {}, str(p.skill)),
        h('td', {}, p.broken ? tag('broken', 'bad') : null, p.locked ? tag('locked', 'warn') : null, p.activated ? tag('activated') : null)));
      out.push(h('h3', {}, 'Leaders and units'), h('table', {}, rows));
      return out;
    },
  };

  // phoenix-command: figures in tenths of an inch, units with CP.
  DRAW['phoenix-command'] = {
    extent(run) {
      const pts = [];
      for (const st of sampleStates(run)) for (const f of Object.values(obj(st.figures)).map(obj)) { const a = pt(f.at); if (a) pts.push(a); }
      return bounds(pts, (span) => Math.max(span / 10, 30));
    },
    table(state, box) {
      const size = Math.max(box.span / 40, 4);
      const svg = svgTable(box, 'tenths of an inch', size);
      grid(svg, box, 60);
      const sides = arr(state.sides);
      const figures = obj(state.figures);
      const units = obj(state.units);
      const act = obj(obj(state.turn).activation);
      const active = units[act.unit];
      const leader = active ? figures[active.leader] : null;
      if (leader && pt(leader.at) && !leader.removed) {
        const r = num(leader.command_distance_tenths, 0);
        if (r > 0) circle(svg, pt(leader.at), r, `command distance ${r / 10}"`, size);
      }
      const centres = {};
      for (const f of Object.values(figures).map(obj)) {
        const at = pt(f.at);
        if (!at) continue;
        const marks = [];
        if (f.removed) marks.push('removed');
        if (f.morale && f.morale !== 'bold') marks.push(str(f.morale));
        if (f.posture && f.posture !== 'standing') marks.push(str(f.posture));
        if (f.lagging) marks.push('lagging');
        if (f.double_timed) marks.push('double-timed');
        if (f.command_rating !== null && f.command_rating !== undefined) marks.push('leader');
        if (act.unit && f.unit === act.unit) marks.push('active');
        const colour = f.removed ? '#bbb' : sideColour(sides, f.side);
        const r = marks.includes('leader') ? size * 0.7 : size * 0.45;
        const g = s('g', { class: 'piece figure', 'data-id': f.id, 'data-at': `${at[0]},${at[1]}`, 'data-unit': str(f.unit), 'data-side': str(f.side), 'data-marks': markText(marks) });
        const ring = f.morale === 'panicked' ? '#d01010' : f.morale === 'shaken' ? '#e0a000' : marks.includes('active') ? '#f0b400' : '#222';
        if (f.posture === 'prone') g.append(s('ellipse', { cx: at[0], cy: at[1], rx: r * 1.3, ry: r * 0.6, fill: colour, stroke: ring, 'stroke-width': size / 7 }));
        else g.append(s('circle', { cx: at[0], cy: at[1], r, fill: colour, stroke: ring, 'stroke-width': size / 7 }));
        if (f.posture === 'in-cover') g.append(s('path', { d: `M${at[0] - r * 1.2},${at[1] + r * 1.1}h${r * 2.4}`, stroke: '#5b4a2a', 'stroke-width': size / 5 }));
        if (f.removed) g.append(s('path', { d: `M${at[0] - r},${at[1] - r}L${at[0] + r},${at[1] + r}M${at[0] + r},${at[1] - r}L${at[0] - r},${at[1] + r}`, stroke: '#555', 'stroke-width': size / 8 }));
        if (marks.includes('leader')) g.append(s('text', { x: at[0], y: at[1] + r * 0.45, 'font-size': size * 0.6, 'text-anchor': 'middle', fill: '#fff' }, str(f.command_rating)));
        g.append(s('title', {}, `${str(f.name || f.id)} (${str(f.side)}, unit ${str(f.unit)}) at (${at[0]}, ${at[1]}) tenths${marks.length ? ': ' + marks.join(', ') : ''}${f.removed ? ' — ' + str(f.removed) : ''}`));
        svg.append(g);
        if (!f.removed) (centres[f.unit] = centres[f.unit] || []).push(at);
      }
      for (const [id, pts] of Object.entries(centres)) {
        const u = obj(units[id]);
        const x = pts.reduce((a, p) => a + p[0], 0) / pts.length;
        const y = Math.min(...pts.map((p) => p[1])) - size * 1.1;
        const bits = [id];
        if (u.cp !== undefined) bits.push(`CP ${u.cp}`);
        if (u.morale && u.morale !== 'steady') bits.push(str(u.morale));
        svg.append(s('text', { class: 'unit-label', 'data-unit': id, x, y, 'font-size': size * 0.7, 'text-anchor': 'middle', fill: u.morale === 'broken' ? '#b00' : '#333' }, bits.join(' · ')));
      }
      return svg;
    },
    panel(state) {
      const out = [];
      const turn = state.turn ? obj(state.turn) : null;
      out.push(h('h3', {}, turn ? `Turn ${str(turn.number)} · ${str(turn.phase)}` : 'Before the first turn'), h('p', {}, `initiative: ${str(state.initiative)}`));
      if (turn && turn.activation) {
        const a = obj(turn.activation);
        out.push(h('p', {}, `active: ${str(a.unit)} (${str(a.side)}), CP spent ${num(a.spent, 0)}`, a.step ? `, CP #${str(obj(a.step).number)}` : '',
          a.interrupted_by ? tag(`interrupted by ${a.interrupted_by}`, 'warn') : null, a.abandoned ? tag('abandoned its Shaken', 'warn') : null));
      }
      const units = Object.values(obj(state.units)).map(obj);
      const rows = units.map((u) => h('tr', { 'data-unit': u.id }, h('td', {}, u.id), h('td', {}, str(u.side)), h('td', {}, str(u.leader || '—')),
        h('td', { class: 'cp' }, '●'.repeat(Math.min(num(u.cp, 0), 12)) || '0'),
        h('td', {}, u.morale && u.morale !== 'steady' ? tag(str(u.morale), u.morale === 'broken' ? 'bad' : 'warn') : null,
          u.activated ? tag('activated') : null, u.held_interrupt_cp ? tag('interrupt set') : null, u.strategic ? tag('strategic') : null,
          u.brevet_due ? tag('brevet due', 'bad') : null, u.taking_command ? tag('taking command') : null, u.rout_due ? tag('rout due', 'bad') : null,
          arr(u.contact).length ? tag('in contact: ' + arr(u.contact).join(', '), 'warn') : null)));
      out.push(h('h3', {}, 'Units'), h('table', {}, h('tr', {}, h('th', {}, 'unit'), h('th', {}, 'side'), h('th', {}, 'leader'), h('th', {}, 'CP'), h('th', {}, '')), rows));
      if (turn && arr(turn.ambushes).length) out.push(h('h3', {}, 'Ambushes'), h('ul', {}, arr(turn.ambushes).map((a) => h('li', {}, `${str(a.by)} waits for ${str(a.target)}${a.prepared ? ' (prepared)' : ''}`))));
      if (turn && arr(turn.pending_injuries).length) out.push(h('h3', {}, 'Hits awaiting their effect'), h('ul', {}, arr(turn.pending_injuries).map((p) => h('li', {}, `${str(p.target)} hit by ${str(p.shooter)}`))));
      if (turn && turn.melee) out.push(h('p', {}, `melee: ${str(obj(turn.melee).attacker)} attacks ${str(obj(turn.melee).target)}`));
      const gone = Object.values(obj(state.figures)).map(obj).filter((f) => f.removed);
      if (gone.length) out.push(h('h3', {}, 'Out of the fight'), h('ul', {}, gone.map((f) => h('li', {}, `${str(f.name || f.id)}: ${str(f.removed)}`))));
      return out;
    },
  };

  // formation-activation: a hex map numbered CCRR; flat-topped hexes, even columns half a hex lower.
  const HEX = 10;
  function hexParse(x) { return typeof x === 'string' && /^\d{4}$/.test(x) ? [Number(x.slice(0, 2)), Number(x.slice(2))] : null; }
  function hexCentre(c, r) { return [c * 1.5 * HEX, r * Math.sqrt(3) * HEX + (c % 2 === 0 ? Math.sqrt(3) / 2 * HEX : 0)]; }
  function hexDistance(a, b) {
    const ax = (h) => [h[0], h[1] - Math.floor((h[0] - 1) / 2)];
    const [q1, r1] = ax(a); const [q2, r2] = ax(b);
    const dq = q1 - q2; const dr = r1 - r2;
    return (Math.abs(dq) + Math.abs(dr) + Math.abs(dq + dr)) / 2;
  }
  function hexPoints(c, r) {
    const [x, y] = hexCentre(c, r);
    const pts = [];
    for (let k = 0; k < 6; k++) pts.push(`${round(x + HEX * Math.cos(Math.PI / 3 * k))},${round(y + HEX * Math.sin(Math.PI / 3 * k))}`);
    return pts.join(' ');
  }
  DRAW['formation-activation'] = {
    extent(run) {
      let c0 = 99, c1 = 0, r0 = 99, r1 = 0;
      for (const st of sampleStates(run)) for (const u of Object.values(obj(st.units)).map(obj)) {
        const hx = hexParse(u.hex);
        if (hx) { c0 = Math.min(c0, hx[0]); c1 = Math.max(c1, hx[0]); r0 = Math.min(r0, hx[1]); r1 = Math.max(r1, hx[1]); }
      }
      if (c0 > c1) { c0 = 1; c1 = 5; r0 = 1; r1 = 5; }
      c0 = Math.max(0, c0 - 1); c1 = Math.min(99, c1 + 1); r0 = Math.max(0, r0 - 1); r1 = Math.min(99, r1 + 1);
      const [x0, y0] = hexCentre(c0, r0);
      const [x1, y1] = hexCentre(c1, r1);
      return { x: x0 - HEX * 1.2, y: y0 - HEX * 1.2, w: x1 - x0 + HEX * 2.4, h: y1 - y0 + HEX * 2.8, span: Math.max(x1 - x0, y1 - y0), hexes: { c0, c1, r0, r1 } };
    },
    table(state, box) {
      const svg = s('svg', { class: 'table hexmap', viewBox: [box.x, box.y, box.w, box.h].map(round).join(' '), 'data-units': 'hexes', role: 'img' });
      const { c0, c1, r0, r1 } = box.hexes;
      const sides = arr(state.sides);
      const formations = obj(state.formations);
      const units = obj(state.units);
      const act = obj(obj(state.turn).activation);
      const active = formations[act.formation];
      const hq = active ? units[active.hq] : null;
      const hqHex = hq && !hq.eliminated ? hexParse(hq.hex) : null;
      const radius = active ? num(active.command_radius_hexes, 0) : 0;
      for (let c = c0; c <= c1; c++) for (let r = r0; r <= r1; r++) {
        const id = String(c).padStart(2, '0') + String(r).padStart(2, '0');
        const inside = hqHex && hexDistance(hqHex, [c, r]) <= radius;
        svg.append(s('polygon', { class: 'hex' + (inside ? ' in-radius' : ''), points: hexPoints(c, r), 'stroke-width': 0.4, 'data-hex': id }));
        const [x, y] = hexCentre(c, r);
        svg.append(s('text', { class: 'hex-label', x, y: y - HEX * 0.62, 'font-size': 2.6, 'text-anchor': 'middle' }, id));
      }
      if (hqHex) circle(svg, hexCentre(hqHex[0], hqHex[1]), radius * Math.sqrt(3) * HEX, `command radius ${radius} hexes`, HEX * 0.45);
      const stacks = {};
      for (const u of Object.values(units).map(obj)) {
        const hx = hexParse(u.hex);
        if (!hx || u.eliminated) continue;
        (stacks[u.hex] = stacks[u.hex] || []).push(u);
      }
      for (const [hexId, stack] of Object.entries(stacks)) {
        const [cx, cy] = hexCentre(...hexParse(hexId));
        stack.forEach((u, i) => {
          const f = obj(formations[u.formation]);
          const isHq = f.hq === u.id;
          const marks = [];
          if (isHq) marks.push('hq');
          if (u.disrupted) marks.push('disrupted');
          if (u.out_of_command) marks.push('out-of-command');
          if (u.operations_complete) marks.push('operations-complete');
          if (u.newly_placed) marks.push('newly-placed');
          if (act.formation && u.formation === act.formation) marks.push('active');
          const k = HEX * 1.2;
          const x = cx - k / 2 + i * 1.6 - (stack.length - 1) * 0.8;
          const y = cy - k / 2 + i * 1.6 - (stack.length - 1) * 0.8 + 1;
          const g = s('g', { class: 'piece counter', 'data-id': u.id, 'data-hex': hexId, 'data-formation': str(u.formation), 'data-marks': markText(marks), opacity: u.operations_complete ? 0.65 : 1 });
          g.append(s('rect', { x, y, width: k, height: k * 0.8, rx: 0.8, fill: sideColour(sides, f.side), stroke: marks.includes('active') ? '#f0b400' : '#111', 'stroke-width': marks.includes('active') ? 0.8 : 0.3 }));
          g.append(s('text', { x: x + k / 2, y: y + k * 0.3, 'font-size': 2.6, 'text-anchor': 'middle', fill: '#fff' }, str(u.id).slice(0, 9)));
          g.append(s('text', { x: x + k / 2, y: y + k * 0.55, 'font-size': 2.2, 'text-anchor': 'middle', fill: '#fff' }, str(u.formation).slice(0, 9)));
          if (isHq) g.append(s('text', { x: x + 0.6, y: y + k * 0.78, 'font-size': 2.2, fill: '#ffe680' }, 'HQ'));
          if (u.disrupted) g.append(s('text', { x: x + k - 0.5, y: y + k * 0.78, 'font-size': 2.4, 'text-anchor': 'end', fill: '#ff8080', 'font-weight': 'bold' }, 'D'));
          if (u.out_of_command) g.append(s('text', { x: x + k / 2, y: y - 0.4, 'font-size': 2.2, 'text-anchor': 'middle', fill: '#c05000', 'font-weight': 'bold' }, 'OoC'));
          g.append(s('title', {}, `${str(u.name || u.id)} (${str(u.formation)}) in ${hexId}${marks.length ? ': ' + marks.join(', ') : ''}`));
          svg.append(g);
        });
      }
      return svg;
    },
    panel(state) {
      const out = [];
      const turn = state.turn ? obj(state.turn) : null;
      const chits = obj(state.chits);
      const formations = obj(state.formations);
      const sides = arr(state.sides);
      if (!turn) out.push(h('p', {}, 'Before the first turn.'));
      else {
        out.push(h('h3', {}, `Turn ${str(turn.number)}${turn.over ? ' (over)' : ''}`), h('p', {}, `end-turn chits drawn: ${num(turn.end_turn_drawn, 0)} of ${str(state.end_turn_after)}`));
        const act = turn.activation ? obj(turn.activation) : null;
        if (act) out.push(h('p', {}, 'active: ', tag(`${str(act.formation)} (chit ${str(act.chit)}, activation ${str(act.number)})`, 'ok')));
        const cup = h('div', { class: 'cup', 'data-chits': arr(turn.cup).length });
        for (const id of arr(turn.cup)) {
          const c = obj(chits[id]);
          const side = obj(formations[c.formation]).side;
          cup.append(h('span', { class: 'tag chit', 'data-chit': id, style: `background:${c.kind === 'end-turn' ? '#444' : sideColour(sides, side)};color:#fff` }, id));
        }
        out.push(h('h3', {}, `Chits in the cup (${arr(turn.cup).length})`), cup);
      }
      const rows = Object.values(formations).map(obj).map((f) => h('tr', { 'data-formation': f.id }, h('td', {}, f.id), h('td', {}, str(f.side)),
        h('td', {}, `morale ${str(f.morale)}, leadership ${str(f.leadership)}, radius ${str(f.command_radius_hexes)}`),
        h('td', {}, turn ? `${num(obj(turn.activations)[f.id], 0)} activation(s)` : '')));
      out.push(h('h3', {}, 'Formations'), h('table', {}, rows));
      const off = Object.values(obj(state.units)).map(obj).filter((u) => !hexParse(u.hex) || u.eliminated);
      if (off.length) out.push(h('h3', {}, 'Not on the map'), h('ul', {}, off.map((u) => h('li', {}, `${str(u.name || u.id)}: ${u.eliminated ? 'eliminated' : 'off the map'}`))));
      return out;
    },
  };

  // combat-hq: pools and groups; units at their positions (tenths of an inch) when the scenario gives them.
  DRAW['combat-hq'] = {
    extent(run) {
      const pts = [];
      for (const st of sampleStates(run)) for (const u of Object.values(obj(st.units)).map(obj)) { const a = pt(u.at_tenths); if (a) pts.push(a); }
      return bounds(pts, (span) => Math.max(span / 10, 40));
    },
    table(state, box, ctx) {
      const size = Math.max(box.span / 35, 4);
      const svg = svgTable(box, 'tenths of an inch', size);
      grid(svg, box, 100);
      const sideIds = arr(state.sides).map((x) => obj(x).id);
      const groups = obj(state.command_groups);
      const bgs = obj(state.battle_groups);
      const units = obj(state.units);
      const activated = ctx.facts.filter((f) => f.type === 'command-group-activated');
      for (const f of activated) {
        const cu = units[f.command_unit];
        if (cu && pt(cu.at_tenths)) {
          const r = num(f.range_tenths, 0);
          circle(svg, pt(cu.at_tenths), r, `activation range ${r / 10}"`, size);
          for (const iu of arr(f.units)) {
            const u = units[obj(iu).unit];
            if (u && pt(u.at_tenths)) svg.append(s('line', { x1: cu.at_tenths[0], y1: cu.at_tenths[1], x2: u.at_tenths[0], y2: u.at_tenths[1], stroke: '#2b5aa8', 'stroke-width': size / 8 }));
          }
        }
      }
      const active = new Set(activated.flatMap((f) => [f.command_unit].concat(arr(f.units).map((u) => obj(u).unit))));
      for (const u of Object.values(units).map(obj)) {
        const at = pt(u.at_tenths);
        const g0 = obj(groups[u.command_group]);
        if (!at || g0.in_reserve) continue;
        const side = obj(bgs[g0.battle_group]).side;
        const marks = [];
        if (g0.command_unit === u.id) marks.push('command-unit');
        if (active.has(u.id)) marks.push('activated');
        const g = s('g', { class: 'piece', 'data-id': u.id, 'data-at': `${at[0]},${at[1]}`, 'data-group': str(u.command_group), 'data-marks': markText(marks) });
        const stroke = active.has(u.id) ? '#f0b400' : '#222';
        if (marks.includes('command-unit')) g.append(s('circle', { cx: at[0], cy: at[1], r: size * 0.6, fill: sideColour(sideIds, side), stroke, 'stroke-width': size / 6 }));
        else g.append(s('rect', { x: at[0] - size * 0.7, y: at[1] - size * 0.4, width: size * 1.4, height: size * 0.8, fill: sideColour(sideIds, side), stroke, 'stroke-width': size / 6 }));
        g.append(s('text', { x: at[0], y: at[1] + size * 1.1, 'font-size': size * 0.5, 'text-anchor': 'middle' }, u.name || u.id));
        g.append(s('title', {}, `${str(u.name || u.id)} (${str(u.command_group)}) at (${at[0]}, ${at[1]}) tenths`));
        svg.append(g);
      }
      return svg;
    },
    panel(state) {
      const out = [];
      const turn = state.turn ? obj(state.turn) : null;
      const bgs = obj(state.battle_groups);
      const groups = obj(state.command_groups);
      out.push(h('h3', {}, turn ? `Turn ${str(turn.number)}${turn.ended ? ' (ended)' : ''}` : 'Before the first turn'));
      if (turn) out.push(h('p', {}, `${str(turn.first)} rolled first · Command Pulse: ${turn.pulse ? str(turn.pulse) : 'none'}`));
      for (const side of arr(state.sides).map(obj)) {
        const box = h('div', { class: 'side', 'data-side': str(side.id) });
        put(box, h('h3', {}, `${str(side.id)}: CO ${str(side.co_name || side.co)}`),
          num(side.co_staff_orders, 0) ? tag(`CO's own Staff Orders ${side.co_staff_orders}`) : null,
          turn && num(obj(turn.wild_dice)[side.id], 0) ? tag(`Wild Dice ${obj(turn.wild_dice)[side.id]}`, 'warn') : null);
        for (const id of arr(side.battle_groups)) {
          const bg = obj(bgs[id]);
          const dice = turn ? arr(obj(turn.dice)[id]) : [];
          const pool = h('div', { class: 'pool', 'data-battle-group': id, 'data-dice': dice.join(',') });
          put(pool, h('div', {}, h('b', {}, str(bg.name || id)), ` · Command Dice ${str(bg.command_dice)} · Active Dice Pool ${str(bg.active_pool)}`,
            num(bg.dice_held_by_reserves, 0) ? ` · held by reserves ${bg.dice_held_by_reserves}` : '',
            ` · Staff Orders ${str(bg.staff_orders)}`, num(bg.staff_orders_next_turn, 0) ? ` (+${bg.staff_orders_next_turn} next turn)` : '',
            ` · Morale Points ${str(bg.morale_points)}`));
          const faces = h('div', { class: 'dice' }, dice.map((v) => dieFace('d6', v, 20)));
          if (turn) put(pool, h('div', {}, 'dice left: ', dice.length ? faces : 'none'));
          if (turn && obj(turn.reserves_held_back)[id] !== undefined) pool.append(tag(`reserves held back: ${obj(turn.reserves_held_back)[id]} Staff Orders each`, 'bad'));
          const rows = arr(bg.command_groups).map((gid) => {
            const g = obj(groups[gid]);
            return h('tr', { 'data-group': gid, 'data-reserve': g.in_reserve ? 'yes' : 'no' }, h('td', {}, gid), h('td', {}, str(g.kind)),
              h('td', {}, g.in_reserve ? tag('in reserve', 'warn') : tag('on table', 'ok')), h('td', {}, arr(g.units).join(', ')));
          });
          pool.append(h('table', {}, rows));
          box.append(pool);
        }
        out.push(box);
      }
      return out;
    },
  };

  // Any other ruleset: the state as JSON.
  function fallback(ruleset) {
    return {
      extent() { return null; },
      table() { return h('p', {}, `No drawing for ${ruleset}: the state is below, as JSON.`); },
      panel() { return []; },
    };
  }

  // The drawer of a ruleset for a game of this scenario: `extent(run)` (the
  // table's box from `run.states`, every state the page may show),
  // `table(state, box, ctx)` and `panel(state, ctx)`, where `ctx.facts` are
  // the facts of the decision shown.
  function drawer(ruleset, scenario) {
    SCENARIO = obj(scenario);
    return DRAW[ruleset] || fallback(ruleset);
  }

  return { obj, arr, num, pt, str, put, attrs, h, s, tag, round, dieFace, dieBox, PROOF, drawer };
}());
