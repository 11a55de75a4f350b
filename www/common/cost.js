// The cost of a long run, shown before it is started: beside a button that runs a scenario several times, the
// number of runs and an estimate of the time (the runs × the view's last run of the scenario on display, as the
// view's run card records it in data-ms). Mounted by app.js; the buttons are listed here by their ids.

import { h } from './dom.js';

/**
 * Per model: the buttons that start several runs, how many runs each starts (read from the view's state), and
 * the card whose data-ms times one run.
 */
const COSTLY = {
  lifetime: [{
    button: '#lifetime-accuracy-run',
    card: '#lifetime-card',
    // E3.2's frontier: the noisy predictor at A = 0.5, 0.6, …, 1.0, plus the oracle unless the view's own run is it
    runs: (root) => 6 + (root.querySelector('#f-lifetime-predictor')?.value === 'oracle' ? 0 : 1),
  }],
};

const secs = (ms) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/**
 * The estimate's text: "N runs of this scenario, about T (its last run took t)", or without a time before the
 * first run ended; one run: "1 run of this scenario, about t". Pure.
 * @param {number} runs
 * @param {number} lastMs NaN when unknown
 */
export function costText(runs, lastMs) {
  const what = `${runs} run${runs === 1 ? '' : 's'} of this scenario`;
  if (!(lastMs > 0)) return `${what} (the time shows once the scenario has run).`;
  if (runs === 1) return `${what}, about ${secs(lastMs)}.`;
  return `${what}, about ${secs(runs * lastMs)} (its last run took ${secs(lastMs)}).`;
}

/**
 * The sweep panel's estimate before it starts: its cells × the last run of the scenario on display (cells that
 * change the scenario's size take longer or shorter). Pure.
 * @param {number} cells
 * @param {number} lastMs NaN when unknown
 */
export function sweepCostText(cells, lastMs) {
  const what = `${cells} cell${cells === 1 ? '' : 's'}`;
  if (!(lastMs > 0)) return `${what}, one run each (the time shows once the scenario on display has run).`;
  return `${what}, one run each: about ${secs(cells * lastMs)} if each takes as long as the scenario on display (${secs(lastMs)}).`;
}

/**
 * The cost of a scenario opened from a findings link before it runs: the stored run's native wall time (the
 * link's `est`, seconds, from results/<paper>/links.json), and the browser's range, 1–1.5× native (the wasm
 * engine's measured ratio, docs/performance.md); with `steps`, the units of work the run is made of (the
 * planned run's total: E0.1's 640 simulation runs), in `word`. Pure.
 * @param {number} nativeS NaN when the stored run recorded no time
 * @param {number} [steps] the run's units of work (unknown: left out)
 * @param {string} [word] what one unit is, plural ('simulation runs', 'steps')
 */
export function linkCostText(nativeS, steps = NaN, word = 'steps') {
  const what = steps > 0 ? `1 run of this scenario: ${steps.toLocaleString('en-US')} ${word}` : null;
  if (!(nativeS > 0)) return what ? `${what} (the time shows once it has run).` : costText(1, NaN);
  const ms = nativeS * 1000;
  const [lo, loUnit] = secs(ms).split(' ');
  const [hi, hiUnit] = secs(1.5 * ms).split(' ');
  const range = lo === hi && loUnit === hiUnit ? `${lo} ${loUnit}` : loUnit === hiUnit ? `${lo}–${hi} ${hiUnit}` : `${lo} ${loUnit}–${hi} ${hiUnit}`;
  return `${what || '1 run of this scenario'}, about ${range} in this browser (the stored run took ${secs(ms)} natively).`;
}

let heldEstimate = NaN;

/** app.js: the native seconds a findings link states (`&est=`), for the view it opens without running. */
export function holdLinkEstimate(seconds) { heldEstimate = Number(seconds); }

/** The held estimate, once (the first view that waits for Run takes it; later views get NaN). */
export function takeLinkEstimate() {
  const s = heldEstimate;
  heldEstimate = NaN;
  return s;
}

/** Add the estimates beside the costly buttons of the view in `root`. */
export function attachCosts(root, id) {
  for (const c of COSTLY[id] || []) {
    const btn = root.querySelector(c.button);
    const card = root.querySelector(c.card);
    if (!btn || !card) continue;
    const note = h('span', { class: 'fine cost-note', id: `${btn.id}-cost`, 'aria-live': 'polite' });
    btn.setAttribute('aria-describedby', note.id);
    btn.after(note);
    const update = () => { note.textContent = costText(c.runs(root), Number(card.dataset.ms)); };
    update();
    new MutationObserver(update).observe(card, { attributes: true, attributeFilter: ['data-ms', 'data-state'] });
    root.addEventListener('change', update);
  }
}
