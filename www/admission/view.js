// @ts-check
// The admission model's view (cluster admission control, seed 000, ALGORITHMS.md §2): controls, the data
// note, the frontier (utilization vs scale-out failure rate, one curve per policy as its threshold sweeps,
// the SLA line, tuned points), the results table, one run's time series, exports and share links.
// Computation happens in the worker: the shared 'run' operation (one simulation run per step), 'model.call'
// for the run view and 'admission.azure' for the Azure fit.

import { h, setChildren, fmt, debounce, fitCanvas, frameThrottle, dataCard } from '../common/dom.js';
import { headerCell } from '../common/glossary.js';
import { errorText } from '../common/engine.js';
import { updateLocation } from '../common/share.js';
import { downloadSvg } from '../common/exports.js';
import { onWorkers } from '../common/run-controls.js';
import { createRunView, viewHandle, latestQuery } from '../common/run-view.js';
import { createControls, azureFitAvailable } from './controls.js';

const CHART_HEIGHT = 440;
const SERIES_HEIGHT = 380;


const pct = (v) => `${(v * 100).toFixed(2)}%`;

/** The frontier's curves of a complete report: per arm, its threshold sweep and its tuned point. */
const curvesOf = (report) => report.arms.map((a) => ({ label: a.label, points: a.sweep.map((e) => [e.utilization, e.failure_rate]), tuned: tunedPoint(a) }));

/** The tuned point of an arm on the frontier: none when no threshold could be certified (status 'untunable'). */
const tunedPoint = (a) => (a.status === 'untunable' ? null : [a.utilization, a.failure_rate]);

/** The data note: what the real Azure 2017 arrivals identify and what keeps documented defaults. */
function dataNote(azureOk, fitNote) {
  return dataCard('admission',
    h('p', { class: 'fine' }, 'Deployments arrive as a Poisson process, start with n₀ cores, lose cores at rate λ each, scale out at rate ν·λ by 1 + Poisson(σ) cores and are killed after an Exp(λ/κ) maximum lifetime (§2.1). A scale-out that does not fit in C fails.'),
    h('dl', { class: 'summary' },
      h('dt', {}, 'from Azure 2017'), h('dd', {}, 'arrival rate, initial-size distribution, core-lifetime prior (λ): maximum likelihood with right-censoring on the public VM arrivals (seed 000 App. B).'),
      h('dt', {}, 'documented defaults'), h('dd', {}, 'scale-out rate ν and size σ, kill factor κ: the arrivals cannot identify them (§2.13 values, editable as custom parameters).')),
    h('p', { class: 'fine' }, azureOk
      ? 'Choose “Azure 2017-fitted parameters” to run on the fitted values.'
      : 'The Azure fit is not in this engine version yet: the option is disabled and the documented defaults are used.'),
    fitNote,
    h('p', { class: 'fine' }, 'Scale: the playground defaults (C = 1,000 cores, 2 months, R = 2 runs, 6 search steps) finish in about 10 s in a browser; §2.12 uses C = 20,000 cores, 3 years and more runs (`packlab admit`).'));
}

export function mount({ root, wasm, worker, scenario: initial, autorun = true }) {
  let scenario = initial.model === 'admission' ? initial : { ...initial, model: 'admission' };
  let report = null; // the last complete report
  let curves = []; // [{ label, points: [[u, f]...], tuned }] of the run on display
  let rowsByArm = []; // finished arms of the run on display
  let series = null;
  let seriesReq = 0;

  const fitNote = h('p', { class: 'fine fit-note', id: 'admission-fit-note' });
  // the frontier is redrawn during a run at most once per frame and 100 ms
  const scheduleDraw = frameThrottle(() => { if (run.isRunning()) drawFrontier(); });
  const controls = createControls({ wasm, onChange: debounce(onControls, 300), onAzure: fitAzure });
  controls.fill(scenario);

  // ---- frontier card
  const canvas = h('canvas', { id: 'admission-canvas', role: 'img', 'aria-label': 'admission frontier: mean utilization against scale-out failure rate' });
  const subtitle = h('p', { class: 'fine', id: 'admission-subtitle' });
  const stem = () => `packlab-admission-${(report ? report.preset : 'frontier').replace(/[^A-Za-z0-9._-]+/g, '_')}`;
  const run = createRunView({
    wasm, worker, controls,
    scenario: () => scenario,
    stepWord: 'simulation runs',
    card: { key: 'admission', title: 'Utilization vs. scale-out failure frontier' },
    body: [subtitle, h('div', { class: 'canvas-wrap' }, canvas)],
    payload: () => ({ scenario }),
    onStart: () => { curves = []; rowsByArm = []; },
    onProgress,
    onDone,
    hasResult: () => !!report,
    onCancelled: () => {
      if (report) { curves = curvesOf(report); renderTable(report.arms, true); }
      drawFrontier();
    },
    exports: exportSpec(),
  });
  const setStatus = run.setStatus;
  const startRun = run.start;
  const frontierCard = run.card;

  function exportSpec() {
    return {
      prefix: 'admission-export',
      canvas,
      stem,
      ready: () => !!report,
      svg: () => wasm.chart_svg('admission.frontier', curves, { sla: report.sla, title: subtitle.textContent }, 1000, 600),
      csv: () => {
        const rows = [['policy', 'tuned', 'threshold', 'utilization', 'utilization_ci_lo', 'utilization_ci_hi', 'failure_rate', 'failure_rate_upper95', 'status']];
        for (const a of report.arms) {
          rows.push([a.label, true, a.threshold, a.utilization, a.utilization_ci[0], a.utilization_ci[1], a.failure_rate, a.failure_rate_upper95, a.status]);
          for (const e of a.sweep) rows.push([a.label, false, e.threshold, e.utilization, '', '', e.failure_rate, e.failure_rate_upper, e.verdict]);
        }
        return rows;
      },
      json: () => ({ report }),
      scenario: () => scenario,
    };
  }

  // ---- results table
  const tbody = h('tbody', { id: 'admission-rows' });
  const tableCard = h('section', { class: 'card table-card', id: 'admission-table-card', 'aria-labelledby': 'admission-table-title' },
    h('h2', { id: 'admission-table-title' }, 'Tuned policies'),
    h('p', { class: 'fine' }, 'Each policy\'s threshold is tuned by binary search so the 95% upper bound of the failure rate stays within the SLA (§2.8); utilization with its 95% BCa bootstrap CI over runs. With no failure, certifying ε takes at least 3/ε scale-out requests (3,000 for ε = 0.001): when the runs carry fewer at every threshold that admits anything, the policy cannot be tuned at this scale and says so. Click a row to see one of its runs.'),
    h('div', { class: 'table-scroll' }, h('table', { class: 'results', id: 'admission-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'policy'), headerCell('threshold', { title: 'cores for ZEROTH/FIRST, Cantelli ratio for SECOND', term: 'θ' }),
        headerCell('utilization [95% CI]', { title: 'mean utilization [95% BCa CI]', term: 'utilization' }),
        headerCell('fail rate', { title: 'failed / requested scale-outs, to be kept below ε', term: 'ε' }),
        h('th', { scope: 'col', class: 'num' }, 'vs ZEROTH'))),
      tbody)));

  // ---- time series card
  const sCanvas = h('canvas', { id: 'admission-series-canvas', role: 'img', 'aria-label': 'one run: active cores, capacity, arrivals and failed scale-outs over time' });
  const armSelect = h('select', { id: 'admission-series-arm', 'aria-label': 'policy of the run shown' });
  const runInput = h('input', { type: 'number', min: 0, step: 1, value: 0, id: 'admission-series-run', 'aria-label': 'run number' });
  const sInfo = h('div', { class: 'machine-info', id: 'admission-series-info' });
  const seriesQuery = latestQuery(sInfo);
  const seriesCard = h('section', { class: 'card', id: 'admission-series-card', 'aria-labelledby': 'admission-series-title' },
    h('div', { class: 'card-head' },
      h('h2', { id: 'admission-series-title' }, 'One run over time'),
      h('div', { class: 'row' }, h('label', { class: 'inline' }, 'policy ', armSelect), h('label', { class: 'inline' }, 'run ', runInput),
        h('button', { type: 'button', class: 'btn small', id: 'admission-series-svg', onclick: exportSeriesSvg }, 'SVG'))),
    h('p', { class: 'fine' }, 'The policy at its tuned threshold on one of the runs the tuning used (same random numbers).'),
    h('div', { class: 'canvas-wrap' }, sCanvas), sInfo);
  armSelect.addEventListener('change', () => setSeries(armSelect.value, Number(runInput.value)));
  runInput.addEventListener('change', () => setSeries(armSelect.value, Number(runInput.value)));

  setChildren(root,
    h('div', { class: 'layout' },
      h('aside', { class: 'sidebar' }, controls.el, dataNote(azureFitAvailable(wasm), fitNote)),
      h('div', { class: 'content' }, frontierCard, h('div', { class: 'split' }, tableCard, seriesCard))));
  window.addEventListener('resize', debounce(() => { drawFrontier(); drawSeries(); }, 150));

  // ---- Azure 2017-fitted parameters (the fit runs in the worker; the scenario then carries the values)
  function showFitNote() {
    const p = scenario.admission.params;
    if (scenario.admission.source !== 'azure') { fitNote.textContent = ''; return; }
    const sizes = p.initial_size && p.initial_size.sizes ? p.initial_size.sizes.length : 0;
    const w = p.initial_size && p.initial_size.weights ? p.initial_size.weights : [];
    const tot = w.reduce((x, y) => x + y, 0);
    const mean = tot ? p.initial_size.sizes.reduce((acc, sz, i) => acc + sz * w[i], 0) / tot : NaN;
    fitNote.textContent = `Fitted to Azure 2017: arrival rate ${fmt(p.arrival_rate)} per hour (this cluster's share of the region-wide stream, giving the §2.13 ratio of unconstrained load to capacity); ${sizes} initial sizes (mean ${fmt(mean, 3)} cores); λ ~ Γ(${fmt(p.priors.lambda.shape)}, ${fmt(p.priors.lambda.rate)} h). ν, σ and κ keep the §2.13 defaults.`;
  }
  function fitAzure() {
    setStatus('running', 'Fitting the Azure 2017 arrivals…');
    const { scenario: read } = controls.read(scenario);
    worker.request('admission.azure', { scenario: read }).promise.then((res) => {
      scenario = res.scenario;
      controls.fill(scenario);
      showFitNote();
      updateLink();
      startRun();
    }, (e) => {
      setStatus('error', `Azure fit failed: ${errorText(e)}`);
      controls.showErrors([{ field: 'admission.source', message: errorText(e) }]);
    });
  }

  // ---- scenario edits
  function onControls() {
    run.edited({ base: scenario, runKey: runPart, apply: (sc) => { scenario = sc; showFitNote(); updateLink(); } });
  }

  /** The parts of the scenario the experiment depends on (not the run shown in the time series). */
  function runPart(s) {
    return { seed: s.seed, a: { ...s.admission, series_arm: null, series_run: null } };
  }

  function updateLink() {
    updateLocation(wasm, scenario);
  }

  // ---- runs
  /** @param {import('../common/run-view.js').Progress<import('../../src/wasm/reports').AdmissionStep>} p a step's progress */
  function onProgress(p) {
    const st = p.partial;
    if (!st) return;
    const c = curves[st.arm] || (curves[st.arm] = { label: st.label, points: [], tuned: null });
    if (st.evaluated) c.points.push([st.evaluated.utilization, st.evaluated.failure_rate]);
    if (st.finished) {
      c.tuned = tunedPoint(st.finished);
      rowsByArm[st.arm] = st.finished;
      renderTable(rowsByArm.filter(Boolean), false);
      run.markFirst();
    }
    if (st.evaluated || st.finished) scheduleDraw();
    setStatus('running', `${st.label}: run ${p.done} of ${p.total}…`);
  }

  function onDone(res) {
    report = res.report;
    curves = curvesOf(report);
    const untunable = report.arms.filter((a) => a.status === 'untunable').length;
    const secs = `${(res.elapsed_ms / 1000).toFixed(1)} s${onWorkers(res)}`;
    setStatus('done', untunable
      ? `${report.arms.length - untunable} of ${report.arms.length} policies tuned in ${secs}; ${untunable} cannot be tuned at this scale (see the table)`
      : `${report.arms.length} policies tuned in ${secs}`);
    subtitle.textContent = `${report.preset}: C = ${fmt(report.capacity)} cores, T = ${fmt(report.horizon_hours)} h, R = ${report.runs} runs, SLA ε = ${fmt(report.sla)}, seed ${report.seed}`;
    renderTable(report.arms, true);
    drawFrontier();
    updateLink();
    requestSeries();
  }

  // ---- rendering
  function drawFrontier() {
    run.draw(canvas, CHART_HEIGHT, 'admission.frontier', curves.filter(Boolean), { sla: scenario.admission.params.sla });
  }

  function renderTable(arms, complete) {
    const idx = (label) => curves.findIndex((c) => c && c.label === label);
    setChildren(tbody, arms.map((a) => h('tr', {
      tabindex: 0,
      class: a.label === currentArm() ? 'selected' : '',
      dataset: {
        label: a.label, threshold: String(a.threshold), utilization: String(a.utilization),
        ciLo: String(a.utilization_ci[0]), ciHi: String(a.utilization_ci[1]), failureRate: String(a.failure_rate),
        failureRateUpper95: String(a.failure_rate_upper95), status: a.status, admitted: String(a.accepted),
        arrivals: String(a.arrivals),
      },
      onclick: () => complete && setSeries(a.label, scenario.admission.series_run),
      onkeydown: (ev) => { if (complete && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); setSeries(a.label, scenario.admission.series_run); } },
    },
    h('td', {}, a.label.startsWith('script:')
      // a user's script: the script colour, as on the chart
      ? h('span', { class: 'swatch fam-script', 'aria-hidden': 'true' })
      : h('span', { class: 'swatch', style: { background: wasm.arm_color(Math.max(0, idx(a.label))) }, 'aria-hidden': 'true' }), a.label),
    ...(a.status === 'untunable'
      // no certified threshold: say so instead of showing the threshold the search stopped at
      ? [h('td', { colspan: 4, class: 'untunable', title: a.status_reason },
        h('strong', {}, a.error ? 'the script failed' : 'cannot be tuned at this scale'),
        h('span', { class: 'reason' }, a.status_reason.replace(/^cannot be tuned( at this scale)?: /, '')))]
      : [
        h('td', { class: 'num', title: a.status === 'bound' ? 'no threshold: accepts whatever fits, failures ignored (§2.10)' : `${a.accepted} of ${a.arrivals} arrivals admitted` }, a.status === 'bound' ? '—' : fmt(a.threshold)),
        h('td', { class: 'num' }, pct(a.utilization), h('span', { class: 'ci' }, ` [${(a.utilization_ci[0] * 100).toFixed(1)}, ${(a.utilization_ci[1] * 100).toFixed(1)}]`)),
        h('td', { class: 'num', title: `95% upper bound ${fmt(a.failure_rate_upper95)}` }, fmt(a.failure_rate)),
        h('td', { class: 'num' }, a.gain_vs_zeroth == null || a.kind === 'ZEROTH' ? '' : `${a.gain_vs_zeroth >= 0 ? '+' : ''}${(a.gain_vs_zeroth * 100).toFixed(1)}%`)]))));
    if (complete) {
      setChildren(armSelect, arms.map((a) => h('option', { value: a.label }, a.label)));
      armSelect.value = currentArm();
      runInput.max = String(scenario.admission.runs - 1);
      runInput.value = String(scenario.admission.series_run);
    }
  }

  // ---- time series of one run
  function currentArm() {
    const arms = report ? report.arms : [];
    const want = scenario.admission.series_arm;
    const tuned = (x) => x.status === 'tuned';
    const a = arms.find((x) => x.label === want) || arms.find((x) => x.kind === 'SECOND' && tuned(x))
      || arms.find(tuned) || arms.find((x) => x.kind === 'SECOND') || arms[0];
    return a ? a.label : '';
  }

  function setSeries(label, run) {
    const runs = scenario.admission.runs;
    const r = Number.isInteger(run) && run >= 0 && run < runs ? run : 0;
    scenario = { ...scenario, admission: { ...scenario.admission, series_arm: label, series_run: r } };
    updateLink();
    renderTable(report ? report.arms : [], !!report);
    requestSeries();
  }

  function requestSeries() {
    if (!report) return;
    const label = currentArm();
    const arm = report.arms.find((a) => a.label === label);
    if (!arm) return;
    const id = ++seriesReq;
    const req = worker.request('model.call', { scenario, op: 'series', args: { label, threshold: arm.threshold, run: scenario.admission.series_run, points: 400 } });
    seriesQuery(req, { loading: 'Simulating…', onResult: (s) => {
      series = { ...s, label, threshold: arm.threshold, run: scenario.admission.series_run, untunable: arm.status === 'untunable' };
      seriesCard.dataset.ready = String(id);
      drawSeries();
    } });
  }

  function seriesChart(s, dpr) {
    return { t: s.t, active: s.active, failures: s.failures, accepted: s.accepted, rejected: s.rejected, capacity: s.capacity, scale: dpr };
  }

  function drawSeries() {
    if (!series) return;
    const dpr = fitCanvas(sCanvas, SERIES_HEIGHT);
    try {
      wasm.draw_chart(sCanvas, 'admission.series', seriesChart(series, dpr), null);
    } catch (e) {
      console.warn('series chart', e);
    }
    const s = series;
    setChildren(sInfo,
      s.untunable ? h('div', { class: 'fine' }, `${s.label} cannot be tuned at this scale: this run uses the most permissive threshold its search tried without a failure, which is not certified.`) : null,
      h('div', {}, h('strong', {}, s.label), ` at threshold ${fmt(s.threshold)}, run ${s.run}: utilization ${pct(s.utilization)}, ${s.admitted} of ${s.arrivals} arrivals admitted, ${s.failed} of ${s.requests} scale-outs failed (rate ${fmt(s.failure_rate)}).`));
  }

  // ---- exports (the frontier's are in exportBtns)
  function exportSeriesSvg() {
    if (!series) return;
    downloadSvg(`${stem()}-run.svg`, () => wasm.chart_svg('admission.series', { ...seriesChart(series, 1), title: `${series.label}, run ${series.run}` }, null, 1000, 600),
      (text) => setStatus('error', text));
  }

  showFitNote();
  drawFrontier();
  updateLink();
  run.begin(autorun);

  return viewHandle({ scenario: () => scenario, link: updateLink });
}
