// rollcall's play page: a side plays a game on the dice server from here.
// Everything comes from the server's own routes: the game (`GET
// /games/{id}`), its state and narrative, and the decisions legal now for
// the side whose token the page holds (`GET /games/{id}/moves`), whose forms
// are built from the listing's field descriptions, so the page knows no
// ruleset. A decision is sent on the head the listing was made on; the answer
// is shown as the server gives it. The table is drawn by the viewer's code
// (board.js). The page learns that the game moved from the server's stream
// of heads (`GET /games/{id}/heads`).
//
// The token is typed once and kept in this tab's session storage: it goes
// into no URL, and only to this server, in an Authorization header.
'use strict';
(function () {
  const B = RollcallBoard;
  const { obj, arr, num, str, h, tag, dieFace } = B;
  const DATA = JSON.parse(document.getElementById('rollcall-data').textContent);
  const GAME = str(DATA.game);
  const BASE = `/games/${encodeURIComponent(GAME)}`;
  const KEY = `rollcall-token:${GAME}`;
  const $ = (id) => document.getElementById(id);

  // What the page knows of the game, as the server last said it.
  const S = {
    token: null,
    status: null,
    header: null,
    ruleset: '',
    drawer: null,
    initial: null,
    state: null,
    events: [],
    listing: null,
    batch: [],
    busy: false,
    ended: false,
    answers: 0,
  };

  // ---- the server ----
  // A request to the game's routes: {status, body}; status 0 when the
  // server did not answer. The token goes only where it is needed.
  async function call(method, path, body, withToken) {
    const headers = {};
    if (withToken && S.token) headers.Authorization = `Bearer ${S.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (e) {
      return { status: 0, body: { error: 'no-answer', message: `the server did not answer (${e.message})` } };
    }
    const text = await response.text();
    let parsed;
    try { parsed = JSON.parse(text); } catch (e) { parsed = { error: 'not-json', message: text }; }
    return { status: response.status, body: parsed };
  }

  function notice(text) {
    const box = $('notice');
    box.hidden = !text;
    box.textContent = text || '';
  }

  // ---- the token ----
  function askForToken(error) {
    $('play').hidden = true;
    $('sign-in').hidden = false;
    $('token-error').textContent = error || '';
    $('token').setAttribute('aria-invalid', error ? 'true' : 'false');
    $('token').focus();
    whereLine();
  }

  // Checks a token with the server (the moves route says whose it is, and
  // refuses one that is no side's of this game); keeps it when it is good.
  async function signIn(token) {
    S.token = token;
    const answer = await call('GET', '/moves', undefined, true);
    if (answer.status === 401 || answer.status === 400) {
      forget();
      askForToken(`This token is not a token of game ${GAME}: ${str(obj(answer.body).message)}. Check the token the organiser gave your side.`);
      return false;
    }
    if (answer.status === 0) {
      S.token = null;
      askForToken(`The server did not answer: ${str(obj(answer.body).message)}.`);
      return false;
    }
    sessionStorage.setItem(KEY, token);
    $('sign-in').hidden = true;
    $('play').hidden = false;
    await refresh();
    return true;
  }

  function forget() {
    S.token = null;
    S.listing = null;
    S.batch = [];
    sessionStorage.removeItem(KEY);
    $('moves').replaceChildren();
    $('moves').dataset.head = '';
    $('answer').replaceChildren();
    renderBatch();
  }

  // ---- reading the game ----
  let refreshing = null;
  let again = false;
  // Reads the game again; a call while a read is under way asks for one more after it.
  async function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      do { again = false; await load(); } while (again);
    })();
    try { await refreshing; } finally { refreshing = null; }
  }

  async function load() {
    const status = await call('GET', '');
    if (status.status !== 200) { notice(`The game could not be read: ${str(obj(status.body).message)}`); return; }
    S.status = status.body;
    if (S.status.status === 'waiting for shares') {
      notice(`Game ${GAME} has not begun: it waits for the seed shares of ${arr(S.status.sides).map((x) => obj(x).name).filter((n) => !arr(S.status.shares_given).includes(n)).join(', ')}. This page follows it and goes on by itself when it begins.`);
      whereLine();
      return;
    }
    notice('');
    S.ended = S.status.status === 'ended';
    if (!S.header) {
      S.header = obj(S.status.header);
      S.ruleset = str(obj(S.header.rules).version).split('@')[0];
      S.drawer = B.drawer(S.ruleset, S.header.scenario);
      const initial = await call('GET', '/state?at=0');
      S.initial = obj(obj(initial.body).state);
    }
    await loadEvents();
    const state = await call('GET', '/state');
    if (state.status === 200) S.state = state.body;
    if (S.token) {
      const moves = await call('GET', '/moves', undefined, true);
      if (moves.status === 401) { forget(); askForToken(`The server no longer takes this tab's token: ${str(obj(moves.body).message)}.`); return; }
      if (moves.status === 200) S.listing = moves.body;
    }
    // Read between two moves of the game: once more.
    if (S.listing && S.state && S.listing.head !== S.state.head) again = true;
    render();
  }

  async function loadEvents() {
    let since = S.events.length ? S.events[S.events.length - 1].seq + 1 : 1;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await call('GET', `/events?since=${since}&limit=1000`);
      if (page.status !== 200) return;
      for (const e of arr(page.body.events)) if (e.seq >= since) S.events.push(e);
      if (page.body.next === null || page.body.next === undefined) return;
      since = page.body.next;
    }
  }

  // ---- drawing the page ----
  function whereLine() {
    const box = $('where');
    const st = obj(S.status);
    const me = S.listing && S.listing.side ? h('span', { class: 'me', id: 'my-side', 'data-side': S.listing.side }, `You play ${S.listing.side}.`) : null;
    const rules = S.header ? str(obj(S.header.rules).version) : '';
    const sealed = obj(st.sealed);
    box.replaceChildren(
      me, me ? ' ' : null,
      S.state ? `Turn ${num(S.state.turn, 0)} · ${num(S.state.decisions, 0)} decisions · seq ${num(S.state.seq, 0)}` : '',
      S.ended ? ' · the game has ended' : sealed.turn ? ` · sealed turn ${sealed.turn}: its dice are sealed until the turn ends` : '');
    $('title').textContent = rules ? `${GAME} · ${rules}` : GAME;
  }

  function render() {
    whereLine();
    renderBoard();
    renderAwaited();
    renderMoves();
    renderBatch();
    renderNarrative();
    $('end-game').disabled = S.ended || !S.token;
    document.body.dataset.head = S.listing ? S.listing.head : '';
    document.body.dataset.seq = S.state ? String(S.state.seq) : '';
  }

  // The facts of the last decision, for the drawing (a range, an activation).
  function lastFacts() {
    let i = S.events.length - 1;
    while (i >= 0 && S.events[i].kind !== 'decision') i--;
    return S.events.slice(Math.max(i, 0)).filter((e) => e.kind === 'fact').map((e) => obj(obj(e.body).fact));
  }

  function renderBoard() {
    if (!S.state || !S.drawer) return;
    const state = obj(S.state.state);
    const wrap = document.querySelector('#board .table-wrap');
    const panel = document.querySelector('#state .panel');
    const ctx = { facts: lastFacts(), events: [] };
    try {
      const box = S.drawer.extent({ states: [S.initial || state, state] });
      wrap.replaceChildren(S.drawer.table(state, box, ctx));
      panel.replaceChildren(...arr(S.drawer.panel(state, ctx)));
    } catch (e) {
      console.error('rollcall play: drawing', e);
      wrap.replaceChildren(h('pre', { class: 'state-text' }, str(S.state.text)));
    }
  }

  function renderAwaited() {
    const box = $('awaited');
    const L = S.listing;
    box.className = '';
    if (S.ended) { box.textContent = 'The game has ended: nothing more may be decided.'; box.dataset.awaited = 'ended'; return; }
    if (!L) { box.textContent = ''; return; }
    box.dataset.awaited = L.awaited;
    if (L.awaited === L.side) { box.className = 'mine'; box.textContent = `Your decision (${L.side}).`; }
    else if (L.awaited === 'referee') box.textContent = 'The game awaits the referee\'s input: either side may enter it.';
    else box.textContent = `Waiting for ${L.awaited}: their decisions appear here as they are made.`;
  }

  function renderNarrative() {
    const list = $('narrative');
    const shown = list.children.length;
    if (shown > S.events.length) list.replaceChildren();
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
    for (const e of S.events.slice(list.children.length)) {
      list.append(h('li', { 'data-seq': e.seq, 'data-kind': e.kind, title: `seq ${e.seq} · hash ${str(e.hash)}` }, str(e.narrative)));
    }
    if (atBottom || shown === 0) list.scrollTop = list.scrollHeight;
  }

  // ---- the decisions legal now ----
  function renderMoves() {
    const box = $('moves');
    const L = S.listing;
    if (!L || S.ended) { box.replaceChildren(); box.dataset.head = ''; return; }
    // The same listing keeps what the player has typed.
    if (box.dataset.head === L.head && box.dataset.side === str(L.side)) return;
    box.dataset.head = L.head;
    box.dataset.side = str(L.side);
    const groups = arr(L.groups);
    if (!groups.length) { box.replaceChildren(h('p', {}, 'Nothing for you to decide now.')); return; }
    // Open: the awaited party's groups of one-click decisions (begin a turn,
    // activate, end an activation); the rest, behind their heading.
    const awaited = (g) => (g.referee ? L.awaited === 'referee' : L.awaited === L.side);
    box.replaceChildren(...groups.map((g) => {
      const open = groups.length === 1 || (awaited(g) && arr(g.entries).every((e) => !arr(e.fields).length));
      const d = h('details', { class: 'group' + (g.referee ? ' referee' : ''), 'data-type': str(g.type), open: open ? '' : null },
        h('summary', {}, `${str(g.title)} (${arr(g.entries).length})`));
      for (const e of arr(g.entries)) d.append(entryForm(e));
      return d;
    }));
  }

  function targetWords(t) {
    const roll = str(t.roll);
    const on = /^\d/.test(roll) ? roll : `a ${roll}`;
    if (t.passes === 'at-most') return `${t.needed} or less on ${on}`;
    if (t.passes === 'under') return `under ${t.needed} on ${on}`;
    return `${t.needed}+ on ${on}`;
  }
  function diceWords(d) {
    const [a, b] = [num(d.min, 0), num(d.max, 0)];
    const count = a === 1 && b === 1 ? '' : a === b ? `${a} × ` : a === 0 && b === 1 ? 'maybe ' : a === 0 ? `up to ${b} × ` : `${a}–${b} × `;
    return `${count}${str(d.label)} ${str(d.die)}`;
  }
  function knownTags(e) {
    const out = [];
    if (e.range) {
      const r = obj(e.range);
      out.push(tag(`range ${r.distance} of ${r.limit} ${str(r.unit)}`, num(r.distance, 0) <= num(r.limit, 0) ? 'ok' : 'bad'));
    }
    if (e.cost) {
      const c = obj(e.cost);
      out.push(tag(`costs ${c.amount} ${str(c.unit)}${c.left !== undefined && c.left !== null ? `, ${c.left} left` : ''}`, 'warn'));
    }
    for (const t of arr(e.targets)) out.push(tag(`${str(t.what)}: ${targetWords(t)}`));
    for (const d of arr(e.dice)) out.push(tag(`draws ${diceWords(d)}`));
    if (e.referee) out.push(tag('the referee\'s input'));
    return out;
  }

  function entryForm(e) {
    const id = `entry-${e.n}`;
    const fields = arr(e.fields);
    const widgets = fields.map((f, i) => fieldWidget(obj(f), `${id}-f${i}`));
    const form = h('form', { class: 'entry', id, 'data-n': e.n, 'data-type': str(obj(e.decision).type), 'data-pick': str(e.pick), 'aria-labelledby': `${id}-says`, novalidate: '' },
      h('p', { class: 'says', id: `${id}-says` }, str(e.says)),
      h('div', { class: 'known' }, knownTags(e)),
      widgets.length ? h('div', { class: 'fields' }, widgets.map((w) => w.el)) : null,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary send', 'aria-describedby': `${id}-says` }, 'Send'),
        h('button', { type: 'button', class: 'queue', 'aria-describedby': `${id}-says` }, 'Add to the batch')));
    const read = () => {
      const decision = Object.assign({}, obj(e.decision));
      fields.forEach((f, i) => { const v = widgets[i].read(); if (v !== undefined) decision[f.name] = v; });
      return decision;
    };
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const decision = readForm(read);
      if (decision) send([decision], [str(e.says)]);
    });
    form.querySelector('.queue').addEventListener('click', () => {
      const decision = readForm(read);
      if (decision) { S.batch.push({ decision, says: str(e.says) }); renderBatch(); }
    });
    return form;
  }

  // A value the player must mend: the control to mark, and why.
  function FieldError(input, message) { this.input = input; this.message = message; }
  function readForm(read) {
    try { return read(); } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      const input = err.input;
      input.setCustomValidity(err.message);
      input.setAttribute('aria-invalid', 'true');
      input.reportValidity();
      const mend = () => { input.setCustomValidity(''); input.removeAttribute('aria-invalid'); };
      input.addEventListener('input', mend, { once: true });
      input.addEventListener('change', mend, { once: true });
      return null;
    }
  }

  // ---- fields, from the listing's descriptions (moves::form) ----
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  // A field's name, what it holds (`hint`), whether it may be left out, and what it is for.
  function labelFor(forId, f, hint) {
    return h('label', { for: forId }, str(f.name), hint ? ` (${hint})` : '', f.required ? '' : ' — may be left out', h('span', { class: 'about' }, str(f.about)));
  }
  function legendOf(f, hint) {
    return h('legend', {}, str(f.name), hint ? ` (${hint})` : '', f.required ? '' : ' — may be left out', h('span', { class: 'about' }, str(f.about)));
  }
  function isInteger(text) { return /^-?\d+$/.test(text.trim()); }

  // A field: {el, read()}; read() gives its value, undefined when it is
  // left out, or throws a FieldError.
  function fieldWidget(f, id) {
    const shape = obj(f.shape);
    const example = f.example === null ? undefined : f.example;
    const optional = !f.required;
    const kinds = {
      text: () => {
        const input = h('input', { id, type: 'text', value: typeof example === 'string' ? example : '', autocomplete: 'off' });
        return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': 'text' }, labelFor(id, f), input), read: () => {
          const v = input.value;
          if (v === '') { if (optional) return undefined; throw new FieldError(input, `${f.name}: write something`); }
          if (/[\u0000-\u001f\u007f]/.test(v)) throw new FieldError(input, `${f.name}: no control characters`);
          return v;
        } };
      },
      flag: () => {
        const input = h('input', { id, type: 'checkbox', checked: example === true ? '' : null });
        return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': 'flag' }, h('span', { class: 'choice' }, input, labelFor(id, f))), read: () => {
          if (optional && !input.checked && example === undefined) return undefined;
          return input.checked;
        } };
      },
      integer: () => {
        const input = h('input', { id, type: 'number', step: 1, min: shape.min, max: shape.max, inputmode: 'numeric', value: typeof example === 'number' ? example : '' });
        const hint = `a whole number${shape.unit ? ` of ${shape.unit}` : ''}`;
        return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': 'integer' }, labelFor(id, f, hint), input), read: () => {
          const v = input.value.trim();
          if (v === '') { if (optional) return undefined; throw new FieldError(input, `${f.name}: a whole number`); }
          if (!isInteger(v)) throw new FieldError(input, `${f.name}: a whole number`);
          const n = Number(v);
          if (n < num(shape.min, -Infinity) || n > num(shape.max, Infinity)) throw new FieldError(input, `${f.name}: from ${shape.min} to ${shape.max}`);
          return n;
        } };
      },
      point: () => {
        const at = Array.isArray(example) ? example : [];
        const x = h('input', { id: `${id}-x`, type: 'number', step: 1, inputmode: 'numeric', value: at.length ? at[0] : '' });
        const y = h('input', { id: `${id}-y`, type: 'number', step: 1, inputmode: 'numeric', value: at.length ? at[1] : '' });
        const unit = str(shape.unit);
        const el = h('fieldset', { class: 'field', 'data-field': f.name, 'data-kind': 'point' }, legendOf(f, `a point in ${unit}`),
          h('div', { class: 'pair' }, h('span', {}, h('label', { for: `${id}-x` }, `x (${unit})`), x), h('span', {}, h('label', { for: `${id}-y` }, `y (${unit})`), y)));
        return { el, read: () => {
          const [a, b] = [x.value.trim(), y.value.trim()];
          if (a === '' && b === '' && optional) return undefined;
          if (!isInteger(a)) throw new FieldError(x, `${f.name}: x is a whole number of ${unit}`);
          if (!isInteger(b)) throw new FieldError(y, `${f.name}: y is a whole number of ${unit}`);
          return [Number(a), Number(b)];
        } };
      },
      hex: () => {
        const input = h('input', { id, type: 'text', inputmode: 'numeric', maxlength: 4, pattern: '[0-9]{4}', placeholder: 'CCRR', value: typeof example === 'string' ? example : '', autocomplete: 'off' });
        return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': 'hex' }, labelFor(id, f, 'a hex: four digits, column then row'), input), read: () => {
          const v = input.value.trim();
          if (v === '' && optional) return undefined;
          if (!/^\d{4}$/.test(v)) throw new FieldError(input, `${f.name}: four digits, column then row (0304)`);
          return v;
        } };
      },
      'one-of': () => {
        const choices = arr(shape.choices);
        const select = h('select', { id });
        if (optional) select.append(h('option', { value: '' }, '(leave it out)'));
        choices.forEach((c, i) => select.append(h('option', { value: String(i), selected: same(c.value, example) ? '' : null }, str(c.label))));
        if (optional && example === undefined) select.value = '';
        return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': 'one-of' }, labelFor(id, f), select), read: () => {
          if (select.value === '') { if (optional) return undefined; throw new FieldError(select, `${f.name}: choose one`); }
          return choices[Number(select.value)].value;
        } };
      },
      'some-of': () => {
        const choices = arr(shape.choices);
        const chosen = arr(example);
        const boxes = choices.map((c, i) => h('input', { id: `${id}-${i}`, type: 'checkbox', checked: chosen.some((v) => same(v, c.value)) ? '' : null }));
        const [min, max] = [num(shape.min, 0), num(shape.max, choices.length)];
        const el = h('fieldset', { class: 'field', 'data-field': f.name, 'data-kind': 'some-of' }, legendOf(f, `choose ${min === max ? min : `${min} to ${max}`}`),
          choices.map((c, i) => h('span', { class: 'choice' }, boxes[i], h('label', { for: `${id}-${i}` }, str(c.label)))));
        return { el, read: () => {
          const values = choices.filter((c, i) => boxes[i].checked).map((c) => c.value);
          if (!values.length && optional) return undefined;
          if (values.length < min || values.length > max) throw new FieldError(boxes[0] || el, `${f.name}: choose ${min === max ? min : `${min} to ${max}`}`);
          return values;
        } };
      },
      'each-of': () => {
        const keys = arr(shape.keys);
        const given = obj(example);
        const rows = keys.map((k, i) => {
          const box = h('input', { id: `${id}-${i}`, type: 'checkbox', checked: Object.prototype.hasOwnProperty.call(given, k.value) ? '' : null });
          const inner = fieldWidget({ name: `${str(k.value)}`, about: `${str(f.name)} of ${str(k.label)}`, shape: shape.value, required: true, example: given[k.value] }, `${id}-${i}-v`);
          return { key: k.value, box, inner, el: h('div', { class: 'item' }, h('span', { class: 'choice' }, box, h('label', { for: `${id}-${i}` }, str(k.label))), inner.el) };
        });
        const el = h('fieldset', { class: 'field', 'data-field': f.name, 'data-kind': 'each-of' }, legendOf(f), rows.map((r) => r.el));
        return { el, read: () => {
          const out = {};
          for (const r of rows) if (r.box.checked) out[r.key] = r.inner.read();
          if (!Object.keys(out).length && optional) return undefined;
          return out;
        } };
      },
      'list-of': () => listWidget(f, shape, id, example, optional),
      dice: () => {
        const given = obj(example);
        const labels = arr(shape.dice).map((d) => str(d.label));
        for (const l of Object.keys(given)) if (!labels.includes(l)) labels.push(l);
        const inputs = labels.map((l, i) => h('input', { id: `${id}-${i}`, type: 'text', inputmode: 'numeric', value: arr(given[l]).join(', '), autocomplete: 'off' }));
        const el = h('fieldset', { class: 'field', 'data-field': f.name, 'data-kind': 'dice' }, legendOf(f),
          labels.map((l, i) => h('div', {}, h('label', { for: `${id}-${i}` }, `${l}: the faces rolled, in order, comma-separated`), inputs[i])));
        return { el, read: () => {
          const out = {};
          labels.forEach((l, i) => {
            const parts = inputs[i].value.split(',').map((x) => x.trim()).filter((x) => x !== '');
            if (parts.some((x) => !/^\d+$/.test(x))) throw new FieldError(inputs[i], `${l}: faces are whole numbers, comma-separated`);
            if (parts.length) out[l] = parts.map(Number);
          });
          return out;
        } };
      },
      json: () => jsonWidget(f, id, example, optional, 'json'),
    };
    const make = kinds[shape.kind] || (() => jsonWidget(f, id, example, optional, str(shape.kind)));
    return make();
  }

  function jsonWidget(f, id, example, optional, kind) {
    const area = h('textarea', { id, spellcheck: 'false', rows: 3 });
    area.value = example === undefined ? '' : JSON.stringify(example);
    return { el: h('div', { class: 'field', 'data-field': f.name, 'data-kind': kind }, labelFor(id, f, 'JSON'), area), read: () => {
      const v = area.value.trim();
      if (v === '') { if (optional) return undefined; throw new FieldError(area, `${f.name}: write its JSON`); }
      try { return JSON.parse(v); } catch (e) { throw new FieldError(area, `${f.name}: not JSON (${e.message})`); }
    } };
  }

  // A list of items, each of one of the forms: its fixed members and its own fields.
  function listWidget(f, shape, id, example, optional) {
    const forms = arr(shape.forms).map(obj);
    const list = h('div', { class: 'items' });
    const items = [];
    let made = 0;
    const formOf = (item) => forms.findIndex((fm) => Object.entries(obj(fm.item)).every(([k, v]) => same(obj(item)[k], v)));
    function add(index, value) {
      const fm = forms[index];
      const itemId = `${id}-i${made++}`;
      const widgets = arr(fm.fields).map((x, j) => fieldWidget(Object.assign({}, obj(x), { example: value && obj(value)[x.name] !== undefined ? obj(value)[x.name] : obj(x).example }), `${itemId}-f${j}`));
      const remove = h('button', { type: 'button', class: 'remove' }, 'Remove');
      const el = h('div', { class: 'item', 'data-form': index }, h('p', {}, str(fm.says)), widgets.map((w) => w.el), remove);
      const entry = { fm, widgets, el };
      remove.addEventListener('click', () => { items.splice(items.indexOf(entry), 1); el.remove(); });
      items.push(entry);
      list.append(el);
    }
    for (const item of arr(example)) { const i = formOf(item); if (i >= 0) add(i, item); }
    const pick = h('select', { id: `${id}-form`, 'aria-label': `${str(f.name)}: the kind of item to add` }, forms.map((fm, i) => h('option', { value: String(i) }, str(fm.says))));
    const addButton = h('button', { type: 'button', class: 'add' }, 'Add');
    addButton.addEventListener('click', () => add(Number(pick.value)));
    const el = h('fieldset', { class: 'field', 'data-field': f.name, 'data-kind': 'list-of' }, legendOf(f), list, h('div', { class: 'actions' }, pick, addButton));
    return { el, read: () => {
      const values = items.map(({ fm, widgets }) => {
        const item = Object.assign({}, obj(fm.item));
        arr(fm.fields).forEach((x, j) => { const v = widgets[j].read(); if (v !== undefined) item[x.name] = v; });
        return item;
      });
      if (!values.length && optional) return undefined;
      const [min, max] = [num(shape.min, 0), num(shape.max, Infinity)];
      if (values.length < min || values.length > max) throw new FieldError(pick, `${f.name}: ${min === max ? min : `${min} to ${max}`} items`);
      if (shape.once) {
        const seen = values.map((v) => JSON.stringify(v[shape.once])).filter((v) => v !== undefined);
        if (new Set(seen).size !== seen.length) throw new FieldError(pick, `${f.name}: one item per ${shape.once}`);
      }
      return values;
    } };
  }

  // ---- the batch: several decisions sent in one request, played in order ----
  function renderBatch() {
    const box = $('batch');
    box.hidden = S.batch.length === 0;
    $('batch-list').replaceChildren(...S.batch.map((b, i) => {
      const remove = h('button', { type: 'button', class: 'remove', 'aria-label': `remove decision ${i + 1} of the batch` }, 'Remove');
      remove.addEventListener('click', () => { S.batch.splice(i, 1); renderBatch(); });
      return h('li', { 'data-type': str(obj(b.decision).type) }, `${b.says} `, h('code', {}, JSON.stringify(b.decision)), ' ', remove);
    }));
    $('batch-send').textContent = `Send the batch (${S.batch.length} decision${S.batch.length === 1 ? '' : 's'})`;
  }

  // ---- sending ----
  async function send(decisions, says) {
    if (S.busy || !S.listing) return;
    S.busy = true;
    document.body.dataset.busy = 'yes';
    for (const b of document.querySelectorAll('#decide button')) b.disabled = true;
    const body = decisions.length === 1
      ? { expected_head: S.listing.head, decision: decisions[0] }
      : { expected_head: S.listing.head, decisions };
    const answer = await call('POST', '/decisions', body, true);
    if (answer.status === 200 && decisions.length > 1) { S.batch = []; }
    showAnswer(answer, decisions, says);
    S.busy = false;
    for (const b of document.querySelectorAll('#decide button')) b.disabled = false;
    if (answer.status === 401) { forget(); askForToken(`The server refused this tab's token: ${str(obj(answer.body).message)}.`); }
    // A refused decision is still on the page, to mend; a written one is gone with the listing it came from.
    if (answer.status === 200) $('moves').dataset.head = '';
    await refresh();
    delete document.body.dataset.busy;
  }

  function describe(decisions, says, i) {
    return decisions.length > 1 ? `decision ${i + 1} of the batch (${says[i]})` : `“${says[0]}”`;
  }

  // The server's answer to decisions sent, as it gives it.
  function showAnswer(answer, decisions, says) {
    const box = $('answer');
    const body = obj(answer.body);
    box.dataset.status = String(answer.status);
    box.dataset.answers = String(++S.answers);
    if (answer.status === 200) {
      const events = arr(body.events);
      const complete = body.complete !== false;
      box.className = complete ? 'written' : 'partly';
      box.dataset.outcome = complete ? 'written' : 'partly';
      box.dataset.written = String(num(body.written, 0));
      const head = obj(body.head);
      const verdict = complete
        ? `Written: ${decisions.length > 1 ? `all ${decisions.length} decisions` : describe(decisions, says, 0)}, up to seq ${head.seq}; the server signed the new head.`
        : `${num(body.written, 0)} of ${decisions.length} decisions written, up to seq ${head.seq}.`;
      const parts = [h('p', { class: 'verdict' }, verdict)];
      if (!complete) {
        const refused = obj(body.refused);
        const i = num(refused.index, 0);
        parts.push(h('p', { class: 'refusal', role: 'alert', 'data-error': str(refused.error), 'data-index': i },
          `Then ${describe(decisions, says, i)} was refused (${str(refused.status)} ${str(refused.error)}): ${str(refused.message)}`,
          refused.refusal ? ` — ${str(obj(refused.refusal).about)}` : '',
          ' The decisions before it drew dice, so they stand, written and signed; nothing after them was written.'));
      }
      parts.push(eventsShown(events));
      box.replaceChildren(...parts);
      return;
    }
    box.className = 'refused';
    box.dataset.outcome = 'refused';
    box.dataset.written = '0';
    const why = {
      400: 'It is malformed',
      401: 'The token was refused',
      403: 'It is not your side\'s to make',
      404: 'There is no such game',
      409: body.error === 'stale-head' ? 'The game moved on before it reached the server' : 'The game cannot take it',
      413: 'It is too large',
      422: 'The rules refuse it',
    }[answer.status] || (answer.status === 0 ? 'The server did not answer' : `The server refused it (${answer.status})`);
    const written = answer.status === 0
      ? 'Whether it was written is unknown: the page reads the game again.'
      : 'Nothing was written.';
    const stale = body.error === 'stale-head' ? ' The decisions below are as of the game\'s new head.' : '';
    box.replaceChildren(
      h('p', { class: 'verdict refusal', role: 'alert', 'data-error': str(body.error) }, `Refused: ${decisions.length > 1 ? `the batch of ${decisions.length}` : describe(decisions, says, 0)}. ${why}: ${str(body.message)}`),
      body.refusal ? h('p', {}, tag(str(obj(body.refusal).kind), 'bad'), ' ', str(obj(body.refusal).about)) : null,
      h('p', {}, written + stale));
  }

  // Events written, in words; dice with their faces; a turn's reveal.
  function eventsShown(events) {
    const revealed = events.filter((e) => e.kind === 'reveal').map((e) => obj(e.body));
    const covered = (d) => revealed.some((r) => num(r.first, 0) <= d && d <= num(r.last, -1));
    const lines = h('ul', { class: 'written-events' });
    const dice = h('div', { class: 'dice' });
    for (const e of events) {
      const b = obj(e.body);
      if (e.kind === 'roll') {
        const proof = covered(num(b.decision, 0)) ? 'revealed' : 'sealed';
        dice.append(h('div', { class: 'die', 'data-seq': e.seq, 'data-die': str(b.die), 'data-value': str(b.value), 'data-label': str(b.label), 'data-proof': proof,
          title: `${str(b.die)} at address (${num(b.decision, 0)}, ${str(b.label)}, ${num(b.index, 0)})` },
        dieFace(str(b.die), b.value, 26), h('span', {}, `${str(b.label)} #${num(b.index, 0)}: ${str(b.value)}`),
        h('span', { class: 'proof proof-' + proof }, proof === 'sealed' ? 'sealed until its turn ends' : 'revealed: verify proves it')));
      }
      if (e.kind === 'reveal') {
        lines.append(h('li', { class: 'reveal-note', 'data-kind': 'reveal', 'data-turn': str(b.turn) },
          `Sealed turn ${str(b.turn)} is over: the server revealed its chain value, so every die of decisions ${str(b.first)}–${str(b.last)} can now be checked (rollcall verify).`));
      } else {
        lines.append(h('li', { 'data-kind': e.kind, 'data-seq': e.seq }, str(e.narrative)));
      }
    }
    const out = h('div', {}, lines);
    if (dice.children.length) out.prepend(h('p', {}, 'Dice drawn:'), dice);
    return out;
  }

  async function endGame() {
    $('end-confirm').hidden = true;
    $('end-game').hidden = false;
    const answer = await call('POST', '/end', {}, true);
    const box = $('answer');
    box.dataset.status = String(answer.status);
    box.dataset.answers = String(++S.answers);
    if (answer.status === 200) {
      const reveal = obj(answer.body).reveal;
      box.className = 'written';
      box.dataset.outcome = 'ended';
      box.replaceChildren(h('p', { class: 'verdict' }, 'The game has ended.'), reveal ? eventsShown([reveal]) : h('p', {}, 'No turn was in play: nothing to reveal.'));
    } else {
      box.className = 'refused';
      box.dataset.outcome = 'refused';
      box.replaceChildren(h('p', { class: 'verdict refusal', role: 'alert' }, `The game was not ended: ${str(obj(answer.body).message)}. Nothing was written.`));
    }
    await refresh();
  }

  // ---- the game moving: the server's stream of heads ----
  function watch() {
    if (typeof EventSource !== 'function') { setInterval(() => { if (S.token) refresh(); }, 3000); return; }
    const stream = new EventSource(BASE + '/heads');
    stream.addEventListener('head', (ev) => {
      let now;
      try { now = JSON.parse(ev.data); } catch (e) { return; }
      document.body.dataset.watched = str(now.hash);
      const known = S.listing ? S.listing.head : S.state ? S.state.head : null;
      if (S.token && (now.hash !== known || Boolean(now.ended) !== S.ended)) refresh();
    });
  }

  function setup() {
    $('made-by').textContent = `Page made by ${str(DATA.made_by)}; it talks to this server alone.`;
    $('record-link').href = `${BASE}/record`;
    $('view-link').href = `${BASE}/view`;
    $('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = $('token').value.trim();
      $('token').value = '';
      if (!token) { askForToken('Enter your side\'s token: the page cannot play without it.'); return; }
      signIn(token);
    });
    $('batch-send').addEventListener('click', () => { if (S.batch.length) send(S.batch.map((b) => b.decision), S.batch.map((b) => b.says)); });
    $('batch-clear').addEventListener('click', () => { S.batch = []; renderBatch(); });
    $('end-game').addEventListener('click', () => { $('end-game').hidden = true; $('end-confirm').hidden = false; $('end-no').focus(); });
    $('end-no').addEventListener('click', () => { $('end-confirm').hidden = true; $('end-game').hidden = false; $('end-game').focus(); });
    $('end-yes').addEventListener('click', endGame);
    $('forget').addEventListener('click', () => { forget(); askForToken(''); });
  }

  async function start() {
    setup();
    const status = await call('GET', '');
    if (status.status !== 200) {
      notice(status.status === 404 ? `There is no game ${GAME} on this server.` : `The game could not be read: ${str(obj(status.body).message)}`);
      document.body.dataset.ready = 'yes';
      return;
    }
    S.status = status.body;
    const token = sessionStorage.getItem(KEY);
    if (token) await signIn(token);
    else askForToken('');
    watch();
    document.body.dataset.ready = 'yes';
  }

  start();
}());
