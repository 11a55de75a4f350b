// @ts-check
// The placement model's view: controls, the frontier chart (plotters → canvas, drawn on the main thread),
// the results table, exports and the teaching view. Computation happens in the worker ('run', 'run.query').

import { h, setChildren, fmt, debounce, frameThrottle, scrollTable } from '../common/dom.js';
import { headerCell } from '../common/glossary.js';
import { updateLocation } from '../common/share.js';
import { checkControls } from '../common/fields.js';
import { onWorkers } from '../common/run-controls.js';
import { createRunView, viewHandle, drawCanvas, latestQuery } from '../common/run-view.js';
import { createControls } from './controls.js';

const CHART_HEIGHT = 440;
const MACHINE_HEIGHT = 300;


/**
 * @param {object} o
 * @param {HTMLElement} o.root
 * @param {object} o.wasm          the page's engine instance
 * @param {import('../common/worker-client.js').EngineWorker} o.worker
 * @param {object} o.tracePanel    from ../common/trace-panel.js
 * @param {object} o.scenario      the initial scenario (defaults or from a link)
 */
/** What a run's instance depends on (not the fit, grids or target): the teaching view reuses the last run's
 * instance while this is unchanged. */
function instanceKey(s) {
  const p = s.placement || {};
  return JSON.stringify([s.trace, s.seed, p.capacity, p.clairvoyance, p.mode, p.realisations, p.rule, p.rebalance]);
}

export function mount({ root, wasm, worker, tracePanel, scenario: initial, autorun = true }) {
  let scenario = initial; // the last valid scenario
  let traceRef = null; // the loaded trace's ref
  let frontier = null; // the last complete frontier
  let layout = null; // pixel positions of its points
  let partial = []; // points of the running frontier
  let lastRun = null; // { json, status } of the frontier on display
  let machineIdx = null; // null: pick the most overflowing machine of the packing
  let lastMachine = null;

  // partial frontiers are redrawn at most once per frame and 100 ms, only while the run goes on
  const schedulePartial = frameThrottle(() => { if (run.isRunning()) drawPartial(); });
  const controls = createControls({ onChange: debounce(onControls, 250), wasm });
  controls.fill(scenario);

  // ---- frontier card
  const canvas = h('canvas', { id: 'frontier-canvas', role: 'img', 'aria-label': 'frontier chart: normalized machines against overflow frequency' });
  const tooltip = h('div', { class: 'tooltip', id: 'chart-tooltip', hidden: true });
  const canvasWrap = h('div', { class: 'canvas-wrap' }, canvas, tooltip);
  // a scenario opened from a findings link waits for Run instead of computing when its trace arrives
  let holdFirstRun = !autorun;
  const subtitle = h('p', { class: 'fine', id: 'frontier-subtitle' });
  const run = createRunView({
    wasm, worker, controls,
    scenario: () => scenario,
    stepWord: 'frontier points',
    card: { key: 'frontier', title: 'Utilization vs. violation frontier' },
    runControls: { prefix: 'run', ids: { cancel: 'cancel-run', rerun: 'rerun' }, initialText: 'Waiting for the trace…' },
    body: [subtitle, canvasWrap],
    ready: () => !!traceRef,
    payload: () => ({ scenario, key: instanceKey(scenario) }),
    onStart: () => { partial = []; },
    onProgress,
    onDone,
    hasResult: () => !!frontier,
    onCancelled: () => drawFrontier(),
    exports: {
      prefix: 'export',
      canvas,
      stem: () => `packlab-${(frontier && frontier.trace || 'frontier').replace(/[^A-Za-z0-9._-]+/g, '_')}`,
      ready: () => !!frontier,
      svg: () => wasm.chart_svg('placement.frontier', frontier.points, { ...chartOpts(), scale: 1, title: subtitle.textContent }, 1000, 600),
      csv: () => [['family', 'param', 'spec', 'm_abs', 'm_norm', 'm', 'q', 'utilization', 'pareto']]
        .concat(frontier.points.map((p) => [p.family, p.param ?? '', p.spec, p.m_abs, p.m_norm, p.m, p.q, p.utilization, p.pareto])),
      json: () => ({ frontier }),
      scenario: () => scenario,
    },
  });
  const setStatus = run.setStatus;
  const startRun = run.start;

  // ---- table card
  const tbody = h('tbody', { id: 'frontier-rows' });
  const table = h('table', { class: 'results', id: 'frontier-table' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'fit'), headerCell('machines', { title: 'machines used', term: 'PM' }),
      headerCell('m'), headerCell('q'), headerCell('util.', { title: 'mean usage / (machines · c)', term: 'utilization' }),
      headerCell('Pareto', { title: 'on the Pareto front of (m, q)', cls: '' }))),
    tbody);
  const tableCard = h('section', { class: 'card table-card', id: 'table-card', 'aria-labelledby': 'table-title' },
    h('h2', { id: 'table-title' }, 'Points'),
    h('p', { class: 'fine' }, 'm = machines / m_norm (the lower bound ⌈Σ mean / c⌉); q = overflow frequency over E. Click a row to study its packing.'),
    scrollTable('Points', table));

  // ---- teaching card
  const mCanvas = h('canvas', { id: 'machine-canvas', role: 'img', 'aria-label': 'one machine: empirical total usage against the Gaussian' });
  const mInput = h('input', { type: 'number', min: 0, step: 1, value: 0, id: 'machine-index', 'aria-label': 'machine number' });
  const mInfo = h('div', { class: 'machine-info', id: 'machine-info' });
  const teachCard = h('section', { class: 'card', id: 'teach-card', 'aria-labelledby': 'teach-title' },
    h('div', { class: 'card-head' },
      h('h2', { id: 'teach-title' }, 'Teaching view: one machine'),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn small', 'aria-label': 'previous machine', onclick: () => showMachine(machineIdx - 1) }, '‹'),
        h('label', { class: 'inline' }, 'machine ', mInput),
        h('button', { type: 'button', class: 'btn small', 'aria-label': 'next machine', onclick: () => showMachine(machineIdx + 1) }, '›'),
        h('button', { type: 'button', class: 'btn small', id: 'worst-machine', onclick: worstMachine }, 'Most overflowing'))),
    h('p', { class: 'fine' }, 'The fit test only sees the Gaussian N(μ′, σ′²) built from the observations O; the bars show what the machine really carried over E.'),
    h('div', { class: 'canvas-wrap' }, mCanvas), mInfo);
  mInput.addEventListener('change', () => showMachine(Number(mInput.value)));
  const machineQuery = latestQuery(mInfo);

  setChildren(root,
    h('div', { class: 'layout' },
      h('aside', { class: 'sidebar' }, tracePanel.el, controls.el),
      h('div', { class: 'content' }, run.card, h('div', { class: 'split' }, tableCard, teachCard))));

  // ---- chart interaction: hover tooltip, click selects the packing of the teaching view
  const hit = (ev) => {
    if (!layout || !frontier) return -1;
    const r = canvas.getBoundingClientRect();
    const sx = canvas.width / r.width;
    const x = (ev.clientX - r.left) * sx;
    const y = (ev.clientY - r.top) * sx;
    let best = -1;
    let bestD = (12 * sx) ** 2;
    layout.points.forEach(([px, py], i) => {
      const d = (px - x) ** 2 + (py - y) ** 2;
      if (d < bestD) { bestD = d; best = i; }
    });
    return best;
  };
  canvas.addEventListener('mousemove', (ev) => {
    const i = hit(ev);
    if (i < 0) { tooltip.hidden = true; canvas.style.cursor = ''; return; }
    const p = frontier.points[i];
    setChildren(tooltip, h('strong', {}, p.spec), h('br'), `m = ${fmt(p.m)} (${p.m_abs} machines)`, h('br'), `q = ${fmt(p.q)}`,
      p.calibration ? h('br') : null, p.calibration ? calibrationText(p.calibration) : null,
      p.pareto ? h('span', { class: 'pill' }, 'Pareto') : null);
    const r = canvas.getBoundingClientRect();
    tooltip.style.left = `${ev.clientX - r.left + 14}px`;
    tooltip.style.top = `${ev.clientY - r.top + 10}px`;
    tooltip.hidden = false;
    canvas.style.cursor = 'pointer';
  });
  canvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const i = hit(ev);
    if (i >= 0) selectFit(frontier.points[i].spec);
  });
  window.addEventListener('resize', debounce(() => { drawFrontier(); drawMachine(); tracePanel.redraw(); }, 150));

  // ---- scenario edits
  function onControls() {
    const checked = checkControls({ wasm, controls, base: scenario, setStatus });
    if (!checked) return;
    const prev = scenario;
    scenario = checked;
    const fitChanged = prev.placement.fit !== scenario.placement.fit;
    if (frontier && lastRun && !run.isRunning() && withoutFit(scenario) === lastRun.json) {
      setStatus('done', lastRun.status); // back to the frontier on display: nothing to compute
      updateLink();
      if (fitChanged) {
        highlightRow();
        drawFrontier();
        requestMachine();
      }
      return;
    }
    if (onlyFitChanged(prev, scenario)) {
      updateLink();
      highlightRow();
      drawFrontier();
      requestMachine();
    } else startRun();
  }

  function withoutFit(s) {
    return JSON.stringify({ ...s, placement: { ...s.placement, fit: null } });
  }

  function onlyFitChanged(a, b) {
    return a.placement.fit !== b.placement.fit && withoutFit(a) === withoutFit(b);
  }

  function selectFit(spec) {
    if (scenario.placement.fit === spec) return;
    scenario = { ...scenario, placement: { ...scenario.placement, fit: spec } };
    controls.setFit(spec);
    controls.showErrors([]);
    machineIdx = null;
    updateLink();
    highlightRow();
    drawFrontier();
    requestMachine();
  }

  function updateLink() {
    updateLocation(wasm, scenario);
  }

  // ---- runs
  /** @param {import('../common/run-view.js').Progress<import('../../src/wasm/reports').FrontierStep>} p a step's progress */
  function onProgress(p) {
    if (p.partial && p.partial.points.length) {
      partial.push(...p.partial.points);
      schedulePartial();
    }
    setStatus('running', `Computing point ${Math.min(p.done + 1, p.total)} of ${p.total}…`);
  }

  function onDone(res, { scenario: sc }) {
    frontier = res.report;
    setStatus('done', `${frontier.points.length} points in ${(res.elapsed_ms / 1000).toFixed(2)} s${onWorkers(res)} · ${frontier.items} VMs × ${frontier.realisations} samples`);
    lastRun = { json: withoutFit(sc), status: run.ui.text() };
    renderFrontier();
    updateLink();
    machineIdx = null;
    requestMachine();
  }

  // ---- rendering
  const chartOpts = () => ({
    target_rho: scenario.placement.target_rho,
    highlight: scenario.placement.fit,
  });

  function drawPartial() {
    layout = null;
    drawCanvas(wasm, canvas, CHART_HEIGHT, 'placement.frontier', partial, chartOpts(), (text) => console.warn(text));
  }

  function drawFrontier() {
    if (frontier) layout = run.draw(canvas, CHART_HEIGHT, 'placement.frontier', frontier.points, chartOpts());
  }

  function renderFrontier() {
    const f = frontier;
    const mNorm = f.points.length ? f.points[0].m_norm : '–';
    subtitle.textContent = `${f.trace}: ${f.items} VMs, R = ${f.realisations} (|O| = ${f.observations}, |E| = ${f.evaluations}), c = ${f.capacity}, m_norm = ${mNorm}, ${f.rule === 'bf' ? 'Best Fit' : 'First Fit'}${f.rebalance ? ' + rebalancing' : ''}, seed ${scenario.seed}`;
    drawFrontier();
    setChildren(tbody, f.points.map((p) => (p.error ? failedRow(p) : h('tr', {
      class: p.pareto ? 'pareto' : '',
      tabindex: 0,
      dataset: { spec: p.spec, family: p.family, mAbs: String(p.m_abs), mNorm: String(p.m_norm), m: String(p.m), q: String(p.q), utilization: String(p.utilization), pareto: String(p.pareto), ...(p.calibration ? { rhoCal: String(p.calibration.rho) } : {}) },
      title: p.calibration ? calibrationText(p.calibration) : null,
      onclick: () => selectFit(p.spec),
      onkeydown: (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); selectFit(p.spec); } },
    },
    h('td', {}, h('span', { class: `swatch fam-${p.family}`, 'aria-hidden': 'true' }), p.spec),
    h('td', { class: 'num' }, String(p.m_abs)),
    h('td', { class: 'num' }, p.m.toFixed(4)), h('td', { class: 'num' }, fmt(p.q)),
    h('td', { class: 'num' }, `${(p.utilization * 100).toFixed(1)}%`),
    h('td', { class: 'center' }, p.pareto ? '●' : '')))));
    highlightRow();
  }

  /** A user's script that failed at run time: its error in its row, every other point as it is. */
  function failedRow(p) {
    return h('tr', { class: 'failed', dataset: { spec: p.spec, family: p.family, error: p.error } },
      h('td', {}, h('span', { class: `swatch fam-${p.family}`, 'aria-hidden': 'true' }), p.spec),
      h('td', { colspan: 5, class: 'error' }, `failed: ${p.error}`));
  }

  function highlightRow() {
    for (const tr of tbody.children) tr.classList.toggle('selected', tr.dataset.spec === scenario.placement.fit);
  }

  // ---- teaching view
  function requestMachine() {
    const fit = scenario.placement.fit;
    const r = worker.request('run.query', { scenario, key: instanceKey(scenario), op: 'machine', args: { fit, machine: Math.max(0, machineIdx ?? 0) } });
    machineQuery(r, {
      onResult: (res) => {
        if (machineIdx === null) {
          machineIdx = argmax(res.packing.q_per_machine);
          if (machineIdx !== res.view.machine) {
            requestMachine();
            return;
          }
        }
        lastMachine = res;
        mInput.max = String(res.packing.m_abs - 1);
        mInput.value = String(res.view.machine);
        drawMachine();
      },
      onError: (e) => {
        if (!(e && e.field === 'machine' && machineIdx)) return false;
        machineIdx = 0; // a machine the packing does not have: its first
        requestMachine();
        return true;
      },
    });
  }

  function showMachine(j) {
    if (!lastMachine) return;
    const n = lastMachine.packing.m_abs;
    machineIdx = ((Math.round(j) % n) + n) % n || 0;
    requestMachine();
  }

  function argmax(q) {
    let best = 0;
    q.forEach((v, i) => { if (v > q[best]) best = i; });
    return best;
  }

  function worstMachine() {
    if (!lastMachine) return;
    showMachine(argmax(lastMachine.packing.q_per_machine));
  }

  function drawMachine() {
    if (!lastMachine) return;
    const { view, packing, fit } = lastMachine;
    drawCanvas(wasm, mCanvas, MACHINE_HEIGHT, 'placement.machine', view, {}, (text) => console.warn(text));
    const rho = fit.startsWith('gpa:') ? Number(fit.slice(4)) : (fit.startsWith('gpa-cal:') ? Number(fit.slice(8)) : null);
    setChildren(mInfo,
      h('div', {}, h('strong', {}, fit), ` packs ${packing.items_per_machine.reduce((a, b) => a + b, 0)} VMs onto ${packing.m_abs} machines (m = ${fmt(packing.m)}, q = ${fmt(packing.q)}).`),
      packing.calibration ? h('div', { id: 'machine-calibration' }, `${calibrationText(packing.calibration)} (μ′, σ′ below are from all of O).`) : null,
      h('div', {}, `Machine ${view.machine} holds ${view.items.length} VMs: μ′ = ${fmt(view.mean)}, σ′ = ${fmt(view.sd)}, c = ${fmt(view.capacity)}.`),
      h('div', { class: 'probs' },
        h('span', { class: 'prob emp' }, `empirical P(total > c) over E = ${fmt(view.empirical_overflow)}`),
        h('span', { class: 'prob gauss' }, `Gaussian P(N(μ′, σ′²) > c) = ${fmt(view.gaussian_overflow)}`),
        rho ? h('span', { class: 'prob target' }, `SLO ρ = ${fmt(rho)}`) : null));
  }

  /** One line on how calibrated GPA chose its knob ρ′ (the engine's `Calibration`). */
  function calibrationText(c) {
    const q = c.q_calibration == null ? '—' : fmt(c.q_calibration);
    return `calibrated ρ′ = ${fmt(c.rho)}: q = ${q} on the ${c.calibration_columns} held-out columns of O (target ${fmt(c.target)}${c.met ? '' : ', not met'})${c.note ? `; ${c.note}` : ''}`;
  }

  // ---- public API used by the app shell
  return viewHandle({
    scenario: () => scenario,
    link: updateLink,
    /** A trace finished loading (bundled or upload): record it in the scenario and run. */
    traceLoaded({ ref }) {
      traceRef = ref;
      scenario = { ...scenario, trace: ref };
      if (holdFirstRun) {
        holdFirstRun = false;
        run.begin(false);
        updateLink();
      } else startRun();
    },
  });
}
