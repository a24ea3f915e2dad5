'use strict';
(function () {
  const body = document.body;
  const page = body.dataset.page;
  const mayOperate = body.dataset.operate === 'true';
  const TERMINAL = ['succeeded', 'failed', 'cancelled', 'skipped'];

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function byId(id) { return document.getElementById(id); }
  async function getJSON(path) {
    const r = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' });
    const j = await r.json().catch(() => ({ error: r.statusText }));
    if (!r.ok) { refused(r); throw new Error(j.error || r.statusText); }
    return j;
  }
  function badge(status) {
    const b = el('span', 'badge status-' + status, status);
    b.dataset.status = status;
    return b;
  }
  function shortTime(t) { return t ? String(t).slice(0, 19) : ''; }
  function parseTime(t) {
    if (!t) return null;
    const d = Date.parse(String(t).replace(' ', 'T').replace(/\+00(:00)?$/, 'Z'));
    return isNaN(d) ? null : d / 1000;
  }
  function duration(s) {
    s = Math.max(0, s);
    if (s < 10) return s.toFixed(1) + ' s';
    if (s < 60) return Math.floor(s) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + Math.floor(s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }
  function durationBetween(a, b) {
    const start = parseTime(a);
    if (start === null) return '';
    const end = parseTime(b);
    return duration((end === null ? Date.now() / 1000 : end) - start);
  }
  function pretty(value) { return JSON.stringify(value, null, 2); }
  function cell(row, text, className) { const td = el('td', className, text); row.appendChild(td); return td; }
  function setText(id, text) { const e = byId(id); if (e) e.textContent = text; }
  function offline(error) {
    let bar = byId('offline');
    if (!bar) {
      bar = el('div', 'offline');
      bar.id = 'offline';
      body.appendChild(bar);
    }
    bar.textContent = error ? 'Live updates paused: ' + error.message : '';
    bar.hidden = !error;
  }
  // Calls fn now and again after the delay (ms) it returns, while the page is open.
  function poll(fn, first) {
    async function tick() {
      let next = 3000;
      if (!document.hidden) {
        try { next = await fn(); offline(null); } catch (e) { offline(e); next = 5000; }
      }
      setTimeout(tick, next);
    }
    setTimeout(tick, first);
  }

  // A refusal of a signed-in action: a lost session goes back to the sign-in page.
  function refused(r) {
    if (r.status === 401) location.assign('/login?next=' + encodeURIComponent(location.pathname + location.search));
  }

  function runsPage() {
    const tbody = byId('runs-body');
    poll(async () => {
      const j = await getJSON('/api/runs' + (body.dataset.query || ''));
      let all = 0;
      for (const [status, n] of Object.entries(j.counts)) { all += n; setText('count-' + status, n); }
      setText('count-all', all);
      setText('page-info', j.total + (j.total === 1 ? ' run' : ' runs') + ' · page ' + j.page + ' of ' + j.pages);
      const rows = j.runs.map(run => {
        const tr = el('tr');
        tr.dataset.run = run.id;
        tr.dataset.status = run.status;
        const name = cell(tr, null);
        const a = el('a', 'run-name', run.name);
        a.href = '/runs/' + encodeURIComponent(run.id);
        name.appendChild(a);
        if (run.error) name.appendChild(el('div', 'row-error', String(run.error).slice(0, 200)));
        cell(tr, null).appendChild(badge(run.status));
        const p = cell(tr, null, null);
        p.className = 'progress-cell';
        const bar = el('progress', 'status-' + run.status);
        bar.max = Math.max(run.node_count, 1);
        bar.value = run.nodes_done;
        p.appendChild(bar);
        p.appendChild(el('span', 'muted', run.nodes_done + '/' + run.node_count));
        cell(tr, shortTime(run.submitted_at), 'time');
        cell(tr, durationBetween(run.started_at, run.finished_at), 'time');
        cell(tr, run.id.slice(0, 8), 'mono muted');
        return tr;
      });
      if (rows.length) tbody.replaceChildren(...rows);
      return j.counts.running + j.counts.pending > 0 ? 2000 : 5000;
    }, 2000);
  }

  function runPage() {
    const runID = body.dataset.run;
    const base = '/api/runs/' + encodeURIComponent(runID);
    const graph = byId('graph');
    const panel = byId('panel-body');
    let signature = null;
    let selected = null;
    let selectedDone = true;

    function mark() {
      graph.querySelectorAll('.selected').forEach(n => n.classList.remove('selected'));
      document.querySelectorAll('tr.node-row.selected').forEach(n => n.classList.remove('selected'));
      if (selected === null) return;
      graph.querySelectorAll('[data-node]').forEach(n => { if (n.dataset.node === selected) n.classList.add('selected'); });
      document.querySelectorAll('tr.node-row').forEach(n => { if (n.dataset.node === selected) n.classList.add('selected'); });
    }
    async function refreshGraph() {
      const r = await fetch(base + '/graph.svg', { cache: 'no-store' });
      if (!r.ok) throw new Error('the graph did not load (' + r.status + ')');
      const doc = new DOMParser().parseFromString(await r.text(), 'image/svg+xml');
      if (doc.getElementsByTagName('parsererror').length) throw new Error('the graph did not parse');
      graph.replaceChildren(document.importNode(doc.documentElement, true));
      mark();
    }
    async function refreshNodes() {
      const j = await getJSON(base + '/nodes?limit=500');
      byId('nodes-body').replaceChildren(...j.nodes.map(n => {
        const tr = el('tr', 'node-row');
        tr.dataset.node = n.key;
        tr.dataset.status = n.status;
        tr.tabIndex = 0;
        cell(tr, n.key, 'mono');
        cell(tr, n.procedure, 'mono muted');
        cell(tr, null).appendChild(badge(n.status));
        cell(tr, n.attempts);
        cell(tr, n.worker_text || '', 'mono muted');
        cell(tr, n.seconds === null ? '' : duration(n.seconds), 'time');
        return tr;
      }));
      mark();
    }
    function section(title, content) {
      const s = el('section', 'panel-section');
      s.appendChild(el('h3', null, title));
      s.appendChild(content);
      return s;
    }
    function code(value, className) { return el('pre', 'code' + (className ? ' ' + className : ''), value); }
    // The signal form of the node shown, kept across refreshes so what is typed in it stays.
    let signalForm = null;
    function signalSection(n) {
      if (signalForm && signalForm.key === n.key) return signalForm.section;
      const box = el('div', 'signal-form');
      const value = el('textarea', 'code signal-value');
      value.id = 'signal-value';
      value.rows = 3;
      value.placeholder = 'null';
      value.spellcheck = false;
      value.setAttribute('aria-label', 'the value to send (JSON; empty sends null)');
      const button = el('button', 'signal-send', 'Send signal');
      button.type = 'button';
      button.id = 'signal-send';
      const message = el('span', 'action-message');
      message.id = 'signal-message';
      message.setAttribute('role', 'status');
      box.append(value, button, message);
      button.addEventListener('click', () => sendSignal(n.key, value, message));
      const s = section('Signal', box);
      signalForm = { key: n.key, section: s };
      return s;
    }
    async function sendSignal(key, value, message) {
      message.className = 'action-message';
      message.textContent = 'Sending…';
      const r = await fetch(base + '/signal?node=' + encodeURIComponent(key), {
        method: 'POST', cache: 'no-store', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' }, body: value.value,
      });
      const j = await r.json().catch(() => ({ error: r.statusText }));
      if (r.ok) {
        message.textContent = 'Signal sent; the coordinator applies it.';
        signature = 'changed';
      } else {
        message.classList.add('error');
        message.textContent = j.error || r.statusText;
        refused(r);
      }
    }
    function renderNode(j) {
      const n = j.node;
      const parts = [];
      const head = el('div', 'panel-head');
      head.appendChild(el('h2', 'mono', n.key));
      head.appendChild(badge(n.status));
      parts.push(head);
      const facts = el('dl', 'kv');
      const rows = [['Procedure', n.procedure], ['Attempts', n.attempts], ['Worker', n.worker_text || '—'],
        ['Queued', shortTime(n.queued_at) || '—'], ['Started', shortTime(n.started_at) || '—'],
        ['Finished', shortTime(n.finished_at) || '—'],
        ['Time', n.seconds === null ? durationBetween(n.started_at, n.finished_at) || '—' : duration(n.seconds)]];
      for (const [k, v] of rows) { facts.appendChild(el('dt', null, k)); facts.appendChild(el('dd', null, v)); }
      parts.push(facts);
      if (j.progress) {
        const p = el('div', 'node-progress');
        const bar = el('progress');
        bar.max = 1;
        bar.value = Number(j.progress.fraction) || 0;
        p.appendChild(bar);
        p.appendChild(el('span', 'muted', Math.round((Number(j.progress.fraction) || 0) * 100) + '%' +
          (j.progress.message ? ' · ' + j.progress.message : '')));
        parts.push(section('Progress', p));
      }
      if (n.error) parts.push(section(n.error_type ? 'Error · ' + n.error_type : 'Error', code(n.error, 'error-text')));
      parts.push(section('Input', code(n.input === null ? '—' : pretty(n.input))));
      parts.push(section('Output', code(n.output === null ? '—' : pretty(n.output))));
      if (mayOperate && n.procedure === 'baton.signal' && !TERMINAL.includes(n.status)) parts.push(signalSection(n));
      if (j.logs.length) {
        const list = el('ol', 'logs');
        for (const line of j.logs) {
          const li = el('li');
          li.appendChild(el('span', 'time', shortTime(line.at).slice(11)));
          li.appendChild(el('span', null, line.message === null ? '' : String(line.message)));
          list.appendChild(li);
        }
        parts.push(section('Logs', list));
      }
      const events = el('table', 'events');
      for (const e of j.events) {
        const tr = el('tr');
        cell(tr, shortTime(e.at).slice(11), 'time');
        cell(tr, e.kind, 'kind');
        cell(tr, Object.keys(e.detail || {}).length ? JSON.stringify(e.detail) : '', 'mono detail');
        events.appendChild(tr);
      }
      parts.push(section('Events (' + j.events.length + ')', j.events.length ? events : el('p', 'muted', 'none yet')));
      panel.replaceChildren(...parts);
      panel.hidden = false;
      byId('panel-empty').hidden = true;
      selectedDone = TERMINAL.includes(n.status);
    }
    async function showNode(key, scroll) {
      selected = key;
      mark();
      try {
        renderNode(await getJSON(base + '/node?key=' + encodeURIComponent(key)));
      } catch (e) {
        panel.replaceChildren(el('p', 'error-text', e.message));
        panel.hidden = false;
        byId('panel-empty').hidden = true;
      }
      if (scroll && window.innerWidth < 1100) byId('node-panel').scrollIntoView({ behavior: 'smooth' });
    }
    function pick(e) {
      const target = e.target.closest('[data-node]');
      if (!target) return;
      history.replaceState(null, '', '#node=' + encodeURIComponent(target.dataset.node));
      showNode(target.dataset.node, true);
    }
    if (location.hash.startsWith('#node=')) {
      try { showNode(decodeURIComponent(location.hash.slice(6)), false); } catch (e) { /* a bad link: no node shown */ }
    }
    graph.addEventListener('click', pick);
    byId('nodes-body').addEventListener('click', pick);
    const failures = byId('failures-body');
    if (failures) failures.addEventListener('click', e => { if (e.target.closest('[data-node]')) { e.preventDefault(); pick(e); } });
    byId('nodes-body').addEventListener('keydown', e => { if (e.key === 'Enter') pick(e); });

    async function act(action) {
      const message = byId('action-message');
      if (action === 'cancel' && !window.confirm('Cancel this run?')) return;
      message.className = 'action-message';
      const words = { cancel: ['Cancelling…', 'Cancel'], retry: ['Retrying…', 'Retry'], pause: ['Pausing…', 'Pause'], resume: ['Resuming…', 'Resume'] }[action];
      message.textContent = words[0];
      const r = await fetch(base + '/' + action, {
        method: 'POST', cache: 'no-store', credentials: 'same-origin',
      });
      const j = await r.json().catch(() => ({ error: r.statusText }));
      if (r.ok) {
        message.textContent = words[1] + ' requested; the coordinator applies it.';
        signature = 'changed';
      } else {
        message.classList.add('error');
        message.textContent = j.error || r.statusText;
        refused(r);
      }
    }
    document.querySelectorAll('.admin-action').forEach(b => b.addEventListener('click', () => act(b.dataset.action)));

    poll(async () => {
      const j = await getJSON(base);
      const run = j.run;
      body.dataset.status = run.status;
      byId('run-status').replaceChildren(badge(run.status));
      setText('run-started', shortTime(run.started_at));
      setText('run-finished', shortTime(run.finished_at));
      setText('run-duration', durationBetween(run.started_at, run.finished_at));
      setText('run-nodes', run.nodes_done + ' of ' + run.node_count + ' done');
      const error = byId('run-error');
      error.textContent = run.error || '';
      error.hidden = !run.error;
      const chips = [];
      for (const [status, n] of Object.entries(j.node_counts)) {
        if (!n) continue;
        const chip = el('span', 'chip status-' + status);
        chip.appendChild(el('span', 'dot'));
        chip.appendChild(document.createTextNode(status + ' '));
        chip.appendChild(el('b', null, n));
        chips.push(chip);
      }
      byId('node-counts').replaceChildren(...chips);
      document.querySelectorAll('.admin-action').forEach(b => { b.hidden = !j.actions.includes(b.dataset.action); });
      const now = JSON.stringify(j.node_counts) + run.status + run.node_count;
      if (signature !== null && now !== signature) {
        await refreshGraph();
        await refreshNodes();
        if (selected !== null) await showNode(selected, false);
      } else if (selected !== null && !selectedDone) {
        await showNode(selected, false);
      }
      signature = now;
      return TERMINAL.includes(run.status) ? 5000 : 1000;
    }, 0);
  }

  function workersPage() {
    poll(async () => {
      const j = await getJSON('/api/workers');
      const slots = j.workers.reduce((s, w) => s + w.slots, 0);
      setText('workers-summary', j.workers.length + (j.workers.length === 1 ? ' live worker' : ' live workers') + ' · ' + slots + ' slots');
      const rows = j.workers.map(w => {
        const tr = el('tr');
        tr.dataset.worker = w.id;
        cell(tr, w.id, 'mono');
        const host = cell(tr, w.host + ' ');
        host.appendChild(el('span', 'muted', 'pid ' + w.pid));
        cell(tr, w.pools.join(', '));
        cell(tr, w.slots);
        const procs = cell(tr, null, 'procedures');
        for (const p of w.procedures) { procs.appendChild(el('span', 'tag mono', p)); procs.appendChild(document.createTextNode(' ')); }
        cell(tr, shortTime(w.started_at), 'time');
        cell(tr, duration(w.seconds_since_seen) + ' ago', 'time');
        return tr;
      });
      const tbody = byId('workers-body');
      if (rows.length) {
        tbody.replaceChildren(...rows);
      } else {
        const tr = el('tr', 'empty');
        const td = cell(tr, 'No live workers: start one with baton worker');
        td.colSpan = 7;
        tbody.replaceChildren(tr);
      }
      const held = j.coordinators.reduce((s, c) => s + c.partitions.length, 0);
      setText('coordinators-summary', j.coordinators.length + (j.coordinators.length === 1 ? ' live coordinator' : ' live coordinators') + ' · ' + held + ' partitions held');
      const crows = j.coordinators.map(c => {
        const tr = el('tr');
        tr.dataset.coordinator = c.id;
        cell(tr, c.id, 'mono');
        const host = cell(tr, c.host + ' ');
        host.appendChild(el('span', 'muted', 'pid ' + c.pid));
        cell(tr, c.partitions.length + ': ' + c.partition_ranges, 'mono');
        cell(tr, c.epoch_range);
        cell(tr, c.runs);
        cell(tr, Math.round(c.nodes_per_second));
        cell(tr, duration(c.seconds_since_seen) + ' ago', 'time');
        return tr;
      });
      const cbody = byId('coordinators-body');
      if (crows.length) {
        cbody.replaceChildren(...crows);
      } else {
        const tr = el('tr', 'empty');
        const td = cell(tr, 'No coordinator is running: start one with baton coordinator');
        td.colSpan = 7;
        cbody.replaceChildren(tr);
      }
      return 3000;
    }, 3000);
  }

  if (page === 'runs') runsPage();
  if (page === 'run') runPage();
  if (page === 'workers') workersPage();
})();
