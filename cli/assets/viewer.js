// rollcall's replay viewer. It reads the data `rollcall view` embedded (the
// record, and per event the engine's narration, turn, state patch and die
// proof) and draws the table at every step with the shared drawing code
// (board.js, `RollcallBoard`). It never re-decides nor re-folds a fact: the
// states are the engine's, applied as patches.
'use strict';
(function () {
  const { obj, arr, num, str, h, put, tag, dieBox } = RollcallBoard;
  const DATA = JSON.parse(document.getElementById('rollcall-data').textContent);
  const LINES = DATA.record.split('\n').filter((l) => l.length > 0);
  const HEADER = JSON.parse(LINES[0]);
  const COMPARE = DATA.runs.length > 1;

  // ---- states: the engine's patches, applied copy-on-write ----
  function setIn(o, path, i, op) {
    const copy = Object.assign({}, obj(o));
    const key = path[i];
    if (i === path.length - 1) {
      if (op.length > 1) copy[key] = op[1]; else delete copy[key];
    } else {
      copy[key] = setIn(copy[key], path, i + 1, op);
    }
    return copy;
  }
  function applyPatch(state, ops) {
    let out = state;
    for (const op of arr(ops)) {
      const path = arr(op[0]);
      out = path.length === 0 ? op[1] : setIn(out, path, 0, op);
    }
    return out;
  }

  // A decision opens a group of events (its rolls and facts follow); so do a
  // checkpoint (a side's signature) and a reveal (a sealed turn's chain value),
  // which stand between decisions.
  function opensGroup(kind) { return kind === 'decision' || kind === 'checkpoint' || kind === 'reveal'; }

  // A run: the record replayed, or one version of a --diff. events[i] is
  // the event of seq i (events[0] is none: the state before the first).
  function buildRun(run, fromRecord) {
    const events = [null];
    let decision = 0;
    const states = [run.initial];
    arr(run.steps).forEach((st, i) => {
      const ev = Object.assign({}, st);
      if (fromRecord) {
        const line = JSON.parse(LINES[i + 1]);
        ev.seq = line.seq; ev.body = line.body; ev.hash = line.hash; ev.line = LINES[i + 1];
      } else {
        ev.seq = i + 1;
      }
      const body = obj(ev.body);
      ev.decision = decision = num(ev.decision, num(body.number, num(body.decision, decision)));
      events.push(ev);
      states.push(ev.patch ? applyPatch(states[states.length - 1], ev.patch) : states[states.length - 1]);
    });
    return { label: run.label, events, states };
  }
  const RUNS = DATA.runs.map((r) => buildRun(r, !COMPARE));

  // ---- the timeline: stops, each pointing at an event of every run ----
  function lastOfDecision(run) {
    const end = [0];
    run.events.forEach((e, i) => { if (e) end[e.decision] = i; });
    for (let d = 1; d < end.length; d++) if (end[d] === undefined) end[d] = end[d - 1];
    return end;
  }
  const STOPS = [];
  if (!COMPARE) {
    const run = RUNS[0];
    run.events.forEach((e, i) => {
      const next = run.events[i + 1];
      STOPS.push({ at: [i], decisionEnd: !next || opensGroup(next.kind), turn: e ? num(e.turn, 0) : 0, decision: e ? e.decision : 0 });
    });
  } else {
    const ends = RUNS.map(lastOfDecision);
    const count = Math.max(...ends.map((e) => e.length));
    for (let d = 0; d < count; d++) {
      const at = ends.map((e) => e[Math.min(d, e.length - 1)]);
      const e0 = RUNS[0].events[at[0]];
      STOPS.push({ at, decisionEnd: true, turn: e0 ? num(e0.turn, 0) : 0, decision: d });
    }
  }
  const TURN_START = new Map();
  STOPS.forEach((st, i) => { if (st.decisionEnd && st.turn > 0 && !TURN_START.has(st.turn)) TURN_START.set(st.turn, i); });
  const DIVERGENT = new Set(arr(obj(DATA.divergences).decisions));

  // A record seq to the stop that shows it.
  function stopOfSeq(seq) {
    if (!COMPARE) return Math.max(0, Math.min(seq, STOPS.length - 1));
    let decision = 0;
    for (let i = 1; i <= seq && i < LINES.length; i++) {
      const b = obj(JSON.parse(LINES[i]).body);
      decision = num(b.number, num(b.decision, decision));
    }
    return Math.min(decision, STOPS.length - 1);
  }

  // ---- the page ----
  const drawer = RollcallBoard.drawer(DATA.ruleset, HEADER.scenario);
  const EXTENTS = RUNS.map((r) => { try { return drawer.extent(r); } catch (e) { console.error('rollcall view: extent', e); return null; } });
  let pos = 0;
  let playing = null;

  function integrity() {
    const box = document.getElementById('integrity');
    const it = obj(DATA.integrity);
    const mode = DATA.mode === 'open'
      ? 'open seed: every party\'s share is in the header, so anyone can re-draw every die (and a player could have foreseen them)'
      : DATA.mode === 'table' ? 'table dice: rolled by hand and entered with each decision; legal and chained, but the faces are unproven'
        : DATA.mode === 'sealed' ? 'sealed dice: drawn from a server\'s hash chain committed before the game; a turn\'s dice are proven once its value is revealed, and sealed until its turn ends'
          : `seed mode ${str(DATA.mode)}`;
    const save = h('button', { id: 'save-record', title: 'save the embedded record; check it with rollcall verify' }, 'save the record (.jsonl)');
    save.addEventListener('click', () => {
      const a = h('a', { href: URL.createObjectURL(new Blob([DATA.record], { type: 'application/x-ndjson' })), download: `${DATA.game}.jsonl` });
      document.body.append(a); a.click(); a.remove();
    });
    if (it.outcome === 'verified') {
      box.className = 'verified';
      box.append(h('span', { class: 'verdict', id: 'verdict', 'data-verified': 'yes' }, `✔ verified when this page was made (${str(DATA.made_by)}): `),
        `${str(it.events)} events, ${str(it.decisions)} decisions; ${str(it.guarantee)}.`);
    } else {
      box.className = 'failed';
      box.append(h('span', { class: 'verdict', id: 'verdict', 'data-verified': 'no' }, `✘ this record did NOT verify when this page was made (${str(DATA.made_by)}): `),
        `${it.seq !== null && it.seq !== undefined ? 'seq ' + it.seq + ': ' : ''}${str(it.reason)}`);
    }
    const shown = RUNS[0].events.length - 1;
    if (!COMPARE && shown < num(DATA.events, 0)) {
      box.append(h('div', { id: 'cut-short' }, `The page shows the game up to seq ${shown}: seq ${shown + 1} does not fold into it (see above); the record holds ${DATA.events} events.`));
    }
    box.append(h('div', {}, 'head ', h('code', { class: 'hash', id: 'head' }, str(DATA.head)), ' · ', h('span', { id: 'seed-mode', 'data-mode': str(DATA.mode) }, mode), ' ', save));
  }

  function setup() {
    document.getElementById('title').textContent = `${DATA.game} · ${DATA.rules}${COMPARE ? ` · A ${RUNS[0].label} vs B ${RUNS[1].label}` : ''}`;
    document.getElementById('made-by').textContent = `Page made by ${str(DATA.made_by)}; it needs no network.`;
    integrity();
    const main = document.getElementById('panes');
    if (COMPARE) main.classList.add('compare');
    RUNS.forEach((run, i) => {
      const pane = h('section', { class: 'pane', id: `pane-${i}`, 'data-run': i },
        h('h2', {}, COMPARE ? `${i === 0 ? 'A' : 'B'}: ${run.label}` : run.label),
        h('div', { class: 'body' }, h('div', { class: 'table-wrap' }), h('div', { class: 'panel' })),
        h('div', { class: 'step' }), h('details', { class: 'state-json' }, h('summary', {}, 'the state, as JSON'), h('pre', {})));
      pane.querySelector('details.state-json').addEventListener('toggle', show);
      main.append(pane);
    });
    const slider = document.getElementById('slider');
    slider.max = STOPS.length - 1;
    slider.addEventListener('input', () => go(Number(slider.value)));
    const unit = document.getElementById('sel-unit');
    if (COMPARE) unit.querySelector('option[value=event]').disabled = true;
    document.getElementById('btn-first').addEventListener('click', () => go(0));
    document.getElementById('btn-last').addEventListener('click', () => go(STOPS.length - 1));
    document.getElementById('btn-step').addEventListener('click', () => go(next(unit.value, +1)));
    document.getElementById('btn-back').addEventListener('click', () => go(next(unit.value, -1)));
    document.getElementById('btn-forward').addEventListener('click', togglePlay);
    document.getElementById('turn-go').addEventListener('click', jumpToTurn);
    document.getElementById('turn-input').addEventListener('keydown', (e) => { if (e.key === 'Enter') { jumpToTurn(); e.preventDefault(); } });
    const marks = document.getElementById('marks');
    const at = (i) => `${STOPS.length > 1 ? (100 * i) / (STOPS.length - 1) : 0}%`;
    const bms = document.getElementById('bookmarks');
    for (const b of arr(DATA.bookmarks)) {
      const stop = stopOfSeq(num(b.seq, 0));
      marks.append(h('span', { class: 'bookmark', style: `left:${at(stop)}`, title: b.label }));
      const btn = h('button', { class: 'bookmark', 'data-seq': b.seq, title: `seq ${b.seq}` }, `★ ${str(b.label)}`);
      btn.addEventListener('click', () => go(stop));
      bms.append(btn);
    }
    if (COMPARE) {
      for (const d of DIVERGENT) marks.append(h('span', { class: 'divergence', style: `left:${at(Math.min(d, STOPS.length - 1))}`, title: `decision ${d} differs` }));
      const btn = document.getElementById('btn-divergence');
      btn.hidden = false;
      btn.disabled = DIVERGENT.size === 0;
      btn.addEventListener('click', firstDivergence);
      bms.append(h('span', { id: 'diff-summary' }, str(obj(DATA.divergences).summary)));
    }
    document.addEventListener('keydown', key);
  }

  function next(unitName, dir) {
    const ok = unitName === 'turn' ? (i) => [...TURN_START.values()].includes(i)
      : unitName === 'decision' ? (i) => STOPS[i].decisionEnd : () => true;
    for (let i = pos + dir; i >= 0 && i < STOPS.length; i += dir) if (ok(i)) return i;
    return dir > 0 ? STOPS.length - 1 : 0;
  }
  function jumpToTurn() {
    const input = document.getElementById('turn-input');
    const t = Number(input.value);
    if (TURN_START.has(t)) { input.setCustomValidity(''); go(TURN_START.get(t)); }
    else { input.setCustomValidity(`no turn ${input.value}`); input.reportValidity(); }
  }
  function firstDivergence() { if (DIVERGENT.size) go(Math.min(Math.min(...DIVERGENT), STOPS.length - 1)); }
  function togglePlay() {
    const btn = document.getElementById('btn-forward');
    if (playing) { clearInterval(playing); playing = null; btn.textContent = '▶▶ forward'; return; }
    btn.textContent = '■ pause';
    playing = setInterval(() => {
      if (pos >= STOPS.length - 1) { togglePlay(); return; }
      go(next(document.getElementById('sel-unit').value, +1));
    }, 700);
  }
  function key(e) {
    if (e.target && (e.target.tagName === 'INPUT' && e.target.type !== 'range' || e.target.tagName === 'SELECT')) return;
    const unit = document.getElementById('sel-unit').value;
    const keys = {
      ArrowRight: () => go(next(unit, +1)), ArrowLeft: () => go(next(unit, -1)),
      n: () => go(next('decision', +1)), p: () => go(next('decision', -1)),
      ']': () => go(next('turn', +1)), '[': () => go(next('turn', -1)),
      Home: () => go(0), End: () => go(STOPS.length - 1), ' ': togglePlay,
      t: () => document.getElementById('turn-input').focus(),
      d: firstDivergence,
      b: () => {
        const stops = arr(DATA.bookmarks).map((b) => stopOfSeq(num(b.seq, 0))).sort((x, y) => x - y);
        const after = stops.find((i) => i > pos);
        if (stops.length) go(after !== undefined ? after : stops[0]);
      },
    };
    const f = keys[e.key];
    if (f && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); f(); }
  }

  function go(i) {
    pos = Math.max(0, Math.min(STOPS.length - 1, i));
    show();
  }

  // The events of the decision shown at event index `at`: from its decision event to its last.
  function decisionAround(run, at) {
    if (at <= 0) return [];
    let start = at;
    while (start > 1 && !opensGroup(run.events[start].kind)) start--;
    let end = start;
    while (end + 1 < run.events.length && !opensGroup(run.events[end + 1].kind)) end++;
    return run.events.slice(start, end + 1);
  }
  function turnAround(run, at) {
    const turn = at > 0 ? run.events[at].turn : 0;
    let start = Math.max(at, 1);
    while (start > 1 && run.events[start - 1].turn === turn) start--;
    let end = Math.max(at, 1);
    while (end + 1 < run.events.length && run.events[end + 1].turn === turn) end++;
    return run.events.slice(start, end + 1);
  }
  function lineItem(ev, at) {
    const cls = [ev.seq === at ? 'current' : '', ev.seq > at ? 'later' : '', ev.refused ? 'refused' : ''].filter(Boolean).join(' ');
    return h('li', { class: cls || null, 'data-seq': ev.seq, 'data-kind': ev.kind, title: ev.hash ? `seq ${ev.seq} · hash ${ev.hash}` : `event ${ev.seq} of this run` }, ev.text);
  }
  function parseFacts(events, at) {
    return events.filter((e) => e.kind === 'fact' && e.seq <= at).map((e) => obj(obj(e.body).fact));
  }

  function showPane(i) {
    const run = RUNS[i];
    const at = STOPS[pos].at[i];
    const state = obj(run.states[at]);
    const pane = document.getElementById(`pane-${i}`);
    const events = decisionAround(run, at);
    const ctx = { facts: parseFacts(events, at), events };
    pane.classList.toggle('diverges', COMPARE && DIVERGENT.has(STOPS[pos].decision));
    const wrap = pane.querySelector('.table-wrap');
    const panel = pane.querySelector('.panel');
    try {
      put(wrap.replaceChildren() || wrap, drawer.table(state, EXTENTS[i], ctx));
      put(panel.replaceChildren() || panel, drawer.panel(state, ctx));
    } catch (e) {
      console.error('rollcall view: drawing', e);
      wrap.replaceChildren(h('p', {}, `This state could not be drawn (${e}); it is below, as JSON.`));
      pane.querySelector('details.state-json').open = true;
    }
    const step = pane.querySelector('.step');
    const head = at === 0
      ? h('p', { class: 'where' }, 'Before the first decision: the table as the scenario sets it up.')
      : h('p', { class: 'where' }, COMPARE ? `decision ${STOPS[pos].decision}` : `seq ${at} · ${run.events[at].kind} · hash `,
        COMPARE ? '' : h('code', { class: 'hash' }, str(run.events[at].hash)));
    const dice = events.filter((e) => e.kind === 'roll');
    const refused = events.find((e) => e.refused);
    put(step.replaceChildren() || step, head,
      h('h3', {}, 'This step'), h('ul', { class: 'lines narrative' }, events.map((e) => lineItem(e, at))),
      refused ? h('p', { class: 'refused' }, tag('refused under this version', 'bad'), ' ', str(refused.refused)) : null,
      dice.length ? h('h3', {}, 'Dice') : null, dice.length ? h('div', { class: 'dice' }, dice.map((e) => dieBox(e, e.seq > at))) : null,
      h('h3', {}, `This turn`), h('ul', { class: 'lines log' }, turnAround(run, at).map((e) => lineItem(e, at))));
    const log = step.querySelector('.log');
    const cur = log.querySelector('.current');
    if (cur) log.scrollTop = Math.max(0, cur.offsetTop - log.offsetTop - 60);
    if (!COMPARE && run.events[at] && run.events[at].line) step.append(h('details', {}, h('summary', {}, 'the record line'), h('pre', { class: 'record-line' }, run.events[at].line)));
    const details = pane.querySelector('details.state-json');
    if (details.open) details.querySelector('pre').textContent = JSON.stringify(state, null, 1);
  }

  function show() {
    const st = STOPS[pos];
    document.getElementById('slider').value = pos;
    const p = document.getElementById('pos');
    p.dataset.stop = pos;
    p.dataset.turn = st.turn;
    p.dataset.decision = st.decision;
    if (!COMPARE) p.dataset.seq = st.at[0];
    p.textContent = COMPARE
      ? `decision ${st.decision} of ${STOPS.length - 1} · turn ${st.turn}${DIVERGENT.has(st.decision) ? ' · ⚠ the versions part here' : ''}`
      : `seq ${st.at[0]} of ${STOPS.length - 1} · decision ${st.decision} · turn ${st.turn}`;
    for (let i = 0; i < RUNS.length; i++) showPane(i);
    document.getElementById('btn-first').disabled = pos === 0;
    document.getElementById('btn-back').disabled = pos === 0;
    document.getElementById('btn-step').disabled = pos === STOPS.length - 1;
    document.getElementById('btn-last').disabled = pos === STOPS.length - 1;
  }

  setup();
  const start = /^#seq=(\d+)$/.exec(location.hash);
  go(start ? stopOfSeq(Number(start[1])) : 0);
  document.body.dataset.ready = 'yes';
}());
