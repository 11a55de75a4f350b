// @ts-check
// The lifetime model's view (lifetime-aware VM allocation, seed 003, ALGORITHMS.md §5): controls, the data
// statement with the pool's set-up, the chart of empty hosts over time (one line per policy, the warm-up
// shaded), the results table, the host timeline, the accuracy frontier (E3.2), a link to seed 003's findings page
// (findings.html?paper=003), exports and share links. Computation happens in the worker: the shared
// 'run' operation (one policy simulated per step) on the scenario's workload, which the shared worker layer
// loads once and keeps (the bundled Azure 2017 arrivals, or an upload through 'workload.load'); the frontier
// is a sweep (the engine's src/sweep.rs, `packlab sweep`) run cell by cell through the same operation.

import { h, setChildren, fmt, debounce, frameThrottle, download, scrollTable, dataCard, pct as percent, int } from '../common/dom.js';
import { headerCell } from '../common/glossary.js';
import { errorText } from '../common/engine.js';
import { updateLocation } from '../common/share.js';
import { createRunView, viewHandle, drawCanvas, latestQuery } from '../common/run-view.js';
import { runCells } from '../common/sweep.js';
import { createControls, lifetimePolicies } from './controls.js';
import { spreadText } from './spread.js';

const CHART_HEIGHT = 420;
const TIMELINE_HEIGHT = 460;
const ACCURACY_HEIGHT = 400;

/** The accuracies of the frontier: E3.2's grid A ∈ {0.5, 0.6, …, 1.0} (ALGORITHMS.md §5.9, App. G.1). */
export const ACCURACY_GRID = [0.5, 0.6, 0.7, 0.8, 0.9, 1];


/**
 * The accuracy frontier's sweep file for `scenario` (the format `packlab sweep` reads): the scenario with the
 * noisy predictor (its reprediction setting, policies and pool kept) over `lifetime.accuracy` ∈ ACCURACY_GRID.
 */
export function accuracySweep(wasm, scenario) {
  const noisy = { ...scenario, model: 'lifetime', lifetime: { ...scenario.lifetime, predictor: 'noisy' } };
  return JSON.stringify({ scenario: wasm.scenario_to_link(noisy), axes: [{ field: 'lifetime.accuracy', values: ACCURACY_GRID }] }, null, 2);
}

/** The frontier's oracle reference: the same scenario with the oracle predictor. */
export function oracleScenario(scenario) {
  return { ...scenario, model: 'lifetime', lifetime: { ...scenario.lifetime, predictor: 'oracle' } };
}

/**
 * The frontier's curves (data of the chart `lifetime.accuracy`) from the cells' reports (in cell order, any
 * prefix of the sweep) and the oracle's report (or null): per policy of the reports, Δ empty hosts vs best
 * fit (the engine's `empty_hosts_pp_vs_best_fit`) at each cell's accuracy, and the oracle's.
 */
export function frontierCurves(cells, reports, oracle) {
  if (!reports.length) return [];
  return reports[0].results.map(({ policy }) => {
    const delta = (rep) => (rep.results.find((r) => r.policy === policy) || {}).empty_hosts_pp_vs_best_fit;
    return {
      policy,
      accuracy: reports.map((_, i) => cells[i].scenario.lifetime.accuracy),
      delta_pp: reports.map(delta),
      oracle_pp: oracle ? delta(oracle) : undefined,
    };
  });
}


const pct = (v, d = 2) => percent(v, d);
const pp = (v) => (v === 0 ? '0' : Number.isFinite(v) ? `${v > 0 ? '+' : ''}${v.toFixed(2)}` : '–');
let POLICIES = []; // the engine's, set by mount()
const policyIndex = (name) => POLICIES.findIndex((p) => p.name === name);
const policyTitle = (name) => (POLICIES.find((p) => p.name === name) || { title: name }).title;

/** The results as the table and the CSV show them (the engine's field names). */
/** The E3.5 table: [key, label, title, value(result), glossary term?] for results that carry both orders (`lifetime.defrag`). */
/** @type {Array<[key: string, label: string, title: string, value: ((v: any) => string) | null, term?: string]>} */
const MIGRATION_COLUMNS = [
  ['drained_hosts', 'drained hosts', 'hosts the start-order run drained (the same drains in both orders)', (r) => int(r.start_order.drained_hosts)],
  ['start_migrations', 'start order: migrations', 'live migrations in ascending start-time order (the baseline order)', (r) => int(r.start_order.migrations)],
  ['start_saved', 'saved', 'queued VMs that exited before their slot, start order', (r) => int(r.start_order.migrations_saved)],
  ['lars_migrations', 'LARS: migrations', 'live migrations in the LARS order on the same drains', (r) => int(r.lars.migrations), 'LARS'],
  ['lars_saved', 'saved', 'queued VMs that exited before their slot, LARS order', (r) => int(r.lars.migrations_saved)],
  ['change', 'change', 'LARS migrations vs the start order (seed 003: −4.32%, −4.55%)', (r) => (r.start_order.migrations > 0 ? `${(100 * (r.lars.migrations / r.start_order.migrations - 1)).toFixed(1)}%` : '–')],
  ['reordered', 'drains reordered', 'drains whose queue LARS puts in another order', (r) => int(r.lars.reordered_drains)],
];

/** The results table: [key, label, title (the formula), value, glossary term (default: the label, if the glossary has it)]. */
/** @type {Array<[key: string, label: string, title: string, value: ((v: any) => string) | null, term?: string]>} */
const COLUMNS = [
  ['empty_hosts', 'empty hosts', 'time average over the measured window of the fraction of hosts without VMs (§5.8)', pct],
  ['empty_hosts_pp_vs_best_fit', 'Δ pp vs best fit', 'empty hosts minus best fit\'s on the same arrivals, percentage points', pp, 'empty hosts'],
  ['optimum_empty_hosts', 'optimum', 'time average of ⌊H·min_r(free_r / cap_r)⌋ / H: the most empty hosts any packing could give (App. G.2)', pct],
  ['empty_to_free', 'empty / free', 'cores on empty hosts / all free cores (time average)', (v) => fmt(v, 3)],
  ['packing_density', 'density', 'allocated cores on non-empty hosts / their cores (time average)', (v) => fmt(v, 3)],
  ['allocation', 'allocation', 'allocated cores / all cores (time average)', pct],
  ['stranded_cpu', 'stranded CPU', 'free cores left after inflation with recent shapes / all cores (§5.8)', pct, 'stranding'],
  ['stranded_mem', 'stranded mem.', 'free memory left after inflation with recent shapes / all memory (§5.8)', pct, 'stranding'],
  ['failures', 'failures', 'VMs no host could take (whole run; after the warm-up in the tooltip)', int],
];

export function mount({ root, wasm, worker, scenario: initial, autorun = true }) {
  POLICIES = lifetimePolicies(wasm);
  let scenario = initial.model === 'lifetime' ? initial : { ...initial, model: 'lifetime' };
  let report = null; // the last complete report
  let results = []; // results of the run on display (partial while it runs)
  let reportSc = null; // the scenario of `report` (its run answers the timeline queries)
  let timeline = null; // the host timeline on display
  let tlPolicy = -1; // its policy's index in the results (-1: LAVA when present)
  let wanted = scenario.workload && scenario.workload.upload ? scenario.workload.upload : null; // a link's upload
  let uploaded = null; // { ref, name, sha256, summary } of the loaded upload

  const color = (i) => (i >= 0 ? wasm.arm_color(i) : '#787878');
  // a policy's swatch: its colour in the engine's order; a user's script (issue 31) in the script colour
  const swatch = (name) => (name.startsWith('script:')
    ? h('span', { class: 'swatch fam-script', 'aria-hidden': 'true' })
    : h('span', { class: 'swatch', style: { background: color(policyIndex(name)) }, 'aria-hidden': 'true' }));
  const scheduleDraw = frameThrottle(() => { if (run.isRunning()) drawChart(); });
  const controls = createControls({ onChange: debounce(onControls, 300), color, wasm });
  controls.fill(scenario);

  // ---- chart card
  const canvas = h('canvas', { id: 'lifetime-canvas', role: 'img', 'aria-label': 'empty hosts over time, one line per policy, warm-up shaded' });
  const subtitle = h('p', { class: 'fine', id: 'lifetime-subtitle' });
  const stem = () => `packlab-lifetime-${report ? `${report.predictor}-seed${report.seed}` : 'run'}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  const run = createRunView({
    wasm, worker, controls,
    scenario: () => scenario,
    stepWord: 'policy simulations',
    card: { key: 'lifetime', title: 'Empty hosts over time' },
    body: [
      subtitle,
      h('div', { class: 'canvas-wrap' }, canvas),
      h('p', { class: 'fine' }, 'Hourly averages from the start of the window; the metrics below average the 5-minute samples after the warm-up. Empty hosts are what a provider can use for large VMs, maintenance or power saving: more is better.')],
    payload: runPayload,
    onStart: () => { results = []; },
    onProgress,
    onDone,
    hasResult: () => !!report,
    onCancelled,
    exports: {
      prefix: 'lifetime-export',
      canvas,
      stem,
      ready: () => !!report,
      svg: () => wasm.chart_svg('lifetime.empty', report.results, { warmup_h: report.warmup_h, title: subtitle.textContent }, 1000, 600),
      csv: () => [['policy', ...COLUMNS.map((c) => c[0]), 'failures_measured', 'samples', 'arrivals']]
        .concat(report.results.map((r) => [r.policy, ...COLUMNS.map((c) => r[c[0]]), r.failures_measured, r.samples, r.arrivals])),
      json: () => ({ report }),
      scenario: () => scenario,
    },
  });
  const setStatus = run.setStatus;
  const startRun = run.start;

  // ---- results table
  const tbody = h('tbody', { id: 'lifetime-rows' });
  const spreadNote = h('p', { class: 'fine', id: 'lifetime-spread' });
  const tableCard = h('section', { class: 'card table-card', id: 'lifetime-table-card', 'aria-labelledby': 'lifetime-table-title' },
    h('h2', { id: 'lifetime-table-title' }, 'Results per policy'),
    h('p', { class: 'fine' }, 'Every policy replays the same arrivals with the same predictions; Δ is against best fit (seed 003 reports +5 to +9.5 pp for the lifetime-aware policies on production pools).'),
    scrollTable('Results per policy', h('table', { class: 'results', id: 'lifetime-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'policy'),
        COLUMNS.map(([, label, title, , term]) => headerCell(label, { title, term })))),
      tbody)),
    spreadNote);

  // ---- live migrations (E3.5), when the scenario defragments: both orders on the start order's own drains
  const migBody = h('tbody', { id: 'lifetime-migration-rows' });
  const migCard = h('section', { class: 'card table-card', id: 'lifetime-migration-card', 'aria-labelledby': 'lifetime-migration-title', hidden: true },
    h('h2', { id: 'lifetime-migration-title' }, 'Live migrations: start order vs LARS (E3.5)'),
    h('p', { class: 'fine' }, 'Hosts are drained when fewer than 5% are empty (up to 3 hosts, at most 3 concurrent 20-minute migrations). Both orders are counted on the same drains of the start-order run, as seed 003 §6.3 does: the same hosts at the same times with the same VMs; only the queue order changes (LARS: longest predicted remaining lifetime first). A VM that exits before its slot is a saved migration. Seed 003 reports −4.32% and −4.55% migrations with LARS on two one-month traces.'),
    scrollTable('Live migrations', h('table', { class: 'results', id: 'lifetime-migration-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'policy'),
        MIGRATION_COLUMNS.map(([, label, title, , term]) => headerCell(label, { title, term })))),
      migBody)));

  // ---- host timeline
  const tlSel = h('select', { id: 'lifetime-timeline-policy', 'aria-label': 'policy of the host timeline' });
  tlSel.addEventListener('change', () => { tlSel.dataset.touched = '1'; tlPolicy = Number(tlSel.value); queryTimeline(); });
  const tlCanvas = h('canvas', { id: 'lifetime-timeline-canvas', role: 'img', 'aria-label': 'every host over time, coloured by the lifetime class of its VMs and, for LAVA, its state' });
  const tlText = h('div', { id: 'lifetime-timeline-text' });
  const timelineQuery = latestQuery(tlText);
  const tlCard = h('section', { class: 'card', id: 'lifetime-timeline-card', 'aria-labelledby': 'lifetime-timeline-title', dataset: { policy: '' } },
    h('h2', { id: 'lifetime-timeline-title' }, 'Host timeline'),
    h('p', { class: 'fine' }, 'Every host of the pool (rows) hour by hour, coloured by the lifetime class of the VMs it holds: light = short-lived, dark = long-lived; white = empty. Under LAVA a host is OPEN in the class of its first VM (blues) and turns RECYCLING (oranges) once it is more than 90% full: it then takes VMs of shorter classes first, which exit before its long VMs, so the host still empties on time. Compare LAVA with best fit to watch the gaps of long-lived hosts fill with shorter VMs and hosts empty out together.'),
    h('div', { class: 'row' }, h('label', {}, 'policy ', tlSel)),
    h('div', { class: 'canvas-wrap' }, tlCanvas),
    tlText);

  // ---- accuracy frontier (E3.2): the sweep's cells, then the oracle, as one run of the card
  const acc = { sweep: null, cells: [], reports: [], oracle: null, oracleSc: null, results: null, sc: null, units: 0, reuse: false };
  const accCanvas = h('canvas', { id: 'lifetime-accuracy-canvas', role: 'img', 'aria-label': 'empty hosts gained against best fit versus prediction accuracy, one line per policy, the oracle dashed' });
  const accSubtitle = h('p', { class: 'fine', id: 'lifetime-accuracy-subtitle' });
  const accHead = h('tr', {});
  const accRows = h('tbody', { id: 'lifetime-accuracy-rows' });
  const accCurves = () => frontierCurves(acc.cells, acc.reports, acc.oracle);
  const accMore = h('div', { class: 'row exports', hidden: true, id: 'lifetime-accuracy-cli' },
    h('span', { class: 'fine' }, 'For ', h('code', {}, 'packlab sweep FILE --out DIR'), ':'),
    h('button', { type: 'button', class: 'btn small', id: 'lifetime-accuracy-sweep-file', onclick: () => acc.sweep && download('lifetime-accuracy.json', `${acc.sweep}\n`, 'application/json') }, 'sweep file'),
    h('button', { type: 'button', class: 'btn small', id: 'lifetime-accuracy-results-json', onclick: () => acc.results && download('results.json', acc.results.json, 'application/json') }, 'results.json'),
    h('button', { type: 'button', class: 'btn small', id: 'lifetime-accuracy-results-csv', onclick: () => acc.results && download('results.csv', acc.results.csv, 'text/csv') }, 'results.csv'));
  const accRun = createRunView({
    wasm, worker, controls,
    card: { key: 'lifetime-accuracy', title: 'Accuracy frontier (E3.2)' },
    runControls: { initialText: 'Not computed yet.' },
    body: [
      h('p', { class: 'fine' }, `Runs this scenario with the noisy predictor at every accuracy A = ${ACCURACY_GRID.map((a) => fmt(a)).join(', ')} (App. G.1: per VM the prediction is right with probability A, else off by 3 decades; reprediction as set above) and once with the oracle, every selected policy each time, and plots the empty hosts each policy gains over best fit. Seed 003 reports that LAVA degrades less than NILAS as A falls. Reprediction is the posterior mean under that known noise model (ALGORITHMS.md §5.2: a point mass at the prediction with weight A, the 3-decade log-normal capped at 14 days with weight 1 − A, given the uptime), so A = 1 is the oracle.`),
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'btn', id: 'lifetime-accuracy-run', onclick: () => accRun.start() }, 'Compute the frontier')),
      accSubtitle,
      h('div', { class: 'canvas-wrap' }, accCanvas),
      scrollTable('Accuracy frontier', h('table', { class: 'results', id: 'lifetime-accuracy-table' }, h('thead', {}, accHead), accRows))],
    exports: {
      prefix: 'lifetime-accuracy-export',
      canvas: accCanvas,
      stem: () => `packlab-lifetime-accuracy-seed${acc.sc ? acc.sc.seed : ''}`,
      ready: () => !!acc.results,
      svg: () => wasm.chart_svg('lifetime.accuracy', accCurves(), { title: accSubtitle.textContent }, 1000, 600),
      csv: () => accCsv(),
      json: () => ({ sweep: JSON.parse(acc.sweep), results: JSON.parse(acc.results.json), oracle: { scenario: acc.oracleSc, link: wasm.scenario_to_link(acc.oracleSc), report: acc.oracle } }),
      scenario: () => acc.sc,
    },
    footer: [accMore],
    runsPerStart: () => acc.units,
    payload: frontierPayload,
    request: frontierRequest,
    onStart: () => accRun.setStatus('running', `A = ${fmt(ACCURACY_GRID[0])} (1 of ${acc.units})…`),
    onProgress: onFrontierProgress,
    onDone: onFrontierDone,
    onCancelled: () => accRun.setStatus('cancelled', `Cancelled after ${acc.reports.filter(Boolean).length} of ${acc.units} runs.`),
  });
  const accCard = accRun.card;

  // ---- the committed findings (E3.1–E3.7)
  const findingsCard = h('section', { class: 'card', id: 'lifetime-findings-card', 'aria-labelledby': 'lifetime-findings-title' },
    h('h2', { id: 'lifetime-findings-title' }, 'Paper vs packlab (E3.1–E3.7)'),
    h('p', { class: 'fine' }, 'Seed 003\'s claims beside packlab\'s reproduction, with verdicts, are on ', h('a', { href: './findings.html?paper=003', id: 'lifetime-findings-link' }, 'the findings page of seed 003'), '.'));

  // ---- data card
  const statementEl = h('p', { id: 'lifetime-data-statement' });
  const setupEl = h('div', { id: 'lifetime-setup' });
  const uploadMsg = h('div', { id: 'lifetime-workload-msg' });
  const fileInput = h('input', { type: 'file', multiple: true, id: 'lifetime-workload-file', 'aria-label': 'workload files' });
  fileInput.addEventListener('change', () => loadUpload([...fileInput.files]));
  const bundledBtn = h('button', { type: 'button', class: 'btn small', id: 'lifetime-workload-bundled', onclick: useBundled }, 'Back to the bundled arrivals');
  const data = dataCard('lifetime',
    statementEl,
    setupEl,
    h('h3', {}, 'Your own workload'),
    h('p', { class: 'fine' }, 'Replay an upload instead: Azure vmtable CSV files (2017 or 2019), the Azure 2017 arrivals, or Alibaba GPU 2023 files. It stays in this page; links record its name and SHA-256.'),
    h('div', { class: 'row' }, fileInput, bundledBtn),
    uploadMsg);

  setChildren(root,
    h('div', { class: 'layout' },
      h('aside', { class: 'sidebar' }, controls.el, data),
      h('div', { class: 'content' }, run.card, tableCard, migCard, tlCard, accCard, findingsCard)));
  window.addEventListener('resize', debounce(() => { drawChart(); drawTimeline(); drawAccuracy(); }, 150));

  // ---- data statement and the pool's set-up
  function workloadTitle() {
    const w = scenario.workload || {};
    if (w.upload) return `the uploaded workload ${w.upload.name}`;
    const b = wasm.bundled_data().find((d) => d.id === w.bundled);
    return b && b.kind === 'azure-arrivals' ? 'real Azure 2017 arrivals' : (b ? b.title : String(w.bundled));
  }

  function showData() {
    const p = scenario.lifetime;
    const split = p.split ? `${p.split} split` : 'every VM';
    setChildren(statementEl, h('strong', {}, `${workloadTitle()} (${split})`),
      `, a pool's share of the tenant batches: ${fmt(p.share * 100, 3)}% of the batches (whole deployments, chosen by the seed), ${p.hosts ? `${p.hosts} hosts` : `hosts sized so the peak demand fills ${fmt(p.peak_allocation * 100, 3)}% of the pool`}.`);
    bundledBtn.hidden = !(scenario.workload && scenario.workload.upload);
    if (!report) {
      setChildren(setupEl, h('p', { class: 'fine' }, 'The pool\'s numbers appear when the run ends.'));
      return;
    }
    const s = report.setup;
    const [cores, mem] = report.host_capacity;
    setChildren(setupEl,
      h('dl', { class: 'summary', id: 'lifetime-setup-list' },
        h('dt', {}, 'VMs'), h('dd', { dataset: { vms: String(s.vms) } }, `${int(s.vms)} of ${int(s.split_vms)} (${int(s.censored)} still running at the end)`),
        h('dt', {}, 'tenant batches'), h('dd', {}, `${int(s.batches)} of ${int(s.split_batches)}`),
        h('dt', {}, 'window'), h('dd', {}, `${fmt(s.window_h / 24, 3)} days, warm-up ${fmt(report.warmup_h)} h`),
        h('dt', {}, 'hosts'), h('dd', { dataset: { hosts: String(report.hosts) } }, `${int(report.hosts)} × ${fmt(cores)} cores / ${fmt(mem)} GB`),
        h('dt', {}, 'offered allocation'), h('dd', {}, pct(s.offered_allocation, 1)),
        h('dt', {}, 'predictor'), h('dd', {}, report.predictor),
        h('dt', {}, 'lifetimes'), h('dd', {}, `mean ${fmt(s.mean_lifetime_h, 3)} h (Kaplan–Meier of ${int(s.training_vms)} training VMs)`)),
      s.notes.length ? h('ul', { class: 'fine', id: 'lifetime-notes' }, s.notes.map((n) => h('li', {}, n))) : null);
  }

  // ---- uploads
  function loadUpload(files) {
    if (!files.length) return;
    // queued behind a running run in the worker (no cancel here: a hard cancel would drop the upload too)
    setChildren(uploadMsg, h('p', { class: 'fine' }, `Reading ${files.length === 1 ? files[0].name : `${files.length} files`}…`));
    const r = worker.loadWorkload(files.map((f) => ({ name: f.webkitRelativePath || f.name, data: f })), { expectSha256: wanted ? wanted.sha256 : undefined });
    r.promise.then((info) => {
      uploaded = info;
      wanted = null;
      scenario = { ...scenario, workload: info.ref };
      const sm = info.summary || {};
      setChildren(uploadMsg, h('p', { class: 'fine', id: 'lifetime-workload-loaded' }, `Loaded ${info.name}: ${int(sm.vms)} VMs (SHA-256 ${info.sha256.slice(0, 12)}…).`));
      showData();
      updateLink();
      startRun();
    }, (e) => {
      setChildren(uploadMsg, h('div', { class: 'error-box', role: 'alert' }, `Not loaded: ${errorText(e)}`,
        uploaded ? h('span', { class: 'where' }, `Still using ${uploaded.name}.`) : null));
    });
  }

  function useBundled() {
    const d = wasm.default_scenario();
    wanted = null;
    scenario = { ...scenario, workload: d.workload, lifetime: { ...scenario.lifetime, split: d.lifetime.split } };
    controls.fill(scenario);
    setChildren(uploadMsg);
    showData();
    updateLink();
    startRun();
  }

  // ---- scenario edits
  function onControls() {
    run.edited({ base: scenario, apply: (sc) => { scenario = sc; showData(); updateLink(); } });
  }

  function updateLink() {
    updateLocation(wasm, scenario);
  }

  // ---- runs
  /** The run request, or null while a link's uploaded workload is not loaded yet (the page asks for it). */
  function runPayload() {
    if (wanted) {
      setStatus('invalid', 'Waiting for the workload this link was made with.');
      setChildren(uploadMsg, h('div', { class: 'request-box', role: 'alert' }, h('strong', {}, 'This link was made with an uploaded workload. '),
        `Choose ${wanted.name} (SHA-256 ${String(wanted.sha256).slice(0, 12)}…) above to reproduce it.`));
      return null;
    }
    return { scenario };
  }

  /** @param {import('../common/run-view.js').Progress<import('../../src/wasm/reports').LifetimeStep>} p a step's progress */
  function onProgress(p) {
    const st = p.partial;
    if (!st) {
      setStatus('running', `Simulating best fit, the baseline (1 of ${p.total})…`);
      return;
    }
    st.results.forEach((x, i) => { results[st.first + i] = x; });
    run.markFirst();
    renderTable(results.filter(Boolean), false);
    scheduleDraw();
    setStatus('running', p.done < p.total ? `${p.done} of ${p.total} policies simulated…` : 'Finishing…');
  }

  function onDone(res, { scenario: sc }) {
    report = res.report;
    results = report.results;
    const s = report.setup;
    setStatus('done', `${report.results.length} policies in ${(res.elapsed_ms / 1000).toFixed(1)} s · ${int(s.vms)} VMs on ${int(report.hosts)} hosts`);
    subtitle.textContent = `${s.workload} (${s.split || 'all VMs'}), share ${fmt(sc.lifetime.share)}: ${int(s.vms)} VMs on ${int(report.hosts)} hosts of ${fmt(report.host_capacity[0])} cores / ${fmt(report.host_capacity[1])} GB, predictor ${report.predictor}, seed ${report.seed}`;
    reportSc = sc;
    renderTable(results, true);
    drawChart();
    showData();
    updateLink();
    fillTimelinePolicies();
    queryTimeline();
  }

  function onCancelled() {
    if (report) {
      results = report.results;
      renderTable(results, true);
    }
    drawChart();
  }

  // ---- rendering
  function drawChart() {
    run.draw(canvas, CHART_HEIGHT, 'lifetime.empty', results.filter(Boolean), { warmup_h: scenario.lifetime.warmup_h });
  }

  function fillTimelinePolicies() {
    setChildren(tlSel, report.results.map((r, i) => h('option', { value: String(i) }, policyTitle(r.policy))));
    if (!tlSel.dataset.touched || tlPolicy < 0 || tlPolicy >= report.results.length) {
      const k = report.results.findIndex((r) => r.policy === 'lava');
      tlPolicy = k >= 0 ? k : 0;
    }
    tlSel.value = String(tlPolicy);
  }

  function queryTimeline() {
    if (!report || !reportSc) return;
    const r = worker.request('run.query', { scenario: reportSc, op: 'timeline', args: { policy: tlPolicy } });
    timelineQuery(r, { loading: 'Fetching the host timeline…', onResult: (v) => {
      timeline = v;
      tlCard.dataset.policy = v.policy;
      tlCard.dataset.hosts = String(v.hosts);
      tlCard.dataset.hours = String(v.hours.length);
      const empty = v.codes.filter((c) => c === 0).length;
      setChildren(tlText, h('p', { class: 'fine', id: 'lifetime-timeline-summary', dataset: { emptyCells: String(empty) } },
        `${policyTitle(v.policy)}: ${v.hosts} hosts × ${v.hours.length} hours; ${fmt(100 * empty / Math.max(1, v.codes.length), 3)}% of host-hours empty (at the first sample of each hour, warm-up included).`));
      drawTimeline();
    } });
  }

  function drawTimeline() {
    if (timeline) drawCanvas(wasm, tlCanvas, TIMELINE_HEIGHT, 'lifetime.timeline', timeline, {}, (text) => setChildren(tlText, h('div', { class: 'error-box' }, text)));
  }

  function renderMigrations(rows) {
    const withOrders = rows.filter((r) => r && r.start_order && r.lars);
    migCard.hidden = !withOrders.length;
    setChildren(migBody, withOrders.map((r) => h('tr', {
      dataset: { policy: r.policy, startMigrations: String(r.start_order.migrations), larsMigrations: String(r.lars.migrations) },
    },
    h('td', {}, swatch(r.policy), policyTitle(r.policy)),
    MIGRATION_COLUMNS.map(([, , , f]) => h('td', { class: 'num' }, f(r))))));
  }

  function renderTable(rows, complete) {
    renderMigrations(rows);
    spreadNote.textContent = complete && report ? spreadText(rows, reportSc, report.hosts, policyTitle) : '';
    const base = rows.find((x) => x.policy === 'best-fit');
    setChildren(tbody, rows.map((r) => {
      // the report carries Δ; while running, the same formula on the rows so far
      const row = complete || !base ? r : { ...r, empty_hosts_pp_vs_best_fit: 100 * (r.empty_hosts - base.empty_hosts) };
      return h('tr', {
        dataset: Object.fromEntries([['policy', r.policy], ['complete', String(complete)], ...COLUMNS.map(([k]) => [camel(k), String(row[k])])]),
      },
      h('td', {}, swatch(r.policy), policyTitle(r.policy)),
      COLUMNS.map(([k, , , f]) => h('td', { class: 'num', title: k === 'failures' ? `${r.failures_measured} after the warm-up` : null }, f(row[k]))));
    }).flatMap((tr, i) => {
      // a user's script that failed at run time: its error under its row (the rest of its run placed by best
      // fit), the other rows as they are
      const r = rows[i];
      return r.error ? [tr, h('tr', { class: 'failed', dataset: { policy: r.policy, error: r.error } },
        h('td', { colspan: COLUMNS.length + 1, class: 'error' }, `${r.policy} failed: ${r.error} (then best fit)`))] : [tr];
    }));
  }

  // ---- the accuracy frontier: the sweep's cells through the shared 'run' operation (transient: the view's
  // own last run keeps answering the timeline), then the oracle (the view's report when it is the oracle's)
  /** The frontier's run request, or null (the status says why) while a link's workload is missing or the sweep is wrong. */
  function frontierPayload() {
    if (wanted) {
      accRun.setStatus('invalid', 'Waiting for the workload this link was made with.');
      return null;
    }
    const sc = scenario;
    let sweep;
    let cells;
    try {
      sweep = accuracySweep(wasm, sc);
      cells = wasm.sweep_cells(sweep).cells;
    } catch (e) {
      accRun.setStatus('error', `Frontier not started: ${errorText(e)}`);
      return null;
    }
    const oSc = oracleScenario(sc);
    const reuse = report && reportSc && JSON.stringify(reportSc) === JSON.stringify(oSc) ? report : null;
    Object.assign(acc, { sweep, cells, reports: [], oracle: reuse, oracleSc: oSc, results: null, sc, units: cells.length + (reuse ? 0 : 1), reuse: !!reuse });
    accMore.hidden = true;
    accSubtitle.textContent = `${sc.lifetime.reprediction ? 'with reprediction' : 'one-shot (no reprediction)'}, share ${fmt(sc.lifetime.share)}, seed ${sc.seed}, ${sc.lifetime.hosts ? `${sc.lifetime.hosts} hosts` : 'hosts sized to the share'}`;
    return { sweep, cells, oracle: reuse, oracleSc: oSc };
  }

  /** The frontier as one run: every cell, then the oracle unless reused; progress { done, total } in runs (fractional). */
  function frontierRequest({ sweep, cells, oracle, oracleSc }, { onProgress }) {
    const t0 = performance.now();
    const units = cells.length + (oracle ? 0 : 1);
    let job = null;
    let oracleReq = null;
    let cancelled = false;
    const promise = (async () => {
      job = runCells({
        worker, cells, key: 'lifetime-accuracy', transient: true,
        onProgress: (i, p) => { if (!p.stage && p.total) onProgress({ done: i + p.done / p.total, total: units, cell: i, inner: p }); },
        onCellDone: (i, res) => onProgress({ done: i + 1, total: units, cell: i, report: res.report }),
      });
      const texts = await job.promise;
      if (cancelled) throw { kind: 'cancelled', message: 'cancelled' };
      let o = oracle;
      if (!o) {
        onProgress({ done: cells.length, total: units, oracle: true });
        oracleReq = worker.request('run', { scenario: oracleSc, key: 'lifetime-accuracy', transient: true }, {
          onProgress: (p) => { if (!p.stage && p.total) onProgress({ done: cells.length + p.done / p.total, total: units, oracle: true }); },
        });
        o = (await oracleReq.promise).report;
      }
      return { report: { texts, oracle: o }, elapsed_ms: performance.now() - t0 };
    })();
    return {
      promise,
      cancel() {
        cancelled = true;
        if (job) job.cancel();
        if (oracleReq) oracleReq.cancel();
      },
    };
  }

  function onFrontierProgress(p) {
    if (p.report) {
      acc.reports[p.cell] = p.report;
      renderAccuracy(false);
    } else if (p.oracle) accRun.setStatus('running', `the oracle (${acc.units} of ${acc.units})…`);
    else accRun.setStatus('running', `A = ${fmt(ACCURACY_GRID[p.cell])} (${p.cell + 1} of ${acc.units}): ${p.inner.done} of ${p.inner.total} policies…`);
  }

  function onFrontierDone({ report: { texts, oracle }, elapsed_ms: ms }) {
    acc.oracle = oracle;
    acc.results = wasm.sweep_results(acc.sweep, texts);
    accMore.hidden = false;
    accRun.setStatus('done', `${acc.units} runs in ${(ms / 1000).toFixed(1)} s${acc.reuse ? ' (the oracle\'s is the run above)' : ''}`);
    renderAccuracy(true);
  }

  function accCsv() {
    const rows = [['predictor', 'accuracy', 'reprediction', 'policy', 'empty_hosts', 'empty_hosts_pp_vs_best_fit', 'failures']];
    const add = (predictor, a, rep) => rep.results.forEach((r) => rows.push([predictor, a, acc.sc.lifetime.reprediction, r.policy, r.empty_hosts, r.empty_hosts_pp_vs_best_fit, r.failures]));
    acc.reports.forEach((rep, i) => add('noisy', acc.cells[i].scenario.lifetime.accuracy, rep));
    if (acc.oracle) add('oracle', '', acc.oracle);
    return rows;
  }

  function renderAccuracy(complete) {
    const reports = acc.reports.filter(Boolean);
    const curves = frontierCurves(acc.cells, reports, complete ? acc.oracle : null);
    setChildren(accHead, h('th', { scope: 'col' }, 'predictor'),
      curves.map((c) => h('th', { scope: 'col', class: 'num', title: 'Δ empty hosts vs best fit, percentage points' },
        swatch(c.policy), `${policyTitle(c.policy)} Δ pp`)));
    const row = (label, predictor, a, rep) => h('tr', { dataset: { predictor, accuracy: a === null ? '' : String(a) } },
      h('td', {}, label),
      curves.map((c) => {
        const v = (rep.results.find((r) => r.policy === c.policy) || {}).empty_hosts_pp_vs_best_fit;
        return h('td', { class: 'num', dataset: { policy: c.policy, value: String(v) } }, pp(v));
      }));
    setChildren(accRows,
      reports.map((rep, i) => row(`noisy A = ${fmt(acc.cells[i].scenario.lifetime.accuracy)}`, 'noisy', acc.cells[i].scenario.lifetime.accuracy, rep)),
      complete && acc.oracle ? row('oracle', 'oracle', null, acc.oracle) : null);
    drawAccuracy(curves);
  }

  function drawAccuracy(curves) {
    if (acc.cells.length) accRun.draw(accCanvas, ACCURACY_HEIGHT, 'lifetime.accuracy', curves || frontierCurves(acc.cells, acc.reports.filter(Boolean), acc.results ? acc.oracle : null));
  }

  showData();
  drawChart();
  updateLink();
  run.begin(autorun);

  return viewHandle({ scenario: () => scenario, link: updateLink });
}

/** `empty_hosts` → `emptyHosts` (dataset keys). */
function camel(k) {
  return k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
}
