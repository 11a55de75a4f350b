// The playground shell: loads the engine (compiled once, shared with the compute worker), reads a share
// link, mounts the model view and the shared trace panel, and wires the header (model tabs, Copy link).
//
// Models are views: each lives in www/<model>/ (view.js on the page, worker-ops.js in the worker); the tab list
// comes from the engine's model registry (wasm.models()) and each view's loader from www/models.js. A tab switch keeps the page: each view is mounted on its first visit and kept, with its state, while hidden.

import { h, setChildren, $ } from './common/dom.js';
import { loadEngine, fullEngine, isFull, errorText } from './common/engine.js';
import { EngineWorker } from './common/worker-client.js';
import { createSweepPanel } from './common/sweep.js';
import { scenarioFromLocation, fragmentFor, setActiveModel } from './common/share.js';
import { createTracePanel } from './common/trace-panel.js';
import { MODELS_WWW } from './models.js';
import { mountLesson } from './common/lesson.js';
import { foldControls } from './common/controls-toggle.js';
import { attachCosts, holdLinkEstimate } from './common/cost.js';


const bannerEl = $('#banner');
function banner(message, kind = 'warn') {
  if (!message) {
    bannerEl.hidden = true;
    return;
  }
  setChildren(bannerEl, h('span', {}, message),
    h('button', { type: 'button', class: 'link-btn', 'aria-label': 'dismiss', onclick: () => { bannerEl.hidden = true; } }, 'Dismiss'));
  bannerEl.className = `banner ${kind}`;
  bannerEl.hidden = false;
}

async function main() {
  const t0 = performance.now();
  // the first engine module (placement without scripts, issue 30); the full one once a view or a script needs it
  const { wasm, module: firstModule } = await loadEngine();
  let module = firstModule;
  $('#engine-version').textContent = `engine ${wasm.engine_version()}`;

  // a restart after Cancel is silent once done; a worker that died is reported and stays reported
  const onStatus = (s, reason) => {
    if (s === 'restarting') banner(reason ? `The engine stopped (${reason}); restarting it and reloading your inputs…` : 'The engine was restarted; your inputs are being reloaded.', 'info');
    else if (s === 'ready') banner(reason ? `The engine stopped (${reason}) and was restarted; your trace and workload were reloaded. Run again to continue.` : null, 'info');
    else if (s === 'failed') banner(`The engine stopped and could not be restarted (${reason}). Reload the page.`, 'warn');
  };
  // the scenario: a link (#s=v2.d1.…, or an old #s=v1.…) or the defaults; a bad link (or one made under
  // defaults this engine does not know) shows a message and falls back
  let link = scenarioFromLocation(wasm);
  // the first module refuses what it leaves out (a script): such a link is read again by the full one
  if (link.error && !isFull()) {
    await fullEngine();
    link = scenarioFromLocation(wasm);
  }
  if (link.error) {
    banner(`This link could not be opened (${errorText(link.error)}). Showing the default scenario instead.`);
    history.replaceState(null, '', location.pathname + location.search);
  }

  // the tab list comes from the engine's model registry; each model's view from www/models.js
  const MODELS = wasm.models().map((m) => ({ id: m.id, title: m.title, hint: m.hint, usesTrace: m.uses_trace, load: MODELS_WWW[m.id] && MODELS_WWW[m.id].view, lesson: MODELS_WWW[m.id]?.lesson }));
  const byId = (id) => MODELS.find((m) => m.id === id);
  const model = byId(link.scenario.model || MODELS[0].id) || MODELS[0];
  /** Whether a scenario needs the full engine module: a model other than placement, or a user script. */
  const needsFull = (sc) => (sc.model || MODELS[0].id) !== 'placement' || (sc.placement?.scripts || []).some((x) => x.source && x.source.trim());
  if (isFull() || needsFull({ ...link.scenario, model: model.id })) ({ module } = await fullEngine());
  // which module the page runs on (data-engine: 'first', or 'full' once the shell's worker is on it too), for the tests
  document.documentElement.dataset.engine = module === firstModule ? 'first' : 'full';

  // `?workers=N` sets how many workers compute runs (each engine worker's pool; default: one per core, 1 = no pool)
  const search = new URLSearchParams(location.search);
  const poolSize = search.get('workers');
  // a fresh engine worker warms up with a small run of its view's model while idle (worker.js warmUp), so the
  // view's first run costs about what the next ones do; `?warm=0` turns it off (to measure the difference)
  const warmUps = search.get('warm') !== '0';
  const newWorker = (warm) => {
    const w = new EngineWorker({ module, onStatus, warm: warmUps ? warm : undefined });
    if (poolSize !== null) w.setPoolSize(Number(poolSize));
    return w;
  };
  // the shell's worker holds the uploaded or bundled trace: the trace panel, the sweep panel and the views that
  // read the trace run on it (it warms up for the first view when that view reads the trace); every other view
  // gets an engine worker of its own when first shown, so a run left going on a hidden tab never holds up the
  // visible one
  const worker = newWorker(model.usesTrace ? model.id : undefined);
  /** Move the page to the full module: the main thread (engine.js) now, new workers from now on, and the shell's
   * worker once what it was asked finishes (a run in progress is not cancelled: EngineWorker.useModule holds the
   * requests made meanwhile and sends them to its worker on the full module). */
  const upgrade = async () => {
    ({ module } = await fullEngine());
    worker.useModule(module).then(() => { document.documentElement.dataset.engine = 'full'; });
  };
  window.addEventListener('packlab:full-engine', () => { upgrade().catch((e) => banner(`The engine could not be loaded (${errorText(e)}).`)); });

  // One page: every tab's view is mounted on its first visit and kept (hidden) afterwards, with its scenario,
  // its results and any run in progress; the address bar shows the visible tab's scenario (share.js writes
  // only the active model's links) and a tab switch adds a history entry, so Back/Forward switch tabs.
  const mounted = new Map(); // model id → { el, view }
  let active = null;
  const tracePanel = createTracePanel({ wasm, worker, onLoaded: (t) => mounted.forEach(({ view }) => view?.traceLoaded(t)) }); // a view still mounting takes it in show()

  let booted = false;
  let pending = null;
  const tabs = MODELS.map((m) => h('button', {
    type: 'button',
    id: `tab-${m.id}`,
    class: 'tab',
    // a tab chosen while the engine boots is shown once the first view is up (else that first view would
    // take over when it mounts and hide the chosen one)
    onclick: () => { if (!booted) pending = m; else if (m.load && m !== active) show(m, null, { push: true }); },
    disabled: !m.load,
    title: m.hint,
  }, m.title, m.load ? null : h('span', { class: 'soon' }, 'soon')));
  setChildren($('#model-tabs'), tabs);

  /**
   * Show model `m`'s view: mount it on its first visit (with `scenario`, or its defaults), else reveal the kept
   * one. `push` adds a history entry with the view's link (a tab click); otherwise the current entry is
   * replaced (the first view, Back/Forward).
   */
  async function show(m, scenario, { push = false, autorun = true } = {}) {
    // the new entry first: a view being mounted writes its link into the current entry
    if (push) history.pushState(null, '', location.href);
    active = m;
    setActiveModel(m.id);
    tabs.forEach((b, i) => {
      const on = MODELS[i] === m;
      b.classList.toggle('active', on);
      if (on) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    });
    mounted.forEach(({ el }, id) => { el.hidden = id !== m.id; });
    let entry = mounted.get(m.id);
    const first = !entry;
    if (first && needsFull({ model: m.id })) await upgrade();
    if (first) {
      const el = h('div', { class: 'model-view', id: `view-${m.id}` });
      $('#view').append(el);
      $('#booting')?.remove();
      const start = scenario || { ...wasm.default_scenario(), model: m.id };
      const { mount } = await m.load();
      entry = { el, view: null };
      mounted.set(m.id, entry);
      entry.view = mount({ root: el, wasm, worker: m.usesTrace ? worker : newWorker(m.id), tracePanel, scenario: start, banner, autorun });
      foldControls(el, m.id); // ≤ 640 px: the controls fold under one button
      attachCosts(el, m.id); // the runs and time of a long run, beside its button
      // the lesson panel above the view ("What this tab is about", glossary, "Try this"): content from www/<id>/lesson.js
      if (m.lesson) m.lesson().then(({ LESSON }) => mountLesson({ root: el, lesson: LESSON })).catch((e) => console.warn(`lesson of ${m.id}: ${errorText(e)}`));
      if (active !== m) el.hidden = true; // another tab was chosen while this view loaded
    } else {
      // charts drawn while hidden had no size: the views redraw on resize
      window.dispatchEvent(new Event('resize'));
    }
    const frag = fragmentFor(wasm, entry.view.scenario());
    if (location.hash !== frag) history.replaceState(null, '', frag);
    if (first && m.usesTrace) {
      const tr = entry.view.scenario().trace;
      const cur = tracePanel.current();
      if (tr.upload) tracePanel.expectUpload(tr.upload);
      // the trace may already be loaded (e.g. by a sweep on another tab): the view takes it as it would on load
      else if (cur && JSON.stringify(cur.ref) === JSON.stringify(tr)) entry.view.traceLoaded(cur);
      else await tracePanel.loadBundled(tr.bundled);
    }
  }

  // Back/Forward to a tab's link switches to that tab; a pasted link in the same tab opens it afresh
  window.addEventListener('hashchange', async () => {
    let next = scenarioFromLocation(wasm);
    if (next.error && !isFull()) {
      // the first module refuses what it leaves out (a script): the full one reads the link again; one it reads is
      // opened afresh by the start (which then loads the full module), a link bad for both only gets the message
      try {
        await fullEngine();
        window.dispatchEvent(new Event('packlab:full-engine')); // the shell's worker follows (upgrade)
      } catch (e) {
        banner(`The engine could not be loaded (${errorText(e)}).`);
        return;
      }
      next = scenarioFromLocation(wasm);
      if (!next.error) {
        location.reload();
        return;
      }
    }
    if (next.error) {
      banner(`This link could not be opened (${errorText(next.error)}).`);
      return;
    }
    const m = byId(next.scenario.model);
    const kept = m && mounted.get(m.id);
    if (kept && fragmentFor(wasm, kept.view.scenario()) === location.hash) {
      if (m !== active) show(m);
      return;
    }
    location.reload();
  });

  // the sweep panel: the scenario on display (the link the visible view keeps in the address bar) over axes of values
  const sweep = createSweepPanel({
    wasm, worker, tracePanel,
    scenario: () => scenarioFromLocation(wasm).scenario || link.scenario,
    // the visible view's last run (its run card's data-ms) times one cell of the estimate
    lastMs: () => Number(active && mounted.get(active.id)?.el.querySelector('.chart-card')?.dataset.ms),
  });
  $('#sweep-panel').append(sweep.el);
  const sweepBtn = $('#sweep-toggle');
  sweepBtn.disabled = false;
  sweepBtn.addEventListener('click', () => sweep.toggle());

  const copyBtn = $('#copy-link');
  copyBtn.disabled = false;
  copyBtn.addEventListener('click', async () => {
    const ok = await mounted.get(active.id).view.copyLink();
    copyBtn.textContent = ok ? 'Copied ✓' : 'Copy failed: use the address bar';
    setTimeout(() => { copyBtn.textContent = 'Copy link'; }, 1800);
  });

  await worker.ready;
  // a findings link (#s=…&run=ask) opens its scenario without computing it: the experiment may be long
  const hashParams = new URLSearchParams(location.hash.replace(/^#/, ''));
  const ask = hashParams.get('run') === 'ask';
  // and states its cost first: the stored run's native seconds (`&est=`), shown beside Run
  if (ask) holdLinkEstimate(hashParams.get('est'));
  await show(model, link.scenario, { autorun: !ask });
  // how the shell worker's warm-up went ('warm.status' waits behind the requests sent so far), for the tests'
  // figures: data-warm="state steps/total ms"
  worker.request('warm.status').promise.then((s) => {
    if (s) document.documentElement.dataset.warm = `${s.state} ${s.steps}/${s.total ?? '?'} ${s.ms ?? '?'}ms`;
  }, () => {});
  booted = true;
  if (pending && pending !== model && pending.load) await show(pending, null, { push: true });
  document.documentElement.dataset.bootMs = String(Math.round(performance.now() - t0));
}

main().catch((e) => {
  console.error(e);
  setChildren($('#view'), h('div', { class: 'card error-box', role: 'alert' },
    h('strong', {}, 'The playground could not start. '), errorText(e),
    h('p', { class: 'fine' }, 'It needs a browser with WebAssembly and module workers (recent Chrome, Firefox, Safari).')));
});
