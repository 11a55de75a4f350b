// Reproducible links: the whole scenario in the URL fragment as #s=v2.d<set>.<base64url(deflate(JSON))> with
// only the values that differ from defaults set <set> (frozen in the engine, so a link keeps its meaning when
// later versions change their defaults; old #s=v1.… links are read as set 1). Encoding and decoding live in
// the engine (Scenario::to_link / from_link), so links are tested natively and the CLI can replay them; this
// module only moves them between the URL and the page.

/** The scenario in the current URL: { scenario, error, present }. Falls back to the defaults on any error. */
export function scenarioFromLocation(wasm, hash = location.hash) {
  const frag = (hash || '').replace(/^#/, '');
  const s = new URLSearchParams(frag).get('s');
  if (!s) return { scenario: wasm.default_scenario(), error: null, present: false };
  try {
    return { scenario: wasm.scenario_from_link(s), error: null, present: true };
  } catch (e) {
    return { scenario: wasm.default_scenario(), error: e, present: true };
  }
}

/** The fragment '#s=v2.d1.…' of a valid scenario (throws the engine's error object otherwise). */
export function fragmentFor(wasm, scenario) {
  return `#s=${wasm.scenario_to_link(scenario)}`;
}

let activeModel = null;

/** The model whose view is on display: only its scenarios are written into the address bar (app.js sets it). */
export function setActiveModel(id) {
  activeModel = id;
}

/**
 * Put the scenario's link into the address bar without adding history entries. A hidden tab's scenario (a run
 * that ends while another tab is on display) leaves the address bar alone.
 */
export function writeLocation(wasm, scenario) {
  if (activeModel && scenario && scenario.model && scenario.model !== activeModel) return location.href;
  const frag = fragmentFor(wasm, scenario);
  if (location.hash !== frag) history.replaceState(null, '', frag);
  return location.href;
}

/** writeLocation for a view's scenario edits: a scenario that cannot be linked only logs a warning. */
export function updateLocation(wasm, scenario) {
  try {
    writeLocation(wasm, scenario);
  } catch (e) {
    console.warn('link', e);
  }
}

/** Copy text to the clipboard; falls back to a hidden textarea + execCommand. Resolves to true on success. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall through */ }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}
