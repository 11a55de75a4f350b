// The playground shell: loads the engine (compiled once, shared with the compute worker), reads a share
// link, mounts the model view and the shared trace panel, and wires the header (model tabs, Copy link).
//
// Models are views: each lives in www/<model>/ (view.js on the page, worker-ops.js in the worker); the tab list
// comes from the engine's model registry (wasm.models()) and each view's loader from www/models.js. A tab switches model by opening that model's default scenario as a link (#s=v2.d1.…).

import { h, setChildren, $ } from './common/dom.js';
import { loadEngine, errorText } from './common/engine.js';
import { EngineWorker } from './common/worker-client.js';
import { createSweepPanel } from './common/sweep.js';
import { scenarioFromLocation } from './common/share.js';
import { createTracePanel } from './common/trace-panel.js';
import { MODELS_WWW } from './models.js';


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
  const { wasm, module } = await loadEngine();
  $('#engine-version').textContent = `engine ${wasm.engine_version()}`;

  const worker = new EngineWorker({
    module,
    // a restart after Cancel is silent once done; a worker that died is reported and stays reported
    onStatus: (s, reason) => {
      if (s === 'restarting') banner(reason ? `The engine stopped (${reason}); restarting it and reloading your inputs…` : 'The engine was restarted; your inputs are being reloaded.', 'info');
      else if (s === 'ready') banner(reason ? `The engine stopped (${reason}) and was restarted; your trace and workload were reloaded. Run again to continue.` : null, 'info');
      else if (s === 'failed') banner(`The engine stopped and could not be restarted (${reason}). Reload the page.`, 'warn');
    },
  });

  // `?workers=N` sets how many workers compute runs (the engine worker's pool; default: one per core, 1 = no pool)
  const workers = new URLSearchParams(location.search).get('workers');
  if (workers !== null) worker.setPoolSize(Number(workers));

  // the scenario: a link (#s=v2.d1.…, or an old #s=v1.…) or the defaults; a bad link (or one made under
  // defaults this engine does not know) shows a message and falls back
  const link = scenarioFromLocation(wasm);
  if (link.error) {
    banner(`This link could not be opened (${errorText(link.error)}). Showing the default scenario instead.`);
    history.replaceState(null, '', location.pathname + location.search);
  }
  // a pasted link in the same tab (hashchange) reloads the scenario
  window.addEventListener('hashchange', () => {
    const next = scenarioFromLocation(wasm);
    if (next.error) {
      banner(`This link could not be opened (${errorText(next.error)}).`);
      return;
    }
    location.reload();
  });

  // the tab list comes from the engine's model registry; each model's view from www/models.js
  const MODELS = wasm.models().map((m) => ({ id: m.id, title: m.title, hint: m.hint, usesTrace: m.uses_trace, load: MODELS_WWW[m.id] && MODELS_WWW[m.id].view }));
  const model = MODELS.find((m) => m.id === (link.scenario.model || MODELS[0].id)) || MODELS[0];

  setChildren($('#model-tabs'), MODELS.map((m) => h('button', {
    type: 'button',
    id: `tab-${m.id}`,
    class: `tab${m === model ? ' active' : ''}`,
    onclick: () => {
      if (m === model || !m.load) return;
      // the other model's default scenario, as a link, opened at once: not through the hashchange handler,
      // which the current view's own link update (history.replaceState when a run ends) could overtake
      history.pushState(null, '', `#s=${wasm.scenario_to_link({ ...wasm.default_scenario(), model: m.id })}`);
      location.reload();
    },
    disabled: !m.load,
    title: m.hint,
    'aria-current': m === model ? 'page' : false,
  }, m.title, m.load ? null : h('span', { class: 'soon' }, 'soon'))));

  let view = null;
  const tracePanel = createTracePanel({ wasm, worker, onLoaded: (t) => view && view.traceLoaded(t) });
  const { mount } = await model.load();
  view = mount({ root: $('#view'), wasm, worker, tracePanel, scenario: link.scenario, banner });

  // the sweep panel: the scenario on display (the link the view keeps in the address bar) over axes of values
  const sweep = createSweepPanel({ wasm, worker, tracePanel, scenario: () => scenarioFromLocation(wasm).scenario || link.scenario });
  $('#sweep-panel').append(sweep.el);
  const sweepBtn = $('#sweep-toggle');
  sweepBtn.disabled = false;
  sweepBtn.addEventListener('click', () => sweep.toggle());

  const copyBtn = $('#copy-link');
  copyBtn.disabled = false;
  copyBtn.addEventListener('click', async () => {
    const ok = await view.copyLink();
    copyBtn.textContent = ok ? 'Copied ✓' : 'Copy failed: use the address bar';
    setTimeout(() => { copyBtn.textContent = 'Copy link'; }, 1800);
  });

  await worker.ready;
  if (!model.usesTrace) {
    document.documentElement.dataset.bootMs = String(Math.round(performance.now() - t0));
    return;
  }
  const tr = link.scenario.trace;
  if (tr.upload) tracePanel.expectUpload(tr.upload);
  else await tracePanel.loadBundled(tr.bundled);
  document.documentElement.dataset.bootMs = String(Math.round(performance.now() - t0));
}

main().catch((e) => {
  console.error(e);
  setChildren($('#view'), h('div', { class: 'card error-box', role: 'alert' },
    h('strong', {}, 'The playground could not start. '), errorText(e),
    h('p', { class: 'fine' }, 'It needs a browser with WebAssembly and module workers (recent Chrome, Firefox, Safari).')));
});
