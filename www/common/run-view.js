// One run lifecycle for every model view: the chart card (its title, the run controls, the view's content, the
// export row), and the run behind it: start (cancelling the one going), progress with the estimate of the time
// left, Pause/Resume (optional), Cancel, the end (done, cancelled, failed with messages at their fields), and
// the first run of a view opened from a link that asks before computing (`&run=ask`). A view keeps its
// controls and its renderers and answers the hooks below; the worker's 'run' operation is run-ops.js.
//
// Besides the run: `draw` (a chart into its canvas, a failure in the status), `edited` (an edit of the controls:
// checked, kept, and run when what the run depends on changed) and `latestQuery` (a side query answering
// from the last run, e.g. one machine, one request, one run over time: only the newest answer is shown).
//
// The card's data attributes the end-to-end tests read: `state` (run-controls.js), `runs` (complete runs),
// `ms` (from the request to the result), `firstMs` (from the request to the first partial result the view
// marks), `clickMs` (from start(), e.g. the click, to the result), `computeMs` (the worker's time), `doneAt` and `drawnAt`
// (the page's clock, performance.now(), when the result arrived and when the view had drawn it).

import { h, setChildren, fitCanvas } from './dom.js';
import { errorText } from './engine.js';
import { exportRow } from './exports.js';
import { createRunControls } from './run-controls.js';
import { copyText } from './share.js';
import { costText, linkCostText, takeLinkEstimate } from './cost.js';
import { fieldLabel, checkControls } from './fields.js';

/**
 * A step's progress as a view's `onProgress` receives it (run-ops.js): units `done` of `total`, and the step's
 * partial result `S` (a model's entry of `ModelSteps`, src/wasm/reports.d.ts) once a step has produced one.
 * @template S
 * @typedef {{ done: number, total: number, partial?: S | null }} Progress
 */

/**
 * @param {object} o
 * @param {object} o.wasm         the page's engine
 * @param {import('./worker-client.js').EngineWorker} o.worker
 * @param {object} o.controls     the view's controls ({ showErrors(errors) → the errors not placed at a field })
 * @param {{ key: string, title: string }} o.card  the chart card (id `${key}-card`) and its h2 (id
 *   `${key}-title`, text `title`)
 * @param {object} [o.runControls]  createRunControls' { prefix, ids?, initialText? } (prefix `key`,
 *   initialText 'Starting…')
 * @param {boolean} [o.pausable]  a Pause/Resume button (the run pauses between steps)
 * @param {Array<Node>} o.body    the card's content below its head
 * @param {object} [o.exports]    exportRow's options but wasm, onNothing, onError (no export row when absent)
 * @param {Array<Node>} [o.footer]  the card's content below the export row
 * @param {(payload: object, hooks: { onProgress: (p: object) => void }) => { promise: Promise<object>,
 *   cancel: () => void, pause?: () => void, resume?: () => void }} [o.request]  the run itself (default: the
 *   worker's 'run' operation on the payload); a composite run (e.g. a sweep's cells) reports { done, total }
 * @param {() => object} [o.scenario]  the view's scenario (a run opened from a link is sized before Run)
 * @param {string} [o.stepWord]  what one step of the run is, plural (default 'steps'; admission: 'simulation runs')
 * @param {() => number} [o.runsPerStart]  runs of the scenario one start makes (default 1), for the cost shown
 *   beside Run again
 * @param {() => boolean} [o.hasResult]  a complete result is on display (a Cancel then says it is kept; an
 *   edit that changes nothing the run depends on does not run again)
 * @param {(at: { stale: () => boolean }, ...args) => (object|null|Promise<object|null>)} o.payload  the 'run'
 *   request ({ scenario, files? }) of a new run, or null when the view refuses to run now (it said why);
 *   called after the previous run was cancelled and the status says 'Starting…', with start()'s arguments;
 *   `stale()` turns true when a newer start() took over (an asynchronous payload then returns null)
 * @param {() => boolean} [o.ready]  false while the view cannot run at all (e.g. no trace yet): start() then
 *   does nothing, not even cancel
 * @param {(payload: object) => void} [o.onStart]   the run was requested (reset the partial results)
 * @param {(p: Progress<any>, payload: object) => void} o.onProgress  a step's progress { done, total, partial? }
 *   (the bar is already set)
 * @param {(res: object, payload: object) => void} o.onDone  the run's result { report, elapsed_ms, workers }
 * @param {() => void} [o.onCancelled]  after Cancel, once the status says 'Cancelled.' or, with a result on
 *   display, 'Cancelled; showing the previous run.' (the view redraws what it keeps, or says more)
 * @param {(e: object, payload: object) => void} [o.onError]  after a failure was shown at its fields and in
 *   the status
 * @returns {{ card: HTMLElement, ui: object, setStatus: Function, start: (...args: any[]) => Promise<void>,
 *   begin: (autorun: boolean) => void, isRunning: () => boolean, markFirst: () => void, runs: () => number,
 *   draw: Function, edited: Function }}
 */
export function createRunView(o) {
  let running = null; // the request of the run going on
  let seq = 0; // the newest start(); an older one whose payload arrives late gives way
  let started = 0;
  let runs = 0;
  const ui = createRunControls({
    prefix: o.card.key,
    initialText: 'Starting…',
    ...o.runControls,
    onCancel: () => running && running.cancel(),
    onRerun: () => { start(); },
    onPause: o.pausable ? (p) => {
      if (!running) return;
      if (p) running.pause(); else running.resume();
      setStatus(ui.state(), p ? 'Pausing after this step…' : 'Resuming…');
    } : undefined,
  });
  const setStatus = ui.setStatus;
  const exportBtns = o.exports ? exportRow({
    ...o.exports,
    wasm: o.wasm,
    onNothing: () => setStatus(ui.state(), 'Nothing to export yet.'),
    onError: (text) => setStatus('error', text),
  }) : null;
  const titleId = `${o.card.key}-title`;
  const card = h('section', { class: 'card chart-card', id: `${o.card.key}-card`, 'aria-labelledby': titleId, dataset: { state: 'idle', runs: '0' } },
    h('div', { class: 'card-head' }, h('h2', { id: titleId }, o.card.title), ui.el),
    ...o.body,
    exportBtns,
    ...(o.footer || []));
  const request = o.request || ((payload, hooks) => o.worker.request('run', payload, hooks));
  ui.attach(card);

  /** Start a run of the view's scenario (the one going is cancelled); `args` go to the view's payload(). */
  async function start(...args) {
    if (o.ready && !o.ready()) return;
    if (running) { running.cancel(); running = null; }
    const mine = ++seq;
    const clickedAt = performance.now();
    setStatus('running', 'Starting…');
    ui.started();
    const payload = await o.payload({ stale: () => mine !== seq }, ...args);
    if (mine !== seq) return; // a newer start took over
    if (!payload) { ui.ended(false); return; }
    started = performance.now();
    if (o.onStart) o.onStart(payload);
    const r = request(payload, {
      onProgress: (p) => {
        if (running !== r) return;
        if (p.stage === 'workload') { setStatus('running', `Loading the workload (${p.name})…`); return; }
        if (p.stage === 'paused') { ui.paused(true); setStatus('paused', `Paused at ${p.done} of ${p.total} steps; Resume to go on.`); return; }
        if (p.stage === 'resumed') { ui.paused(false); setStatus('running', `Resumed at ${p.done} of ${p.total} steps…`); return; }
        if (p.stage) return;
        ui.progress(p.total ? p.done / p.total : 0);
        o.onProgress(p, payload);
      },
    });
    running = r;
    r.promise.then((res) => {
      if (running !== r) return;
      running = null;
      ui.ended(true);
      runs += 1;
      card.dataset.runs = String(runs);
      card.dataset.ms = String(Math.round(performance.now() - started));
      card.dataset.clickMs = String(Math.round(performance.now() - clickedAt));
      card.dataset.computeMs = String(Math.round(res.elapsed_ms));
      card.dataset.doneAt = String(Math.round(performance.now()));
      const n = o.runsPerStart ? o.runsPerStart() : 1;
      ui.setCost(costText(n, Number(card.dataset.ms) / n));
      o.onDone(res, payload);
      card.dataset.drawnAt = String(Math.round(performance.now()));
    }, (e) => {
      if (running !== r) return;
      running = null;
      ui.ended(false);
      if (e && e.kind === 'cancelled') {
        setStatus('cancelled', o.hasResult && o.hasResult() ? 'Cancelled; showing the previous run.' : 'Cancelled.');
        if (o.onCancelled) o.onCancelled();
        return;
      }
      // the scenario stays as the user typed it; messages go next to their fields
      const unplaced = e && e.errors ? o.controls.showErrors(e.errors) : e && e.field ? o.controls.showErrors([e]) : [e];
      // the field by its label where the view shows it; the engine's own words follow
      const label = e && e.field ? fieldLabel(card.closest('.model-view') || document, e.field) : null;
      const text = label && e.message ? `${label}: ${e.message}` : errorText(e);
      setStatus('error', unplaced && unplaced.length === 0 ? `Run failed: ${text}. Fix the highlighted field to run again.` : `Run failed: ${text}`);
      if (o.onError) o.onError(e, payload);
    });
  }

  return {
    card,
    ui,
    setStatus,
    start,
    /**
     * The view's first run: now, or (a link with `&run=ask`) when the user presses Run; meanwhile the cost beside
     * Run states the stored run's time and, once the worker has planned it, the run's units of work.
     */
    begin(autorun) {
      if (autorun) { start(); return; }
      ui.awaitRun();
      const est = takeLinkEstimate();
      ui.setCost(linkCostText(est));
      if (!o.scenario) return;
      o.worker.request('run.size', { scenario: o.scenario() }).promise.then(({ total }) => {
        if (!runs && !running) ui.setCost(linkCostText(est, total, o.stepWord));
      }, () => { /* not plannable yet (e.g. a missing upload): the time alone */ });
    },
    isRunning: () => running !== null,
    /** The run showed its first partial result (card's `firstMs`, once per view). */
    markFirst() {
      if (!card.dataset.firstMs) card.dataset.firstMs = String(Math.round(performance.now() - started));
    },
    runs: () => runs,
    /**
     * Draw chart `name` of `data` into `canvas` (fitted to its box, `height` CSS px, at the screen's pixel
     * ratio, passed as opts.scale); a failure is said in the status. Returns the chart's layout (hit-testing)
     * or null.
     */
    draw(canvas, height, name, data, opts = {}) {
      return drawCanvas(o.wasm, canvas, height, name, data, opts, (text) => setStatus('error', text));
    },
    /**
     * The controls changed: they are checked onto `base` (a wrong field says so in place and nothing runs);
     * `apply(scenario)` keeps the checked scenario (the view shows it and writes the link); a run starts when
     * `runKey` of the scenario changed, no result is on display, or `force`. Returns the checked scenario or null.
     * @param {{ base: object, apply: (s: object) => void, runKey?: (s: object) => unknown, force?: boolean }} e
     */
    edited({ base, apply, runKey = (s) => s, force = false }) {
      const checked = checkControls({ wasm: o.wasm, controls: o.controls, base, setStatus });
      if (!checked) return null;
      const before = JSON.stringify(runKey(base));
      apply(checked);
      if (force || JSON.stringify(runKey(checked)) !== before || !(o.hasResult && o.hasResult())) start();
      return checked;
    },
  };
}

/**
 * Draw chart `name` into `canvas` (see the run view's `draw`); `onFail(text)` hears a failure. Returns the layout
 * or null.
 */
export function drawCanvas(wasm, canvas, height, name, data, opts, onFail) {
  const dpr = fitCanvas(canvas, height);
  try {
    return wasm.draw_chart(canvas, name, data, opts === null ? null : { ...opts, scale: dpr });
  } catch (e) {
    onFail(`Chart failed: ${errorText(e)}`);
    return null;
  }
}

/**
 * A side query of a view, answered from the last run (one machine, one request, one run over time): only the
 * newest request's answer is shown. `ask(request, { loading, onResult, onError })` shows `loading` in `box`, then
 * hands the answer to `onResult`; a failure (not a cancel) goes to `onError(e)`, which returns true when it took
 * care of it, else it is said in `box` in words.
 * @param {HTMLElement} box
 */
export function latestQuery(box) {
  let seq = 0;
  /**
   * @param {{ promise: Promise<any> }} req
   * @param {{ loading?: string, onResult: (v: any) => void, onError?: (e: any) => boolean }} o
   */
  return function ask(req, { loading, onResult, onError }) {
    const id = ++seq;
    if (loading) setChildren(box, h('p', { class: 'fine' }, loading));
    req.promise.then((v) => { if (id === seq) onResult(v); }, (e) => {
      if (id !== seq || (onError && onError(e))) return;
      if (!e || e.kind !== 'cancelled') setChildren(box, h('div', { class: 'error-box', role: 'alert' }, errorText(e)));
    });
  };
}

/**
 * What a model view gives the shell (app.js): its scenario, Copy link (`link()` writes the scenario into the
 * address bar first) and `traceLoaded(trace)` (a trace-reading view takes the loaded trace; others ignore it).
 */
export function viewHandle({ scenario, link, traceLoaded = () => {} }) {
  return {
    traceLoaded,
    scenario,
    copyLink: async () => { link(); return copyText(location.href); },
  };
}
