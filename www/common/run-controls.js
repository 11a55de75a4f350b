// The run controls of a model's chart card, shared by every model view: progress bar, Cancel, (Pause/Resume,
// for views that pass `onPause`), Run again, the status text and the estimate of the time left, in that order (the buttons do not move while
// the status text changes width). The card's `data-state` mirrors the status: 'idle' | 'running' | 'paused' |
// 'done' | 'cancelled' | 'error' | 'invalid' (the end-to-end tests and the styles read it).

import { h } from './dom.js';

/**
 * @param {object} o
 * @param {string} o.prefix      id prefix: `${prefix}-progress`, `-status`, `-eta`, `-cancel`, `-rerun`
 * @param {string} o.initialText the status before the first run
 * @param {() => void} o.onCancel
 * @param {() => void} o.onRerun
 * @param {(pause: boolean) => void} [o.onPause] when given, a Pause/Resume button (`${prefix}-pause`): called
 *   with true on Pause, false on Resume; the view passes it on to the run (request.pause() / .resume()) and
 *   calls `paused(state)` when the worker confirms
 * @param {object} [o.ids]       ids overriding the prefixed ones ({ progress, status, cancel, pause, rerun })
 */
export function createRunControls({ prefix, initialText, onCancel, onRerun, onPause, ids = {} }) {
  const id = (k) => ids[k] || `${prefix}-${k}`;
  const bar = h('progress', { id: id('progress'), max: 1, value: 0 });
  const status = h('span', { class: 'status', id: id('status'), 'aria-live': 'polite' }, initialText);
  // the time left, from the fraction done and the time since the run started (shown once both say something)
  const eta = h('span', { class: 'status eta', id: id('eta') });
  let startedAt = 0;
  const cancelBtn = h('button', { type: 'button', class: 'btn danger small', id: id('cancel'), disabled: true, onclick: onCancel }, 'Cancel');
  // the cost of pressing it, before it is pressed (run-view.js and the sweep panel set it)
  const cost = h('span', { class: 'fine cost-note', id: id('cost'), 'aria-live': 'polite' });
  const rerunBtn = h('button', { type: 'button', class: 'btn small', id: id('rerun'), onclick: onRerun, 'aria-describedby': id('cost') }, 'Run again');
  let isPaused = false;
  const pauseBtn = onPause ? h('button', {
    type: 'button', class: 'btn small', id: id('pause'), disabled: true, 'aria-pressed': 'false',
    onclick: () => onPause(!isPaused),
  }, 'Pause') : null;
  const showPaused = (p) => {
    isPaused = p;
    if (!pauseBtn) return;
    pauseBtn.textContent = p ? 'Resume' : 'Pause';
    pauseBtn.setAttribute('aria-pressed', String(p));
  };
  let card = null;
  return {
    /** The row to place in the card's head. */
    el: h('div', { class: 'row run-controls' }, bar, cancelBtn, pauseBtn, rerunBtn, cost, status, eta),
    /** The card whose `data-state` follows the status. */
    attach(c) { card = c; },
    setStatus(state, text) {
      if (card) card.dataset.state = state;
      status.textContent = text;
    },
    state: () => card && card.dataset.state,
    text: () => status.textContent,
    /**
     * Nothing computed yet and nothing started (a scenario opened from a findings link): the status says so and
     * the button reads Run until the first run starts.
     */
    awaitRun(text = 'Opened from a link and not computed yet: press Run to compute it.') {
      if (card) card.dataset.state = 'idle';
      status.textContent = text;
      rerunBtn.textContent = 'Run';
      bar.value = 0;
    },
    /** A run started: progress 0, Cancel (and Pause) enabled. */
    started() {
      rerunBtn.textContent = 'Run again';
      bar.value = 0;
      startedAt = performance.now();
      eta.textContent = '';
      bar.removeAttribute('hidden');
      cancelBtn.disabled = false;
      showPaused(false);
      if (pauseBtn) pauseBtn.disabled = false;
    },
    /** The cost of Run (again), shown beside the button (costText / sweepCostText of cost.js). */
    setCost(text) { cost.textContent = text; },
    /** The run is paused (true) or running again (false): the button reads Resume / Pause. */
    paused(p) { showPaused(p); },
    /** Whether the run on display is paused. */
    isPaused: () => isPaused,
    /** Fraction done, 0..1; after the first 1.5 s and 2% the estimate of the time left follows it. */
    progress(frac) {
      bar.value = frac;
      const elapsed = (performance.now() - startedAt) / 1000;
      eta.textContent = startedAt && !isPaused && frac > 0.02 && frac < 1 && elapsed > 1.5
        ? `about ${duration(elapsed * (1 - frac) / frac)} left` : '';
    },
    /** The run ended (`complete`: it finished, the bar shows 1); Cancel disabled. */
    ended(complete) {
      cancelBtn.disabled = true;
      showPaused(false);
      if (pauseBtn) pauseBtn.disabled = true;
      if (complete) bar.value = 1;
      startedAt = 0;
      eta.textContent = '';
    },
  };
}

/** A duration in seconds as people say it: "8 s", "3 min", "1 h 5 min". */
export function duration(seconds) {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** " on N workers" for a run result ({ workers }) that the pool of workers computed (pool.js); "" for one. */
export function onWorkers(res) {
  return res && res.workers > 1 ? ` on ${res.workers} workers` : '';
}
