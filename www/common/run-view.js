// One run lifecycle for every model view: the chart card (its title, the run controls, the view's content, the
// export row), and the run behind it: start (cancelling the one going), progress with the estimate of the time
// left, Pause/Resume (optional), Cancel, the end (done, cancelled, failed with messages at their fields), and
// the first run of a view opened from a link that asks before computing (`&run=ask`). A view keeps its
// controls and its renderers and answers the hooks below; the worker's 'run' operation is run-ops.js.
//
// The card's data attributes the end-to-end tests read: `state` (run-controls.js), `runs` (complete runs),
// `ms` (from the request to the result), `firstMs` (from the request to the first partial result the view
// marks), `clickMs` (from start(), e.g. the click, to the result), `computeMs` (the worker's time).

import { h } from './dom.js';
import { errorText } from './engine.js';
import { exportRow } from './exports.js';
import { createRunControls } from './run-controls.js';
import { copyText } from './share.js';
import { costText, linkCostText, takeLinkEstimate } from './cost.js';
import { fieldLabel } from './fields.js';

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
 * @param {(at: { stale: () => boolean }, ...args) => (object|null|Promise<object|null>)} o.payload  the 'run'
 *   request ({ scenario, files? }) of a new run, or null when the view refuses to run now (it said why);
 *   called after the previous run was cancelled and the status says 'Starting…', with start()'s arguments;
 *   `stale()` turns true when a newer start() took over (an asynchronous payload then returns null)
 * @param {() => boolean} [o.ready]  false while the view cannot run at all (e.g. no trace yet): start() then
 *   does nothing, not even cancel
 * @param {(payload: object) => void} [o.onStart]   the run was requested (reset the partial results)
 * @param {(p: object, payload: object) => void} o.onProgress  a step's progress { done, total, partial? }
 *   (the bar is already set)
 * @param {(res: object, payload: object) => void} o.onDone  the run's result { report, elapsed_ms, workers }
 * @param {() => void} [o.onCancelled]  after Cancel (default: the status says 'Cancelled.')
 * @param {(e: object, payload: object) => void} [o.onError]  after a failure was shown at its fields and in
 *   the status
 * @returns {{ card: HTMLElement, ui: object, setStatus: Function, start: () => Promise<void>,
 *   begin: (autorun: boolean) => void, isRunning: () => boolean, markFirst: () => void, runs: () => number }}
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
    exportBtns);
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
    const r = o.worker.request('run', payload, {
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
      ui.setCost(costText(1, Number(card.dataset.ms)));
      o.onDone(res, payload);
    }, (e) => {
      if (running !== r) return;
      running = null;
      ui.ended(false);
      if (e && e.kind === 'cancelled') {
        if (o.onCancelled) o.onCancelled();
        else setStatus('cancelled', 'Cancelled.');
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
    /** The view's first run: now, or (a link with `&run=ask`) when the user presses Run. */
    begin(autorun) {
      if (autorun) start();
      else {
        ui.awaitRun();
        ui.setCost(linkCostText(takeLinkEstimate()));
      }
    },
    isRunning: () => running !== null,
    /** The run showed its first partial result (card's `firstMs`, once per view). */
    markFirst() {
      if (!card.dataset.firstMs) card.dataset.firstMs = String(Math.round(performance.now() - started));
    },
    runs: () => runs,
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
