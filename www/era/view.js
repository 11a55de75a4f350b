// @ts-check
// The reservation model's view (economic reservations and dynamic pricing, seed 004, ALGORITHMS.md §6):
// controls, the data statement with the set-up, value efficiency per policy (E4.1), the frontier of late jobs
// against accepted revenue as κ_use sweeps (E4.3), the results table, the teaching view of one request (the
// plan, the price of each slot and start, the decision, the truthfulness check), exports and share links.
// Computation happens in the worker: the shared 'run' operation (one (policy, κ_use) cell per step) on the
// scenario's workload, and 'run.query' with op 'request' for the teaching view.

import { h, setChildren, fmt, debounce, frameThrottle, scrollTable, dataCard, pct, int } from '../common/dom.js';
import { headerCell } from '../common/glossary.js';
import { updateLocation } from '../common/share.js';
import { createRunView, viewHandle, drawCanvas, latestQuery } from '../common/run-view.js';
import { createControls, presetWorkload } from './controls.js';

const CHART_HEIGHT = 380;
const REQUEST_HEIGHT = 420;


const money = (v) => (Number.isFinite(v) ? `$${Math.round(v).toLocaleString('en-US')}` : '–');

/** The cells as the table and the CSV show them (the engine's field names). */
/** @type {Array<[key: string, label: string, title: string, value: ((v: any) => string) | null, term?: string]>} */
const COLUMNS = [
  ['kappa', 'κ_use', 'the fraction of the planned capacity the plan may commit', (v) => fmt(v, 3)],
  ['value_efficiency', 'value efficiency', 'Σ V of accepted jobs done by their deadline / Σ V of all requests (§6.4)', (v) => pct(v)],
  ['revenue', 'revenue', 'Σ of the accepted prices (§6.4)', money],
  ['late_pct', 'late jobs', 'accepted jobs completing after their deadline, % of accepted', (v) => (Number.isFinite(v) ? `${v.toFixed(2)}%` : '–')],
  ['utilization', 'utilization', 'Σ allocated / Σ C over the scheduled window', (v) => pct(v)],
  ['accepted', 'accepted', 'accepted requests', int],
  ['requests', 'requests', 'requests scheduled', int],
  ['mean_unit_price', '$ / unit-slot', 'mean price per accepted unit-slot', (v) => fmt(v, 3)],
  ['truthful_violations', 'truthfulness', 'of every 25th request, the same request stating 0.5×, 2× and 10× its value: checks where the price moved or a higher value was rejected', null],
];

export function mount({ root, wasm, worker, scenario: initial, autorun = true }) {
  let scenario = initial.model === 'era' ? initial : { ...initial, model: 'era' };
  if (initial.model !== 'era') {
    // opened from another tab: the workload of the preset (the default scenario's is the Azure arrivals)
    const want = presetWorkload(wasm, scenario.era.preset);
    if (!(scenario.workload && scenario.workload.upload) && scenario.workload.bundled !== want) scenario = { ...scenario, workload: { bundled: want } };
  }
  let report = null;
  let cells = [];
  let reqCell = 0;
  let reqIndex = 0;
  let lastView = null;

  const scheduleDraw = frameThrottle(() => { if (run.isRunning()) drawCharts(); });
  const controls = createControls({ onChange: debounce(onControls, 300), wasm });
  controls.fill(scenario);

  // ---- chart card
  const effCanvas = h('canvas', { id: 'era-efficiency-canvas', role: 'img', 'aria-label': 'value efficiency per policy' });
  const frontCanvas = h('canvas', { id: 'era-frontier-canvas', role: 'img', 'aria-label': 'late jobs against accepted revenue, one curve per policy over κ_use' });
  const subtitle = h('p', { class: 'fine', id: 'era-subtitle' });
  const paperNote = h('p', { class: 'fine', id: 'era-paper' });
  const stem = () => `packlab-era-${report ? `${report.preset}-seed${report.seed}` : 'run'}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  const run = createRunView({
    wasm, worker, controls,
    scenario: () => scenario,
    stepWord: 'policy × κ_use cells',
    card: { key: 'era', title: 'Value efficiency and the late-jobs frontier' },
    body: [
      subtitle,
      h('div', { class: 'canvas-wrap' }, effCanvas),
      paperNote,
      h('div', { class: 'canvas-wrap', id: 'era-frontier-wrap' }, frontCanvas),
      h('p', { class: 'fine' }, 'Each point is one policy at one κ_use: a larger κ_use plans more of the capacity (more revenue) and leaves less spare for shortfalls of the actual capacity (more late jobs). Seed 004 (Fig. 3): BASIC_ECON dominates — more revenue at the same late-job %.')],
    payload: () => ({ scenario }),
    onStart: () => { cells = []; },
    onProgress,
    onDone,
    hasResult: () => !!report,
    onCancelled,
    exports: {
      prefix: 'era-export',
      canvas: frontCanvas,
      stem,
      ready: () => !!report,
      svg: () => wasm.chart_svg('era.frontier', report.cells, { title: subtitle.textContent }, 1000, 600),
      csv: () => [['policy', ...COLUMNS.map((c) => c[0]), 'total_allocation', 'accepted_work', 'lp_value', 'truthful_checks']]
        .concat(report.cells.map((c) => [c.policy, ...COLUMNS.map((k) => c[k[0]]), c.total_allocation, c.accepted_work, c.lp_value, c.truthful_checks])),
      json: () => ({ report }),
      scenario: () => scenario,
    },
  });
  const setStatus = run.setStatus;

  // ---- results table
  const tbody = h('tbody', { id: 'era-rows' });
  const tableCard = h('section', { class: 'card table-card', id: 'era-table-card', 'aria-labelledby': 'era-table-title' },
    h('h2', { id: 'era-table-title' }, 'Results per policy and κ_use'),
    h('p', { class: 'fine' }, 'Every cell schedules the same requests on the same capacity; the algorithm sees a request\'s value only in the final comparison value ≥ price.'),
    scrollTable('Results per policy and κ_use', h('table', { class: 'results', id: 'era-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'policy'), COLUMNS.map(([, label, title]) => headerCell(label, { title })))),
      tbody)));

  // ---- teaching view: one request
  const cellSel = h('select', { id: 'era-request-cell', 'aria-label': 'policy and κ_use' });
  const idxIn = h('input', { type: 'text', inputmode: 'numeric', id: 'era-request-index', value: '0', 'aria-label': 'request number' });
  const reqCanvas = h('canvas', { id: 'era-request-canvas', role: 'img', 'aria-label': 'the plan over the request\'s window and the prices of its slots and starts' });
  const reqText = h('div', { id: 'era-request-text' });
  const requestQuery = latestQuery(reqText);
  const step = (d) => () => { idxIn.dataset.touched = '1'; reqIndex = Math.max(0, reqIndex + d); idxIn.value = String(reqIndex); requestView(); };
  cellSel.addEventListener('change', () => { reqCell = Number(cellSel.value); requestView(); });
  idxIn.addEventListener('input', () => { idxIn.dataset.touched = '1'; });
  idxIn.addEventListener('change', () => { const v = Number(idxIn.value); if (Number.isSafeInteger(v) && v >= 0) { reqIndex = v; requestView(); } });
  const reqCard = h('section', { class: 'card', id: 'era-request-card', 'aria-labelledby': 'era-request-title' },
    h('h2', { id: 'era-request-title' }, 'One request, step by step'),
    h('p', { class: 'fine' }, 'makeReservation(j): the feasible starts (R(τ) ≥ W on the whole run), the block price of W extra units in each slot from the predicted demand they displace, the price of each start, the cheapest start, then the single comparison with the stated value.'),
    h('div', { class: 'row' }, h('label', {}, 'cell ', cellSel), h('label', {}, ' request # ', idxIn),
      h('button', { type: 'button', class: 'btn small', id: 'era-request-prev', onclick: step(-1) }, '◀'),
      h('button', { type: 'button', class: 'btn small', id: 'era-request-next', onclick: step(1) }, '▶')),
    h('div', { class: 'canvas-wrap' }, reqCanvas),
    reqText);

  // ---- data card
  const statementEl = h('p', { id: 'era-data-statement' });
  const setupEl = h('div', { id: 'era-setup' });
  const data = dataCard('era', statementEl, setupEl);

  setChildren(root,
    h('div', { class: 'layout' },
      h('aside', { class: 'sidebar' }, controls.el, data),
      h('div', { class: 'content' }, run.card, tableCard, reqCard)));
  window.addEventListener('resize', debounce(() => { drawCharts(); drawRequest(); }, 150));

  function showData() {
    const p = scenario.era;
    const w = scenario.workload || {};
    const b = wasm.bundled_data().find((d) => d.id === w.bundled);
    const src = w.upload ? `the uploaded workload ${w.upload.name}` : b ? b.title : String(w.bundled);
    setChildren(statementEl, p.preset === 'E4.1' && p.jobs === 'synthetic'
      ? [h('strong', {}, 'Synthetic jobs (ALGORITHMS.md §6.5), the set-up that mirrors the paper: '), 'six classes of 1,450 jobs over 7 days, yahoo-5 the largest at $1 per unit-slot, the rest $10; the workload is not read. Choose "the SWIM workload" under E4.1 for real arrivals and sizes.']
      : p.preset === 'E4.1'
      ? [h('strong', {}, 'Real arrivals and job sizes: '), `${src}. Units and durations are derived from the bytes; windows and values are synthetic (§6.5), stated as such. SWIM has no job types, so the classes are work sextiles; the synthetic §6.5 jobs mirror the paper.`]
      : [h('strong', {}, 'Synthetic ERA jobs (§6.5) beside real non-ERA load: '), p.nonera === 'azure' ? `${src} moves ERA's actual capacity.` : 'the non-ERA load is synthetic too.']);
    if (!report) { setChildren(setupEl, h('p', { class: 'fine' }, 'The set-up appears when the run ends.')); return; }
    const s = report.setup;
    setChildren(setupEl,
      h('dl', { class: 'summary', id: 'era-setup-list' },
        h('dt', {}, 'requests'), h('dd', { dataset: { requests: String(s.requests) } }, `${int(s.requests)} scheduled, ${int(s.history_requests)} in the history period`),
        h('dt', {}, 'capacity'), h('dd', {}, `${int(s.capacity)} units; offered ${int(s.offered_load)} units per slot`),
        report.preset === 'E4.1' ? h('dt', {}, 'wider than C') : null,
        report.preset === 'E4.1' ? h('dd', { id: 'era-wider', dataset: { wider: String(s.wider_than_capacity || 0) } },
          `${int(s.wider_than_capacity || 0)} jobs${scenario.era.capacity_basis === 'runnable' ? ' (clamped to C)' : ' (they can never run)'}`) : null,
        h('dt', {}, 'actual capacity'), h('dd', {}, `mean ${pct(s.actual_mean)} of C, min ${pct(s.actual_min)}`),
        h('dt', {}, 'prices'), h('dd', {}, `BASIC_ECON unit price in [${fmt(report.prices.p_min)}, ${report.prices.p_max === null ? '∞' : fmt(report.prices.p_max)}], greedy ${fmt(report.prices.p_fix)}, on-demand ${fmt(report.prices.p_full)}`)),
      s.classes.length > 1 ? scrollTable('Results per reservation class', h('table', { class: 'results', id: 'era-classes' },
        h('thead', {}, h('tr', {}, ['class', 'requests', 'work', 'value', 'mean W', 'mean T', '$/unit-slot'].map((t) => h('th', { scope: 'col', class: 'num' }, t)))),
        h('tbody', {}, s.classes.map((c) => h('tr', {}, h('td', {}, c.class), h('td', { class: 'num' }, int(c.requests)), h('td', { class: 'num' }, pct(c.work_share)),
          h('td', { class: 'num' }, pct(c.value_share)), h('td', { class: 'num' }, fmt(c.mean_w, 3)), h('td', { class: 'num' }, fmt(c.mean_t, 3)), h('td', { class: 'num' }, fmt(c.mean_unit_value, 3))))))) : null,
      h('ul', { class: 'fine', id: 'era-notes' }, s.notes.map((n) => h('li', {}, n))));
  }

  function onControls() {
    run.edited({ base: scenario, apply: (sc) => { scenario = sc; showData(); updateLocation(wasm, scenario); } });
  }

  /** @param {import('../common/run-view.js').Progress<import('../../src/wasm/reports').EraStep>} p a step's progress */
  function onProgress(p) {
    const st = p.partial;
    if (!st) { setStatus('running', `Scheduling the first cell (1 of ${p.total}; the LP predictor solves one LP per period first)…`); return; }
    st.cells.forEach((x, i) => { cells[st.first + i] = x; });
    run.markFirst();
    renderTable(cells.filter(Boolean), false);
    scheduleDraw();
    setStatus('running', `${p.done} of ${p.total} cells scheduled…`);
  }

  function onDone(res) {
    report = res.report;
    cells = report.cells;
    const s = report.setup;
    setStatus('done', `${cells.length} cells in ${(res.elapsed_ms / 1000).toFixed(1)} s · ${int(s.requests)} requests`);
    subtitle.textContent = `${report.preset} on ${s.workload}: ${int(s.requests)} requests, capacity ${int(s.capacity)} units, seed ${report.seed}`;
    setChildren(paperNote, report.paper.length
      ? ['Seed 004 reports value efficiency ', report.paper.map((f) => `${f.policy} ${pct(f.value, 0)}`).join(', '), ' on a Yahoo workload that is not public; here: ',
        policiesOf(cells).map((p) => `${p} ${pct(best(p).value_efficiency)}`).join(', '),
        scenario.era.jobs === 'synthetic' ? ' on the synthetic §6.5 jobs, the set-up that mirrors the paper' : ' on SWIM jobs (the synthetic §6.5 jobs mirror the paper)',
        `; horizon ${scenario.era.horizon}. docs/era.md explains the gap.`]
      : []);
    if (scenario.era.policies.length === 0) controls.fill(scenario, policiesOf(cells));
    renderTable(cells, true);
    drawCharts();
    showData();
    fillCells();
    updateLocation(wasm, scenario);
    // the default request: one from the middle of the run (the first ones meet an empty plan)
    if (!idxIn.dataset.touched) { reqIndex = Math.floor(s.requests / 2); idxIn.value = String(reqIndex); }
    requestView();
  }

  function onCancelled() {
    if (report) { cells = report.cells; renderTable(cells, true); }
    drawCharts();
  }

  const policiesOf = (cs) => [...new Set(cs.map((c) => c.policy))];
  const best = (p) => cells.filter((c) => c.policy === p).reduce((a, c) => (!a || c.kappa > a.kappa ? c : a), null);

  function drawCharts() {
    const data = cells.filter(Boolean);
    // the frontier needs κ_use to vary (E4.1 runs one κ_use: its late jobs are all 0)
    const kappas = new Set(data.map((c) => c.kappa));
    frontCanvas.parentElement.hidden = kappas.size < 2 && scenario.era.preset === 'E4.1';
    for (const [canvas, name] of [[effCanvas, 'era.efficiency'], [frontCanvas, 'era.frontier']]) run.draw(canvas, CHART_HEIGHT, name, data);
  }

  function renderTable(rows, complete) {
    setChildren(tbody, rows.flatMap((c, i) => {
      const tr = h('tr', { dataset: { policy: c.policy, kappa: String(c.kappa), complete: String(complete), valueEfficiency: String(c.value_efficiency), latePct: String(c.late_pct), revenue: String(c.revenue), cell: String(i) } },
        // a user's script (issue 31) in the script colour, as its curve and bar
        h('td', {}, c.policy.startsWith('script:') ? h('span', { class: 'swatch fam-script', 'aria-hidden': 'true' }) : null, c.policy),
        COLUMNS.map(([k, , , f]) => h('td', { class: 'num' }, k === 'truthful_violations' ? `${c.truthful_violations} of ${c.truthful_checks}` : f(c[k]))));
      // a user's script that failed at run time: its error under its row (it quoted nothing from then on), the
      // other rows as they are
      return c.error ? [tr, h('tr', { class: 'failed', dataset: { policy: c.policy, kappa: String(c.kappa), error: c.error } },
        h('td', { colspan: COLUMNS.length + 1, class: 'error' }, `${c.policy} failed: ${c.error} (then no quotes)`))] : [tr];
    }));
  }

  function fillCells() {
    setChildren(cellSel, cells.map((c, i) => h('option', { value: String(i) }, `${c.policy} @ κ ${fmt(c.kappa, 3)}`)));
    if (reqCell >= cells.length) reqCell = 0;
    // the default cell: the first BASIC_ECON cell (its prices are the interesting part)
    if (!cellSel.dataset.touched) {
      const k = cells.findIndex((c) => c.policy.startsWith('basic-econ'));
      reqCell = k >= 0 ? k : 0;
    }
    cellSel.value = String(reqCell);
  }
  cellSel.addEventListener('change', () => { cellSel.dataset.touched = '1'; });

  function requestView() {
    if (!report) return;
    const r = worker.request('run.query', { scenario, op: 'request', args: { cell: reqCell, index: reqIndex } });
    requestQuery(r, { loading: 'Replaying the plan up to this request…', onResult: (v) => {
      lastView = v;
      drawRequest();
      const q = v.decision && v.decision.quote;
      const rq = v.request;
      setChildren(reqText,
        h('p', { id: 'era-request-summary', dataset: { accept: String(!!(v.decision && v.decision.accept)), price: q ? String(q.price) : '', start: q ? String(q.start) : '' } },
          h('strong', {}, `Request ${v.index}`), ` (${v.policy}, κ ${fmt(v.kappa, 3)}) arrives at minute ${v.now}: ${fmt(rq.w)} units × ${rq.t} min inside [${rq.s}, ${rq.d}), value $${fmt(rq.value, 5)}. `,
          q ? `Cheapest feasible start ${q.start} at $${fmt(q.price, 5)} → ` : 'No feasible start → ',
          h('strong', {}, v.decision && v.decision.accept ? 'accepted' : 'rejected'), '.',
          q && q.start === rq.d - rq.t && rq.d - rq.s > rq.t
            ? h('span', { class: 'zero-slack', id: 'era-zero-slack' }, ` Zero slack: the start ${q.start} = d − T is the last feasible one, so any shortfall of the actual capacity makes the job late.`)
            : null),
        h('table', { class: 'results', id: 'era-truthful' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'stated value'), h('th', { scope: 'col' }, 'decision'), h('th', { scope: 'col', class: 'num' }, 'price'))),
          h('tbody', {}, v.truthful.map(([m, acc, price]) => h('tr', {}, h('td', {}, `${fmt(m)} × $${fmt(rq.value, 5)}`), h('td', {}, acc ? 'accept' : 'reject'), h('td', { class: 'num' }, price === null ? '–' : `$${fmt(price, 5)}`))))),
        h('p', { class: 'fine' }, 'Truthful in the value: the price never depends on what the request states, and a higher stated value never turns an accept into a reject.'));
    } });
  }

  function drawRequest() {
    if (lastView) drawCanvas(wasm, reqCanvas, REQUEST_HEIGHT, 'era.request', lastView, {}, (text) => setChildren(reqText, h('div', { class: 'error-box' }, text)));
  }

  showData();
  drawCharts();
  updateLocation(wasm, scenario);
  run.begin(autorun);

  return viewHandle({ scenario: () => scenario, link: () => updateLocation(wasm, scenario) });
}
