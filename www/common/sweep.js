// The sweep panel of the shell, shared by every model: a sweep file (a scenario and axes of values, the format
// `packlab sweep` reads; the engine's src/sweep.rs) pasted, loaded or started from the scenario on display; its
// cells run one after another through the shared 'run' operation (each on the pool of workers where its model
// splits its steps), with one progress bar and Cancel; a table of the cells, each with a link that opens it;
// and `results.json` / `results.csv` byte for byte as `packlab sweep FILE --out DIR` writes them.

import { h, setChildren, download, scrollTable } from './dom.js';
import { errorText } from './engine.js';
import { createRunControls } from './run-controls.js';
import { sweepCostText } from './cost.js';

/**
 * Runs the cells of a sweep (`wasm.sweep_cells(text).cells`) one after another through the shared 'run'
 * operation, each on the pool of workers where its model splits its steps. Shared by the sweep panel and the
 * views' own sweeps (the lifetime view's accuracy frontier).
 * @param {object} o
 * @param {import('./worker-client.js').EngineWorker} o.worker
 * @param {Array<{ scenario: object }>} o.cells
 * @param {string} [o.key]        the runs' key ('run' operation)
 * @param {boolean} [o.transient] leave the model's last run (the view's) in place ('run' operation)
 * @param {(i: number, p: object) => void} [o.onProgress] cell i's progress ({ done, total, partial })
 * @param {(i: number) => void} [o.onCellStart]
 * @param {(i: number, res: object, ms: number) => void} [o.onCellDone] res = the 'run' result (report,
 *   report_json, workers)
 * @returns {{ promise: Promise<string[]>, cancel: () => void }} the promise resolves to the cells'
 *   `report_json` texts in cell order (what `wasm.sweep_results` assembles the results files from), or
 *   rejects with { kind: 'cancelled' } or the failing cell's error
 */
export function runCells({ worker, cells, key = 'sweep', transient = false, onProgress, onCellStart, onCellDone }) {
  let request = null;
  let cancelled = false;
  const promise = (async () => {
    const reports = [];
    for (let i = 0; i < cells.length; i++) {
      if (cancelled) throw { kind: 'cancelled', message: 'cancelled' };
      if (onCellStart) onCellStart(i);
      const c0 = performance.now();
      request = worker.request('run', { scenario: cells[i].scenario, reportJson: true, key, transient }, {
        onProgress: (p) => onProgress && onProgress(i, p),
      });
      const res = await request.promise;
      reports.push(res.report_json);
      if (onCellDone) onCellDone(i, res, performance.now() - c0);
    }
    return reports;
  })();
  promise.finally(() => { request = null; }).catch(() => {});
  return {
    promise,
    cancel() {
      cancelled = true;
      if (request) request.cancel();
    },
  };
}

/** The sweep a new panel starts from: the scenario on display (as its share link) over three seeds. */
function starter(wasm, scenario) {
  const link = wasm.scenario_to_link(scenario);
  return JSON.stringify({ scenario: link, axes: [{ field: 'seed', values: [1, 2, 3] }] }, null, 2);
}

/**
 * @param {object} o
 * @param {object} o.wasm         the page's engine
 * @param {import('./worker-client.js').EngineWorker} o.worker
 * @param {object} o.tracePanel   the shell's trace panel (a bundled trace a sweep needs is loaded through it)
 * @param {() => object} o.scenario the scenario on display (the starting sweep's base)
 * @param {() => number} [o.lastMs] ms of the last run of the scenario on display (NaN when unknown): the
 *   estimate shown before a sweep starts is its cells × this
 * @returns {{ el: HTMLElement, toggle: () => void }}
 */
export function createSweepPanel({ wasm, worker, tracePanel, scenario, lastMs = () => NaN }) {
  const text = h('textarea', { id: 'sweep-text', rows: 8, spellcheck: 'false', 'aria-label': 'sweep file (JSON)' });
  const error = h('p', { class: 'field-error', id: 'sweep-error', role: 'alert', hidden: true });
  const rows = h('tbody', { id: 'sweep-rows' });
  const head = h('tr', {});
  const downloads = h('div', { class: 'row', hidden: true });
  let request = null;
  let results = null; // { json, csv } of the last complete sweep

  const showError = (e) => {
    error.hidden = !e;
    error.textContent = e ? errorText(e) : '';
  };

  const file = h('input', {
    type: 'file', accept: '.json,application/json', id: 'sweep-file', hidden: true,
    onchange: async () => {
      const f = file.files && file.files[0];
      if (f) text.value = await f.text();
      file.value = '';
      showCost();
    },
  });

  const controls = createRunControls({
    prefix: 'sweep',
    initialText: 'A sweep runs the scenario once per combination of the axes\u2019 values.',
    onCancel: () => request && request.cancel(),
    onRerun: () => run(),
  });

  /** The cells and the estimated time of the sweep file as it stands, beside Run sweep (nothing while it is invalid). */
  function showCost() {
    let n = null;
    try { n = wasm.sweep_cells(text.value).cells.length; } catch { /* invalid: Run sweep says why */ }
    controls.setCost(n === null ? '' : sweepCostText(n, lastMs()));
  }
  let costTimer = 0;
  text.addEventListener('input', () => { clearTimeout(costTimer); costTimer = setTimeout(showCost, 300); });

  /** The loaded trace must be the one the cells read (bundled: loaded now; an upload: the user loads it). */
  async function ensureTrace(cells) {
    const models = wasm.models();
    const needs = cells.filter((c) => (models.find((m) => m.id === c.scenario.model) || {}).uses_trace);
    const refs = [...new Set(needs.map((c) => JSON.stringify(c.scenario.trace)))];
    if (!refs.length) return;
    if (refs.length > 1) throw { kind: 'input', message: 'the cells read different traces: a sweep over traces runs in the CLI (`packlab sweep`)' };
    const ref = JSON.parse(refs[0]);
    const cur = tracePanel.current();
    const same = cur && JSON.stringify(cur.ref) === refs[0];
    if (same) return;
    if (ref.bundled) {
      await tracePanel.loadBundled(ref.bundled);
      return;
    }
    throw { kind: 'input', field: 'trace', message: `the cells read the uploaded trace '${ref.upload.name}': upload it in the trace card first` };
  }

  async function run() {
    showError(null);
    let sweep;
    try {
      sweep = wasm.sweep_cells(text.value);
      await ensureTrace(sweep.cells);
    } catch (e) {
      showError(e);
      controls.setStatus('invalid', 'Fix the sweep file to run it.');
      return;
    }
    const { cells, fields } = sweep;
    setChildren(head, h('th', {}, 'cell'), fields.map((f) => h('th', {}, f)), h('th', {}, 'status'), h('th', {}, 'time'), h('th', {}, ''));
    const statusCells = cells.map(() => h('td', { class: 'status-cell' }, 'waiting'));
    const timeCells = cells.map(() => h('td', { class: 'num' }, ''));
    setChildren(rows, cells.map((c, i) => h('tr', { dataset: { cell: String(c.index) } },
      h('td', { class: 'num' }, String(c.index)),
      c.values.map((v) => h('td', {}, typeof v === 'string' ? v : JSON.stringify(v))),
      statusCells[i], timeCells[i],
      h('td', {}, h('a', { href: `${location.pathname}${location.search}#s=${c.link}`, target: '_blank', rel: 'noopener' }, 'open')))));
    downloads.hidden = true;
    results = null;
    let finished = 0;
    const t0 = performance.now();
    controls.started();
    controls.setStatus('running', `cell 1 of ${cells.length}`);
    try {
      request = runCells({
        worker,
        cells,
        // the cells' runs are freed at their end: the view's own run (its charts, exports) stays in place
        transient: true,
        onCellStart: (i) => { statusCells[i].textContent = 'running'; },
        onProgress: (i, p) => {
          if (p.total) controls.progress((i + p.done / p.total) / cells.length);
          controls.setStatus('running', `cell ${i + 1} of ${cells.length}${p.total ? `: ${p.done} of ${p.total} units` : ''}`);
        },
        onCellDone: (i, res, ms) => {
          finished = i + 1;
          statusCells[i].textContent = res.workers > 1 ? `done on ${res.workers} workers` : 'done';
          timeCells[i].textContent = `${(ms / 1000).toFixed(2)} s`;
          controls.progress((i + 1) / cells.length);
        },
      });
      const reports = await request.promise;
      results = wasm.sweep_results(text.value, reports);
      downloads.hidden = false;
      controls.ended(true);
      controls.setStatus('done', `${cells.length} cells in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (e) {
      controls.ended(false);
      if (e && e.kind === 'cancelled') controls.setStatus('cancelled', `Cancelled after ${finished} of ${cells.length} cells.`);
      else {
        showError(e);
        controls.setStatus('error', `Cell ${finished} failed.`);
      }
    } finally {
      request = null;
    }
  }

  setChildren(downloads,
    h('button', { type: 'button', class: 'btn small', id: 'sweep-json', onclick: () => results && download('results.json', results.json, 'application/json') }, 'results.json'),
    h('button', { type: 'button', class: 'btn small', id: 'sweep-csv', onclick: () => results && download('results.csv', results.csv, 'text/csv') }, 'results.csv'));

  const el = h('section', { class: 'card sweep-card', id: 'sweep-card', hidden: true, 'aria-labelledby': 'sweep-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'sweep-title' }, 'Sweep'), controls.el),
    h('p', { class: 'fine' }, 'A scenario (object or share link) and axes: each axis sets a dotted field of the scenario to each of its values; ',
      'the same file runs natively with ', h('code', {}, 'packlab sweep FILE --out DIR'), ' (', h('code', {}, '--shard I/N'), ' on a batch cluster) and gives the same results files.'),
    text, error,
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'btn', id: 'sweep-run', onclick: () => run() }, 'Run sweep'),
      h('button', { type: 'button', class: 'btn small', onclick: () => file.click() }, 'Load sweep file…'),
      h('button', { type: 'button', class: 'btn small', onclick: () => { text.value = starter(wasm, scenario()); showCost(); } }, 'From this scenario'),
      file, downloads),
    scrollTable('Sweep cells', h('table', { class: 'results', id: 'sweep-table' }, h('thead', {}, head), rows)));
  controls.attach(el);

  return {
    el,
    toggle() {
      el.hidden = !el.hidden;
      if (!el.hidden && !text.value) text.value = starter(wasm, scenario());
      if (!el.hidden) showCost();
    },
  };
}
