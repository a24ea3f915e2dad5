(function () {
  const view = document.getElementById('timeline-view');
  if (!view || document.body.dataset.page !== 'run') return;
  const canvas = document.getElementById('timeline-canvas');
  const tip = document.getElementById('timeline-tip');
  const summary = document.getElementById('timeline-summary');
  const ctx = canvas.getContext('2d');
  const url = '/api/runs/' + encodeURIComponent(document.body.dataset.run) + '/timeline.json';
  const ROW = 20, AXIS = 26, LABEL = 200, PAD = 10, MAX_HEIGHT = 560;
  const OUTCOME = {
    succeeded: '#16a34a', failed: '#dc2626', timed_out: '#9333ea', cancelled: '#6b7280', skipped: '#d1d5db',
    dead_lettered: '#7f1d1d', lost: '#ea580c',
  };
  const RUNNING = '#2563eb', QUEUED = '#fde68a', CONDITION = '#0ea5e9';
  const WAIT = { retry: '#f59e0b', delay: '#64748b', admission: '#8b5cf6', rate: '#14b8a6', signal: '#ec4899' };
  const WAIT_OTHER = '#a8a29e';
  const WAIT_TEXT = { admission: 'mutex, concurrency or cache', retry: 'retry back-off', repeat: 'repeat' };
  const ENDED = ['succeeded', 'failed', 'cancelled'];
  const stats = {
    loaded: false, status: null, nodes: 0, draws: 0, lastDrawMs: 0, maxDrawMs: 0, rowsDrawn: 0, handled: 0,
    lastLatencyMs: 0, maxLatencyMs: 0, fetchMs: 0,
  };
  window.batonTimeline = stats;
  let nodes = [];
  let duration = 1;
  let from = 0, span = 1, fitted = true, top = 0;
  let width = 0, height = 0, dpr = 1;
  let pending = null, frame = 0, drag = null, hover = null;

  function fmt(ms) {
    ms = Math.max(0, Math.round(ms));
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1).replace(/\.?0+$/, '') + ' s';
    const s = Math.round(ms / 1000);
    if (s < 3600) return Math.floor(s / 60) + ' min' + (s % 60 ? ' ' + (s % 60) + ' s' : '');
    return Math.floor(s / 3600) + ' h' + (Math.floor(s / 60) % 60 ? ' ' + (Math.floor(s / 60) % 60) + ' min' : '');
  }
  function plotWidth() { return Math.max(40, width - LABEL - PAD); }
  function xOf(ms) { return LABEL + (ms - from) / span * plotWidth(); }
  function msAt(px) { return from + (px - LABEL) / plotWidth() * span; }
  function maxTop() { return Math.max(0, nodes.length * ROW + PAD - (height - AXIS)); }
  function fitSpan() { return duration * 1.04 + 1; }
  function clampWindow() {
    span = Math.min(Math.max(span, 1), fitSpan());
    from = Math.min(Math.max(from, -span * 0.05), Math.max(duration - span * 0.95, -span * 0.05));
    top = Math.min(Math.max(top, 0), maxTop());
  }
  function fit() { fitted = true; span = fitSpan(); from = -duration * 0.02; clampWindow(); }
  function resize() {
    dpr = window.devicePixelRatio || 1;
    width = view.clientWidth;
    const want = Math.min(MAX_HEIGHT, AXIS + Math.max(nodes.length, 1) * ROW + PAD);
    if (height !== want) { view.style.height = want + 'px'; height = want; }
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  // Draws at the next frame; `at` is when the event that asked came (for the latency).
  function schedule(at) {
    if (pending === null) pending = at === undefined ? performance.now() : at;
    if (!frame) frame = requestAnimationFrame(draw);
  }
  function tickStep() {
    const target = span * 90 / plotWidth();
    const steps = [];
    for (let p = 1; p < 60000; p *= 10) steps.push(p, p * 2, p * 5);
    const all = steps.filter(s => s < 60000).concat([60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000, 86400000]);
    return all.find(s => s >= target) || Math.ceil(target / 86400000) * 86400000;
  }
  function colorOf(a) {
    if (a.outcome === null) return RUNNING;
    if (a.phase === 'condition' && a.outcome === 'succeeded') return CONDITION;
    return OUTCOME[a.outcome] || RUNNING;
  }
  function labelOf(n) {
    if (n.label === undefined) {
      let text = n.key;
      const room = LABEL - 26;
      if (ctx.measureText(text).width > room) {
        let lo = 0, hi = text.length;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (ctx.measureText(text.slice(0, mid) + '…').width <= room) lo = mid; else hi = mid - 1;
        }
        text = text.slice(0, lo) + '…';
      }
      n.label = text;
    }
    return n.label;
  }
  function bar(a, b, color, y, h) {
    const left = LABEL, right = LABEL + plotWidth();
    let xa = xOf(a), xb = xOf(b);
    if (xb < left || xa > right) return;
    xa = Math.max(xa, left - 2);
    xb = Math.min(xb, right + 2);
    ctx.fillStyle = color;
    ctx.fillRect(xa, y, Math.max(2, xb - xa), h);
  }
  function drawRow(n, y) {
    for (const w of n.waits) bar(w.from, w.to === null ? duration : w.to, WAIT[w.reason] || WAIT_OTHER, y + ROW / 2 - 2, 4);
    for (const a of n.attempts) {
      const end = a.finished === null ? duration : a.finished;
      if (a.queued !== null) bar(a.queued, a.started === null ? end : a.started, QUEUED, y + 4, ROW - 8);
      if (a.started !== null) bar(a.started, end, colorOf(a), y + 4, ROW - 8);
      else if (a.finished !== null && a.outcome !== null) bar(a.finished, a.finished, colorOf(a), y + 3, ROW - 6);
    }
    if (!n.attempts.length && n.outcome !== null && n.ended !== null) bar(n.ended, n.ended, OUTCOME[n.outcome] || RUNNING, y + 3, ROW - 6);
  }
  function draw() {
    frame = 0;
    const began = performance.now();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = '12px "DejaVu Sans Mono", Menlo, monospace';
    ctx.textBaseline = 'middle';
    const first = Math.max(0, Math.floor(top / ROW));
    const last = Math.min(nodes.length, Math.ceil((top + height - AXIS) / ROW));
    const step = tickStep();
    const firstTick = Math.ceil(Math.max(0, from) / step) * step;
    ctx.fillStyle = '#eef2f7';
    for (let t = firstTick; t <= from + span; t += step) ctx.fillRect(Math.round(xOf(t)), AXIS, 1, height - AXIS);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS, width, height - AXIS);
    ctx.clip();
    for (let i = first; i < last; i++) {
      const y = AXIS + i * ROW - top;
      if (i % 2) { ctx.fillStyle = 'rgba(148, 163, 184, 0.08)'; ctx.fillRect(0, y, width, ROW); }
      drawRow(nodes[i], y);
    }
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, AXIS, LABEL - 4, height - AXIS);
    for (let i = first; i < last; i++) {
      const n = nodes[i], y = AXIS + i * ROW - top;
      ctx.fillStyle = OUTCOME[n.status] || (n.status === 'running' ? RUNNING : n.status === 'pending' ? '#cbd5e1' : '#f59e0b');
      ctx.fillRect(12, y + ROW / 2 - 4, 8, 8);
      ctx.fillStyle = '#0f172a';
      ctx.fillText(labelOf(n), 26, y + ROW / 2);
    }
    ctx.restore();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, AXIS);
    ctx.fillStyle = '#e2e8f0';
    ctx.fillRect(0, AXIS - 1, width, 1);
    ctx.fillStyle = '#64748b';
    for (let t = firstTick; t <= from + span; t += step) {
      const x = Math.round(xOf(t));
      ctx.fillRect(x, AXIS - 6, 1, 5);
      ctx.fillText(t === 0 ? '0' : fmt(t), x + 3, AXIS / 2 - 2);
    }
    ctx.fillText(nodes.length > last - first ? 'nodes ' + (first + 1) + '–' + last + ' of ' + nodes.length : 'node', 12, AXIS / 2 - 2);
    const took = performance.now() - began;
    stats.draws++;
    stats.lastDrawMs = took;
    stats.maxDrawMs = Math.max(stats.maxDrawMs, took);
    stats.rowsDrawn = last - first;
    if (pending !== null) {
      stats.lastLatencyMs = performance.now() - pending;
      stats.maxLatencyMs = Math.max(stats.maxLatencyMs, stats.lastLatencyMs);
      pending = null;
    }
    if (hover) showTip(hover.x, hover.y);
  }
  function hit(px, py) {
    if (py < AXIS || py >= height) return null;
    const i = Math.floor((py - AXIS + top) / ROW);
    if (i < 0 || i >= nodes.length) return null;
    const n = nodes[i];
    if (px < LABEL) return { n, i, what: null };
    const t = msAt(px), slack = 4 / plotWidth() * span;
    for (const a of n.attempts) {
      const s = a.queued !== null ? a.queued : a.started !== null ? a.started : a.finished;
      const e = a.finished === null ? duration : a.finished;
      if (s !== null && t >= s - slack && t <= e + slack) return { n, i, what: { attempt: a } };
    }
    for (const w of n.waits) {
      if (t >= w.from - slack && t <= (w.to === null ? duration : w.to) + slack) return { n, i, what: { wait: w } };
    }
    return { n, i, what: null };
  }
  function describe(h) {
    const lines = [h.n.key + ' · ' + h.n.status];
    const a = h.what && h.what.attempt, w = h.what && h.what.wait;
    if (a) {
      lines.push((a.phase === 'condition' ? 'condition of attempt ' : 'attempt ') + a.attempt + ' · ' + (a.outcome === null ? 'running' : a.outcome.replace('_', ' ')));
      if (a.queued !== null) lines.push('queued at +' + fmt(a.queued));
      if (a.queued !== null && a.started !== null) lines.push('in the queue ' + fmt(a.started - a.queued));
      if (a.started !== null) lines.push('started at +' + fmt(a.started));
      if (a.started !== null) lines.push((a.finished === null ? 'running for ' : 'ran ') + fmt((a.finished === null ? duration : a.finished) - a.started));
    } else if (w) {
      const after = w.reason === 'retry' || w.reason === 'repeat' ? ' (after attempt ' + w.attempt + ')' : '';
      lines.push('waiting: ' + (WAIT_TEXT[w.reason] || w.reason) + after);
      lines.push('from +' + fmt(w.from) + (w.to === null ? ', still waiting' : ' for ' + fmt(w.to - w.from)));
      if (w.due !== null) lines.push('due at +' + fmt(w.due));
    } else {
      const runs = h.n.attempts.filter(x => x.phase === 'run').length;
      lines.push(runs + (runs === 1 ? ' attempt' : ' attempts') + (h.n.first === null ? '' : ' · first activity at +' + fmt(h.n.first)));
      if (h.n.ended !== null) lines.push('ended at +' + fmt(h.n.ended) + (h.n.outcome ? ' · ' + h.n.outcome.replace('_', ' ') : ''));
    }
    return lines.join('\n');
  }
  function showTip(px, py) {
    const h = hit(px, py);
    if (!h) { tip.hidden = true; return; }
    tip.textContent = describe(h);
    tip.hidden = false;
    const left = Math.min(px + 14, Math.max(0, width - tip.offsetWidth - 4));
    const down = py + 16 + tip.offsetHeight < height;
    tip.style.left = left + 'px';
    tip.style.top = (down ? py + 16 : Math.max(0, py - tip.offsetHeight - 8)) + 'px';
  }
  function zoomAt(px, factor) {
    const anchorX = px < LABEL ? LABEL + plotWidth() / 2 : px;
    const anchor = msAt(anchorX);
    span *= factor;
    clampWindow();
    from = anchor - (anchorX - LABEL) / plotWidth() * span;
    fitted = false;
    clampWindow();
  }
  function local(e) {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }
  view.addEventListener('wheel', e => {
    const at = performance.now();
    const p = local(e);
    const unit = e.deltaMode === 1 ? ROW : e.deltaMode === 2 ? height : 1;
    const dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.ctrlKey || e.metaKey) {
      zoomAt(p.x, Math.exp(Math.max(-1, Math.min(1, dy * 0.002))));
    } else if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      from += (e.shiftKey ? dy || dx : dx) / plotWidth() * span;
      fitted = false;
      clampWindow();
    } else {
      const before = top;
      top = Math.min(Math.max(top + dy, 0), maxTop());
      if (top === before) return;  // the page scrolls instead
    }
    e.preventDefault();
    stats.handled++;
    schedule(at);
  }, { passive: false });
  view.addEventListener('mousedown', e => {
    if (e.button !== 0) return;
    const p = local(e);
    drag = { x: p.x, y: p.y, from, top, moved: false };
    view.classList.add('dragging');
    e.preventDefault();
    view.focus({ preventScroll: true });
  });
  window.addEventListener('mousemove', e => {
    if (!drag && e.target !== canvas) {
      if (hover) { hover = null; tip.hidden = true; }
      return;
    }
    const at = performance.now();
    const p = local(e);
    if (drag) {
      const dx = p.x - drag.x, dy = p.y - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      from = drag.from - dx / plotWidth() * span;
      top = drag.top - dy;
      if (dx) fitted = false;
      clampWindow();
      stats.handled++;
      schedule(at);
      return;
    }
    hover = p;
    showTip(p.x, p.y);
  });
  window.addEventListener('mouseup', e => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    view.classList.remove('dragging');
    if (moved || e.target !== canvas) return;
    // A click on a node's row opens it in the node panel, as a click in the graph does.
    const h = hit(local(e).x, local(e).y);
    if (!h) return;
    const target = [...document.querySelectorAll('#graph [data-node]')].find(g => g.dataset.node === h.n.key);
    if (target) target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  view.addEventListener('mouseleave', () => { hover = null; tip.hidden = true; });
  view.addEventListener('keydown', e => {
    const at = performance.now();
    const keys = {
      '+': () => zoomAt(LABEL + plotWidth() / 2, 0.5), '=': () => zoomAt(LABEL + plotWidth() / 2, 0.5),
      '-': () => zoomAt(LABEL + plotWidth() / 2, 2), '0': fit,
      ArrowDown: () => { top += ROW; }, ArrowUp: () => { top -= ROW; }, PageDown: () => { top += height - AXIS - ROW; },
      PageUp: () => { top -= height - AXIS - ROW; }, Home: () => { top = 0; }, End: () => { top = maxTop(); },
      ArrowLeft: () => { from -= span / 10; fitted = false; }, ArrowRight: () => { from += span / 10; fitted = false; },
    };
    if (!keys[e.key]) return;
    e.preventDefault();
    keys[e.key]();
    clampWindow();
    stats.handled++;
    schedule(at);
  });
  document.querySelectorAll('.timeline-button').forEach(b => b.addEventListener('click', () => {
    const at = performance.now();
    if (b.dataset.zoom === 'fit') fit(); else zoomAt(LABEL + plotWidth() / 2, b.dataset.zoom === 'in' ? 0.5 : 2);
    stats.handled++;
    schedule(at);
  }));
  window.addEventListener('resize', () => { resize(); clampWindow(); schedule(); });

  // For tests and the curious: where node `key` is drawn at `ms` after the start (scrolled into
  // view first), in client coordinates; and the visible window.
  stats.locate = (key, ms) => {
    const i = nodes.findIndex(n => n.key === key);
    if (i < 0) return null;
    if (AXIS + i * ROW - top < AXIS || AXIS + (i + 1) * ROW - top > height) { top = i * ROW; clampWindow(); }
    draw();
    const r = canvas.getBoundingClientRect();
    return { x: r.left + xOf(ms), y: r.top + AXIS + i * ROW - top + ROW / 2 };
  };
  stats.window = () => ({ from, span, top, fitted, width, height });

  async function load() {
    const began = performance.now();
    const r = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' });
    const j = await r.json().catch(() => ({ error: r.statusText }));
    if (!r.ok) throw new Error(j.error || r.statusText);
    stats.fetchMs = performance.now() - began;
    nodes = j.nodes;
    duration = Math.max(1, j.duration_ms);
    stats.nodes = nodes.length;
    stats.status = j.status;
    const ended = ENDED.includes(j.status);
    summary.textContent = nodes.length + (nodes.length === 1 ? ' node · ' : ' nodes · ') + fmt(j.duration_ms) + (ended ? '' : ' so far');
    resize();
    if (fitted) fit(); else clampWindow();
    stats.loaded = true;
    schedule();
    return ended ? 0 : nodes.length > 2000 ? 10000 : 2000;
  }
  async function refresh() {
    let next = 5000;
    if (!document.hidden) {
      try { next = await load(); } catch (e) { summary.textContent = 'the timeline did not load: ' + e.message; }
    }
    if (next) setTimeout(refresh, next);
  }
  refresh();
})();
