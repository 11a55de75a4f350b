// @ts-check
// The oversubscription model's view (chance-constrained oversubscription, seed 001, ALGORITHMS.md §3):
// controls, the data statement with the set-up, the live training curves of the C2MARL arms (hot-cluster hours
// and λ per episode), the frontier of S-Cores against PM-Hot-R, the results table beside the paper's figures,
// the rates a policy gave as a heat map, trained-policy export and import, exports and share links.
// The default view does not train: C2MARL arms whose recipe matches the bundled pretrained arm (the engine's
// bundled-data registry, kind 'c2marl-policy'; `make oversub-pretrained`) are evaluated from it, with its
// training curves, at once; the same report as training them (training is deterministic). Arms it does not
// serve are trained only by the Train button (live curves, progress with an estimate of the time left, Cancel),
// unless the training is small (AUTO_TRAIN_PM_HOURS); meanwhile the other policies run without them.
// Computation happens in the worker: the shared 'run' operation (one training episode, then one evaluation
// episode under every policy per step, with every policy's estimate so far; Pause/Resume between steps) with the imported policy files as the run's input files, and
// 'run.query' with op 'policy' for the export of a trained policy.

import { h, setChildren, fmt, debounce, fitCanvas, frameThrottle, download, scrollTable, dataCard, pct } from '../common/dom.js';
import { headerCell } from '../common/glossary.js';
import { errorText } from '../common/engine.js';
import { updateLocation } from '../common/share.js';
import { onWorkers, duration } from '../common/run-controls.js';
import { createRunView, viewHandle, drawCanvas } from '../common/run-view.js';
import { createControls, sectionSetup, trainedInRun } from './controls.js';

const CHART_HEIGHT = 380;
const RATES_HEIGHT = 420;
/** Largest policy file the page reads (a trained policy is a few hundred KiB at most). */
const MAX_POLICY_BYTES = 16 << 20;
/** The page trains by itself only up to this cost (PM-hours simulated in training: arms × episodes × PMs × hours,
 * ≈ 6 s here); larger trainings wait for the Train button. */
const AUTO_TRAIN_PM_HOURS = 600_000;
/** PM-hours of training per second in Chromium on the 2-core reference machine (the default training, 200
 * episodes × 500 PMs × 120 h, took ~114 s, issue 25), for the estimate shown before a training; replaced by
 * the rate of the last training seen on this page. */
let trainPmHoursPerSec = 105_000;


const ci = (lo, hi, d = 1) => (Number.isFinite(lo) && Number.isFinite(hi) ? ` [${(lo * 100).toFixed(d)}, ${(hi * 100).toFixed(d)}]` : '');
const SAFETY = [0.75, 0.85, 0.95];

/** The name of the policy file `name` as the scenario carries it (`c2marl:<name>`). */
const filePolicy = (name) => `c2marl:${name}`;
/** The file a `c2marl:FILE` policy names (null for the other policies). */
const fileOf = (policy) => {
  const m = /^c2marl:(.+)$/.exec(policy);
  return m && !Number.isFinite(Number(m[1])) ? m[1] : null;
};
/** A row's label: its policy (with the training seed when the run has several). */
const rowLabel = (r) => (r.train_seed !== null && r.train_seed !== undefined && r.train_seed > 0 ? `${r.policy} (seed ${r.train_seed})` : r.policy);
/** "1 min 40 s", "12 s". */

export function mount({ root, wasm, worker, scenario: initial, autorun = true }) {
  let scenario = initial.model === 'oversub' ? initial : { ...initial, model: 'oversub' };
  let report = null;
  let rows = [];
  let curves = new Map(); // `${policy}#${train_seed}` → { policy, train_seed, log }
  let rateRow = -1;
  let forceRun = false; // a re-imported file under a name the scenario already has: run although it is unchanged
  /** Imported policy files: name → bytes (Uint8Array). */
  const files = new Map();

  const scheduleDraw = frameThrottle(() => { if (run.isRunning()) drawCharts(); });
  const controls = createControls({ onChange: debounce(onControls, 300), wasm });
  /** The scenario's policy list (the preset's when it is empty) and its PM count K, from the engine. */
  const policyList = (sc) => sectionSetup(wasm, sc).policies;
  const pmCount = (sc) => sectionSetup(wasm, sc).pms;
  /** The training cost of `arms` C2MARL arms of `sc`, in PM-hours simulated. */
  const trainCost = (sc, arms) => arms * sc.oversub.train_episodes * pmCount(sc) * sc.oversub.hours;
  /** The bundled pretrained arms ([{ name: id, bytes }], fetched once; [] when none could be loaded). */
  let bundle = null;
  /** What the run on display ran: { sc, files, mode: 'plain' | 'bundled' | 'train' | 'untrained' }. */
  let shown = null;
  controls.fill(scenario);

  // ---- chart card
  const frontCanvas = h('canvas', { id: 'oversub-frontier-canvas', role: 'img', 'aria-label': 'S-Cores against PM-Hot-R, one point per policy' });
  const trainCanvas = h('canvas', { id: 'oversub-training-canvas', role: 'img', 'aria-label': 'hot-cluster hours and λ per training episode, per C2MARL arm' });
  const subtitle = h('p', { class: 'fine', id: 'oversub-subtitle' });
  const trainStatus = h('p', { class: 'fine', id: 'oversub-training-status' });
  const paperNote = h('p', { class: 'fine', id: 'oversub-paper' });
  const stem = () => `packlab-oversub-${report ? `${report.preset}-seed${report.seed}` : 'run'}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  const trainWrap = h('div', { class: 'canvas-wrap', id: 'oversub-training-wrap' }, trainCanvas);
  const trainBtn = h('button', { type: 'button', class: 'btn small', id: 'oversub-train', onclick: () => startRun({ train: true }) }, 'Train C2MARL here');
  const trainCostEl = h('span', { class: 'fine', id: 'oversub-train-cost' });
  const run = createRunView({
    wasm, worker, controls,
    card: { key: 'oversub', title: 'Saved cores against hot PMs' },
    pausable: true,
    body: [
      subtitle,
      h('h3', {}, 'Training'),
      trainStatus,
      h('div', { class: 'row' }, trainBtn, trainCostEl),
      trainWrap,
      h('p', { class: 'fine' }, 'Per C2MARL arm and training episode: the mean reward per hour (solid) and the share of hours in which some PM was hot, the cost (dotted), both on the left axis, smoothed over 10 episodes; and the dual variable λ of the chance constraint (dashed, right axis): from half of training, λ grows while, over the last 20 greedy episodes, some PM was unsafe (hot ≥ δ·T hours) more often than 1 − α, and falls otherwise; higher λ pushes the rates up. From 0.8 of training λ is held at the mean of its values so far.'),
      h('h3', {}, 'Frontier'),
      h('div', { class: 'canvas-wrap' }, frontCanvas),
      paperNote,
      h('p', { class: 'fine' }, 'Each point is one policy over the same evaluation episodes: S-Cores = 1 − Σ assigned / Σ requested cores (more is better), PM-Hot-R = the worst PM\'s share of episodes: the max over PMs of each PM\'s share of episodes in which it was hot for at least δ·T hours (less is better). The dashed lines are 1 − V for the safety levels V = 0.75, 0.85, 0.95.')],
    payload: runPayload,
    onStart: () => { runPlan = planned; },
    onProgress,
    onDone,
    hasResult: () => !!report,
    onCancelled,
    onError,
    exports: {
      prefix: 'oversub-export',
      canvas: frontCanvas,
      stem,
      ready: () => !!report,
      svg: () => wasm.chart_svg('oversub.frontier', report.rows, { title: subtitle.textContent }, 1000, 600),
      csv: () => [['policy', 'train_seed', 'episodes', 'pm_hot_r', 'pm_hot_r_lo', 'pm_hot_r_hi', 'c_hot_r', 'c_hot_r_lo', 'c_hot_r_hi', 's_cores', 's_cores_lo', 's_cores_hi',
        ...SAFETY.map((v) => `safe_${v}`), 'hot_pm_hours', 'cluster_hot_hours', 'rejected', 'active_pms', 'utilization']]
        .concat(report.rows.map((r) => [r.policy, r.train_seed ?? '', r.episodes, r.pm_hot_r, r.pm_hot_r_lo, r.pm_hot_r_hi, r.c_hot_r, r.c_hot_r_lo, r.c_hot_r_hi, r.s_cores, r.s_cores_lo, r.s_cores_hi,
          ...r.safe, r.hot_pm_hours, r.cluster_hot_hours, r.rejected, r.active_pms, r.utilization])),
      json: () => ({ report }),
      scenario: () => scenario,
    },
  });
  const setStatus = run.setStatus;
  const startRun = run.start;
  const chartCard = run.card;

  // ---- results table
  const tbody = h('tbody', { id: 'oversub-rows' });
  const th = (text, title, term) => headerCell(text, { title, term });
  const tableCard = h('section', { class: 'card table-card', id: 'oversub-table-card', 'aria-labelledby': 'oversub-table-title' },
    h('h2', { id: 'oversub-table-title' }, 'Results per policy'),
    h('p', { class: 'fine' }, 'Every policy runs on the same evaluation episodes (requests and usage depend on the seed and the episode only). Intervals are 95%: Wilson for the hot ratios, normal for the mean S-Cores.'),
    scrollTable('Results per policy', h('table', { class: 'results', id: 'oversub-table' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'policy'),
        th('PM-Hot-R', 'max over PMs of the share of episodes in which the PM was hot for ≥ δ·T hours, with its 95% Wilson interval'),
        th('C-Hot-R', 'share of episodes in which the cluster (some PM) was hot for ≥ δ·T hours'),
        th('S-Cores', '1 − Σ assigned / Σ requested cores, mean over episodes, with its 95% interval'),
        SAFETY.map((v) => th(`α ${v}`, `safety satisfied at level ${v}: PM-Hot-R ≤ ${fmt(1 - v, 3)}`, 'α')),
        th('hot PM-h / ep', 'PM-hours hot per episode', 'β'),
        th('active PMs', 'PMs with at least one VM, mean over hours', 'PM'),
        th('utilization', 'cores used / (active PMs · B)'),
        th('paper PM-Hot-R', 'seed 001, Tables 1–3', 'PM-Hot-R'),
        th('paper S-Cores', 'seed 001, Tables 1–3', 'S-Cores'))),
      tbody)));

  // ---- rates heat map and trained policies
  const rowSel = h('select', { id: 'oversub-rates-row', 'aria-label': 'the policy whose rates are shown' });
  const ratesCanvas = h('canvas', { id: 'oversub-rates-canvas', role: 'img', 'aria-label': 'mean rate by subscriber and hour of day' });
  const ratesNote = h('p', { class: 'fine', id: 'oversub-rates-note' });
  rowSel.addEventListener('change', () => { rowSel.dataset.touched = '1'; rateRow = Number(rowSel.value); drawRates(); });
  const policyOut = h('p', { class: 'fine', id: 'oversub-policy-status', 'aria-live': 'polite' });
  const exportPolicyBtn = h('button', { type: 'button', class: 'btn small', id: 'oversub-policy-export', onclick: exportPolicy, title: 'the trained policy of the chosen row as a JSON file' }, 'Export trained policy');
  const importInput = h('input', { type: 'file', id: 'oversub-policy-import', class: 'visually-hidden', accept: '.json,application/json', 'aria-label': 'import a trained policy (JSON)' });
  importInput.addEventListener('change', () => { const f = importInput.files && importInput.files[0]; if (f) importPolicy(f); importInput.value = ''; });
  const ratesCard = h('section', { class: 'card', id: 'oversub-rates-card', 'aria-labelledby': 'oversub-rates-title' },
    h('h2', { id: 'oversub-rates-title' }, 'Rates by subscriber and hour'),
    h('p', { class: 'fine' }, 'The mean oversubscription rate the policy gave each subscriber\'s new VMs, by hour of day (assigned cores = rate × requested cores), with the hour of the subscriber\'s mean usage peak marked. A lower rate means more oversubscription (fewer cores assigned); a policy that protects the peaks raises the rate (towards 1) in the hours its subscriber peaks.'),
    h('div', { class: 'row' }, h('label', {}, 'policy ', rowSel)),
    h('div', { class: 'canvas-wrap' }, ratesCanvas),
    ratesNote,
    h('h3', {}, 'Trained policies'),
    h('p', { class: 'fine' }, 'Export the chosen C2MARL row\'s trained policy, or import one: it is evaluated as the policy c2marl:<file name> on the same scenario (a policy trained for another scenario is refused).'),
    h('div', { class: 'row' }, exportPolicyBtn, h('label', { class: 'btn small', for: 'oversub-policy-import' }, 'Import trained policy…'), importInput),
    policyOut);

  // ---- data card
  const statementEl = h('p', { id: 'oversub-data-statement' });
  const setupEl = h('div', { id: 'oversub-setup' });
  const data = dataCard('oversub', statementEl, setupEl);

  setChildren(root,
    h('div', { class: 'layout' },
      h('aside', { class: 'sidebar' }, controls.el, data),
      h('div', { class: 'content' }, chartCard, tableCard, ratesCard)));
  window.addEventListener('resize', debounce(() => { drawCharts(); drawRates(); }, 150));

  function showData() {
    const p = scenario.oversub;
    setChildren(statementEl, p.preset === 'E1.3'
      ? [h('strong', {}, 'Real public data: '), 'subscribers fitted from the Azure 2019 CPU readings (usage) and the Azure 2017 VM table (arrivals, lifetimes); see static/oversub/ATTRIBUTION.md.']
      : [h('strong', {}, 'Synthetic: '), 'the internal cloud of ALGORITHMS.md §3.6 — the paper\'s trace is not public, so its figures are shown beside ours, not reproduced.']);
    if (!report) { setChildren(setupEl, h('p', { class: 'fine' }, 'The set-up appears when the run ends.')); return; }
    const s = report.setup;
    setChildren(setupEl,
      h('dl', { class: 'summary', id: 'oversub-setup-list' },
        h('dt', {}, 'subscribers'), h('dd', { dataset: { subscribers: String(s.subscribers.length) } }, `${s.subscribers.length} (${s.profiles})`),
        h('dt', {}, 'PMs'), h('dd', {}, `${s.pms} × ${fmt(p.pm_cores)} cores`),
        h('dt', {}, 'arrivals'), h('dd', {}, `${fmt(s.arrivals_per_hour, 3)} VMs per hour, mean duration ${fmt(s.mean_duration_h, 3)} h`),
        h('dt', {}, 'usage'), h('dd', {}, `mean ${pct(s.mean_usage)} of the requested cores`),
        h('dt', {}, 'episodes'), h('dd', {}, `${p.hours} h each; ${p.eval_episodes} evaluation episodes per policy, ${p.train_episodes} training episodes per C2MARL arm`)));
  }

  function onControls() {
    if (run.edited({ base: scenario, force: forceRun, apply: (sc) => { scenario = sc; showData(); updateLocation(wasm, scenario); } })) forceRun = false;
  }

  /** The imported files the scenario's policies name, as the run's input files. */
  function runFiles(sc) {
    const names = sc.oversub.policies.map(fileOf).filter(Boolean);
    return names.filter((n) => files.has(n)).map((n) => ({ name: n, bytes: files.get(n) }));
  }

  /** The bundled pretrained arms, fetched on first use ([] when the engine bundles none or the fetch fails). */
  async function bundled() {
    if (bundle) return bundle;
    const out = [];
    for (const d of wasm.bundled_data().filter((b) => b.kind === 'c2marl-policy' && b.models.includes('oversub'))) {
      try {
        const resp = await fetch(new URL(d.path, document.baseURI));
        if (resp.ok) out.push({ name: d.id, bytes: new Uint8Array(await resp.arrayBuffer()) });
      } catch (_) { /* no bundled arm: the arms are trained */ }
    }
    bundle = out;
    return bundle;
  }

  /**
   * What to run for `sc`: { sc, files, mode, why, cost }. C2MARL arms trained in the run (c2marl:α) are served by
   * the bundled pretrained arm when its recipe matches ('bundled'), trained when `train` is set or the training
   * is small ('train'), else left out until the Train button ('untrained', `why` = the engine's difference).
   */
  async function planRun(sc, train) {
    const list = policyList(sc);
    const levelledArms = list.filter(trainedInRun);
    const own = runFiles(sc);
    const cost = trainCost(sc, levelledArms.length * sc.oversub.train_seeds);
    if (!levelledArms.length) return { sc, files: own, mode: 'plain', cost };
    if (train) return { sc, files: own, mode: 'train', cost };
    const pre = await bundled();
    let arms = [];
    if (pre.length) {
      try {
        arms = await worker.request('model.call', { scenario: sc, op: 'pretrained', args: null, file: pre[0] }).promise;
      } catch (_) { arms = []; }
    }
    if (arms.length && arms.every((a) => a.file)) return { sc, files: [...own, pre[0]], mode: 'bundled', cost };
    if (cost <= AUTO_TRAIN_PM_HOURS) return { sc, files: own, mode: 'train', cost };
    const why = (arms.find((a) => !a.file) || {}).difference || 'no bundled policy was trained for it';
    const rest = { ...sc, oversub: { ...sc.oversub, policies: list.filter((n) => !trainedInRun(n)) } };
    return { sc: rest, files: own, mode: 'untrained', cost, why, arms: levelledArms };
  }

  /** The Train button's line: what a training of `sc` costs. */
  function showTrainCost(sc, plan) {
    const arms = policyList(sc).filter(trainedInRun);
    trainBtn.hidden = arms.length === 0;
    if (!arms.length) { trainCostEl.textContent = ''; return; }
    const n = arms.length * sc.oversub.train_seeds;
    const est = plan.cost / trainPmHoursPerSec;
    trainCostEl.textContent = `${n} arm${n > 1 ? 's' : ''} × ${sc.oversub.train_episodes} episodes on ${pmCount(sc)} PMs: about ${duration(est)} in this browser, then the evaluation.`;
  }

  /** What the training section says after a run of `plan`. */
  function trainingNote(plan) {
    if (plan.mode === 'bundled') {
      return `${trainingText('')}. C2MARL is the bundled policy, trained on exactly this scenario (${scenario.oversub.train_episodes} episodes, one seed; the findings' tables train 1,800 episodes × 3 seeds, so their C2MARL rows differ) by the committed command \`make oversub-pretrained\`: the same result as training it here, which Train C2MARL here does with live curves.`;
    }
    if (plan.mode === 'untrained') {
      return `Not trained yet: ${plan.arms.join(', ')} (${plan.why}). The other policies are shown; Train C2MARL here to add it.`;
    }
    return curves.size ? trainingText('') : 'No C2MARL policy is trained in this run.';
  }

  function trainingText(p) {
    const total = scenario.oversub.train_episodes;
    const parts = [...curves.values()].map((c) => {
      const last = c.log[c.log.length - 1] || {};
      return `${rowLabel(c)}: episode ${c.log.length} of ${total} · λ ${fmt(last.lambda, 3)} · hot hours ${fmt(last.hot_steps, 3)}`;
    });
    return parts.length ? parts.join('; ') : p;
  }

  let planned = null; // the plan of the run being requested
  let runPlan = null; // the plan of the run going on
  let trainStarted = null; // when the run's training showed its first episodes

  /** The run request: the plan of what to train, evaluate from the bundled arms or leave out. */
  async function runPayload({ stale }, { train = false } = {}) {
    const plan = await planRun(scenario, train);
    if (stale()) return null; // a newer edit or click took over
    showTrainCost(scenario, plan);
    chartCard.dataset.mode = plan.mode;
    if (plan.mode === 'untrained' && plan.sc.oversub.policies.length === 0) {
      // nothing to show without the training (an empty list would be the preset's)
      trainStatus.textContent = trainingNote(plan);
      setStatus('idle', 'Only C2MARL arms that are not trained yet: press Train C2MARL here.');
      return null;
    }
    rows = [];
    curves = new Map();
    trainStarted = null;
    setChildren(trainStatus, '');
    planned = plan;
    return { scenario: plan.sc, files: plan.files };
  }

  /** @param {import('../common/run-view.js').Progress<import('../../src/wasm/reports').OversubStep>} p a step's progress */
  function onProgress(p) {
    const sc = runPlan.sc;
    const st = p.partial;
    if (!st) { setStatus('running', `Planning: ${p.total} steps (training episodes, then evaluation episodes)…`); return; }
    for (const c of st.training || []) {
      const key = `${c.policy}#${c.train_seed}`;
      if (!curves.has(key)) curves.set(key, { ...c, log: [] });
      curves.get(key).log.push(...c.log);
    }
    if ((st.rows || []).length) rows = st.rows; // every policy's estimate so far
    run.markFirst();
    if ((st.training || []).length) {
      trainStatus.textContent = trainingText('');
      // the training rate this browser reaches (it prices the next Train); the run controls show the time left
      if (trainStarted === null) trainStarted = { at: performance.now() };
      setStatus('running', `Training: ${p.done} of ${p.total} steps…`);
    } else {
      if ((st.rows || []).length) renderTable(rows, false);
      setStatus('running', `Evaluating every policy on the same episodes: ${rows[0]?.episodes ?? 0} of ${sc.oversub.eval_episodes} episodes (estimates so far)…`);
    }
    scheduleDraw();
  }

  function onDone(res) {
    const plan = runPlan;
    const sc = plan.sc;
    report = res.report;
    shown = plan;
    rows = report.rows;
    curves = new Map(report.training.map((c) => [`${c.policy}#${c.train_seed}`, c]));
    if (plan.mode === 'train' && trainStarted) {
      const sec = (performance.now() - trainStarted.at) / 1000;
      if (sec > 1) trainPmHoursPerSec = plan.cost / sec;
    }
    setStatus('done', `${rows.length} policies in ${(res.elapsed_ms / 1000).toFixed(1)} s${onWorkers(res)} · ${report.setup.pms} PMs · ${sc.oversub.eval_episodes} evaluation episodes each`);
    subtitle.textContent = `${report.preset}: ${report.setup.subscribers.length} subscribers on ${report.setup.pms} PMs, β ${fmt(sc.oversub.beta)}, seed ${report.seed}`;
    trainStatus.textContent = trainingNote(plan);
    showPaper();
    renderTable(rows, true);
    fillRows();
    drawCharts();
    drawRates();
    showData();
    updateLocation(wasm, scenario);
  }

  function onCancelled() {
    if (report) { rows = report.rows; curves = new Map(report.training.map((c) => [`${c.policy}#${c.train_seed}`, c])); renderTable(rows, true); }
    drawCharts();
  }

  /** A policy file that does not fit names oversub.policies: say so beside the policy files too. */
  function onError(e, { scenario: sc }) {
    if (e && String(e.field || '').startsWith('oversub.policies') && runFiles(sc).length) policyOut.textContent = 'The run refused a policy: see the policies field.';
  }

  function showPaper() {
    if (!report.paper.length) { setChildren(paperNote); return; }
    setChildren(paperNote, 'Seed 001 reports (PM-Hot-R / S-Cores) ',
      report.paper.map((f) => `${f.policy} ${pct(f.pm_hot_r)} / ${f.s_cores === null ? '–' : pct(f.s_cores)}`).join(', '),
      scenario.oversub.preset === 'E1.3' ? '; on its own Azure-derived set-up.' : '; on its internal cloud, whose trace is not public.');
  }

  function drawCharts() {
    const curveList = [...curves.values()];
    trainWrap.hidden = curveList.length === 0;
    const jobs = [[frontCanvas, 'oversub.frontier', rows]];
    if (curveList.length) jobs.push([trainCanvas, 'oversub.training', curveList]);
    for (const [canvas, name, data] of jobs) run.draw(canvas, CHART_HEIGHT, name, data);
  }

  function renderTable(rs, complete) {
    const paper = new Map(((report && complete) ? report.paper : []).map((f) => [f.policy, f]));
    setChildren(tbody, rs.map((r, i) => {
      const f = paper.get(r.policy);
      const name = r.policy.startsWith('script:')
        ? [h('span', { class: 'swatch fam-script', 'aria-hidden': 'true' }), rowLabel(r)] : rowLabel(r);
      // a user's script that failed at run time: its error in its row, the other rows as they are
      if (r.error) {
        return h('tr', { class: 'failed', dataset: { row: String(i), policy: r.policy, error: r.error, complete: String(complete) } },
          h('td', {}, name), h('td', { colspan: 12, class: 'error' }, `failed: ${r.error}`));
      }
      return h('tr', {
        dataset: {
          row: String(i), policy: r.policy, trainSeed: r.train_seed === null || r.train_seed === undefined ? '' : String(r.train_seed), complete: String(complete),
          pmHotR: String(r.pm_hot_r), pmHotRLo: String(r.pm_hot_r_lo), pmHotRHi: String(r.pm_hot_r_hi),
          cHotR: String(r.c_hot_r), sCores: String(r.s_cores), sCoresLo: String(r.s_cores_lo), sCoresHi: String(r.s_cores_hi),
          safe: r.safe.map(String).join(','), hotPmHours: String(r.hot_pm_hours), activePms: String(r.active_pms), utilization: String(r.utilization),
        },
      },
      h('td', {}, name),
      h('td', { class: 'num' }, pct(r.pm_hot_r), h('span', { class: 'fine' }, ci(r.pm_hot_r_lo, r.pm_hot_r_hi))),
      h('td', { class: 'num' }, pct(r.c_hot_r)),
      h('td', { class: 'num' }, pct(r.s_cores), h('span', { class: 'fine' }, ci(r.s_cores_lo, r.s_cores_hi))),
      r.safe.map((ok) => h('td', { class: 'num', title: ok ? 'satisfied' : 'violated' }, ok ? '✓' : '✗')),
      h('td', { class: 'num' }, fmt(r.hot_pm_hours, 3)),
      h('td', { class: 'num' }, fmt(r.active_pms, 4)),
      h('td', { class: 'num' }, pct(r.utilization)),
      h('td', { class: 'num' }, f ? pct(f.pm_hot_r) : '–'),
      h('td', { class: 'num' }, f && f.s_cores !== null ? pct(f.s_cores) : '–'));
    }));
  }

  function fillRows() {
    setChildren(rowSel, rows.map((r, i) => h('option', { value: String(i) }, rowLabel(r))));
    if (!rowSel.dataset.touched || rateRow < 0 || rateRow >= rows.length) {
      // the default: the first C2MARL row (its rates are learned), else the last row
      const k = rows.findIndex((r) => r.policy.startsWith('c2marl:'));
      rateRow = k >= 0 ? k : rows.length - 1;
    }
    rowSel.value = String(rateRow);
  }

  function drawRates() {
    const r = rows[rateRow];
    if (!report || !r) { fitCanvas(ratesCanvas, RATES_HEIGHT); ratesNote.textContent = ''; return; }
    ratesNote.textContent = `${rowLabel(r)}: S-Cores ${pct(r.s_cores)}, PM-Hot-R ${pct(r.pm_hot_r)}.`;
    drawCanvas(wasm, ratesCanvas, RATES_HEIGHT, 'oversub.rates', r.rates, {}, (text) => { ratesNote.textContent = text; });
  }

  function exportPolicy() {
    const r = rows[rateRow];
    if (!report || !r) { policyOut.textContent = 'Nothing to export yet: run first.'; return; }
    if (!r.policy.startsWith('c2marl:')) { policyOut.textContent = `${rowLabel(r)} is not a trained policy: choose a c2marl row above.`; return; }
    const q = worker.request('run.query', { scenario: shown ? shown.sc : scenario, op: 'policy', args: { row: rateRow }, files: shown ? shown.files : runFiles(scenario) });
    q.promise.then((pol) => {
      const name = `packlab-oversub-${rowLabel(r)}-${report.preset}-seed${report.seed}.json`.replace(/[^A-Za-z0-9._-]+/g, '_');
      download(name, JSON.stringify(pol) + '\n', 'application/json');
      policyOut.textContent = `Exported ${rowLabel(r)} as ${name}.`;
    }, (e) => { policyOut.textContent = `Export failed: ${errorText(e)}`; });
  }

  async function importPolicy(file) {
    if (file.size > MAX_POLICY_BYTES) { policyOut.textContent = `${file.name} is too large for a trained policy (at most ${MAX_POLICY_BYTES >> 20} MiB).`; return; }
    const name = file.name;
    const check = (() => { try { return wasm.check_scenario({ ...scenario, oversub: { ...scenario.oversub, policies: [filePolicy(name)] } }); } catch (e) { return { errors: [e] }; } })();
    if (check.errors.length) { policyOut.textContent = `${name} cannot be a policy name: ${errorText(check.errors[0])}`; return; }
    files.set(name, new Uint8Array(await file.arrayBuffer()));
    policyOut.textContent = `Imported ${name}: evaluating it as ${filePolicy(name)}.`;
    forceRun = true;
    controls.addPolicy(filePolicy(name));
  }

  showData();
  drawCharts();
  updateLocation(wasm, scenario);
  run.begin(autorun);

  return viewHandle({ scenario: () => scenario, link: () => updateLocation(wasm, scenario) });
}
