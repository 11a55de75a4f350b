// The binding layer (src/wasm/: the exports of www/pkg/packlab.js) called directly in Chromium, on the module the page
// ships (the `wasm` profile build of scripts/build-wasm.sh): registry facts, links, validation, uploads, runs stepped
// and whole, the teaching view, charts on canvas and in SVG, admission's calls, the lifetime model against the native
// CLI's pin, hostile inputs. In a browser because the engine measures chart text through `window.document`
// (../shared/TOOLCHAIN.md trap 2). (These were wasm-bindgen tests in Rust, tests/wasm_bindings.rs, compiled by a
// separate debug build of the crate for wasm32; issue 30: CI compiles the crate for wasm32 once per module now.)
//
// Each test runs its body in a fresh page of its own (`inPage`), where `w` is the full module's exports, instantiated
// on their own (the glue imported under its own URL, so the page's own engine instance is not shared), and
// `eq`/`ok`/`throws` are assertions that fail the test with their message.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, newPage, ROOT } from './helpers.mjs';

const env = useBrowser();

/** The engine's longest accepted line (src/input/mod.rs `MAX_LINE_BYTES`, docs/input-formats.md "Limits on untrusted
 * input"), read from its one definition. */
function maxLineBytes() {
  const src = readFileSync(path.join(ROOT, 'src/input/mod.rs'), 'utf8');
  const m = src.match(/pub const MAX_LINE_BYTES: usize = (\d+) << (\d+);/);
  if (!m) throw new Error('src/input/mod.rs: MAX_LINE_BYTES is no longer `A << B`; update tests/e2e/binding.test.mjs');
  return Number(m[1]) * 2 ** Number(m[2]);
}

/**
 * Runs `body(ctx, arg)` in a fresh page (`arg`: JSON), where ctx is what `setUp` makes; resolves to its return value,
 * rejects with the first failed assertion or exception.
 */
async function inPage(body, arg) {
  const page = await newPage(env.browser);
  // a plain document of the site (same origin, same CSP), not the playground: nothing of the app runs beside the test
  await page.goto(`${env.server.url}style.css`);
  try {
    await page.evaluate(setUp);
    // the body's own source, called through the protocol (not subject to the page's CSP, which refuses eval)
    return await page.evaluate(`(${body.toString()})(window.__binding, ${JSON.stringify(arg ?? null)})`);
  } finally {
    await page.context().close();
  }
}

/** Run in the page: the module's exports on their own instance, and the helpers of `inPage`, as window.__binding. */
async function setUp() {
  const w = await import('/pkg/packlab.js?binding-test');
  await w.default({ module_or_path: '/pkg/packlab_bg.wasm' });
  const show = (v) => JSON.stringify(v);
  const eq = (got, want, what = '') => {
    if (show(got) !== show(want)) throw new Error(`${what}: got ${show(got)}, want ${show(want)}`);
  };
  const ok = (cond, what) => { if (!cond) throw new Error(`not true: ${what}`); };
  /** Calls f, which must throw; returns what it threw. */
  const throws = (f, what) => {
    try { f(); } catch (e) { return e; }
    throw new Error(`no error: ${what}`);
  };
  const json = (text) => JSON.parse(text);
  /** A small generic long CSV (6 items × 40 samples, deterministic) loaded as a trace. */
  const small = () => {
    let s = 'item,time,usage\n';
    for (let i = 0; i < 6; i++) {
      for (let t = 0; t < 40; t++) s += `vm${i},${t},${0.05 + 0.04 * i + 0.03 * ((t * (i + 3)) % 7)}\n`;
    }
    const b = new w.TraceBuilder();
    b.add('small.csv', new TextEncoder().encode(s));
    return b.finish(undefined);
  };
  const onTrace = (t) => { const i = new w.RunInputs(); i.use_trace(t); return i; };
  const smallScenario = () => json('{"placement":{"capacity":0.6,"target_rho":0.1,"fit":"gpa:0.1"}}');
  const canvas = (width, height) => {
    const c = document.createElement('canvas');
    c.width = width;
    c.height = height;
    document.body.append(c);
    return c;
  };
  /** Pixels neither white nor transparent. */
  const ink = (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++;
    return n;
  };
  window.__binding = { w, eq, ok, throws, json, small, onTrace, smallScenario, canvas, ink, show };
}

test('engine facts: version, bundled data, the model registry in tab order, the default scenario', () => inPage(({ w, eq, ok }) => {
  ok(w.engine_version().length > 0, 'engine version');
  eq(w.bundled_data()[0].id, 'planetlab-20110303', 'first bundled trace');
  const m = w.models();
  eq(m.map((x) => x.id), ['placement', 'admission', 'lifetime', 'era', 'oversub'], 'registry ids');
  eq(m[0].uses_trace, true, 'placement uses a trace');
  // the lifetime model replays a workload (the worker gives it to `ExperimentRun` in a `RunInputs`)
  eq(m[2].uses_workload, true, 'lifetime uses a workload');
  eq(m[2].charts[0], 'lifetime.empty', 'lifetime chart');
  const d = w.default_scenario();
  eq(d.model, 'placement', 'default model');
  eq(d.trace.bundled, 'planetlab-20110303', 'default trace');
}));

test('links round trip; bad, newer-set and oversized links are errors naming the field; v1 links still load', () => inPage(({ w, eq, ok, throws, json, show }) => {
  const link = w.scenario_to_link(json('{"seed":42,"placement":{"capacity":2.5,"rule":"ff","fit":"perc:95"}}'));
  const m = link.match(/^v2\.d(\d+)\./);
  ok(m, link);
  const set = Number(m[1]);
  const cur = `v2.d${set}.`;
  eq(w.scenario_to_link(w.default_scenario()).slice(0, cur.length), cur, 'the default scenario links under the same set');
  const back = w.scenario_from_link(`#s=${link}`);
  eq([back.seed, back.placement.capacity, back.placement.fit], [42, 2.5, 'perc:95'], 'decoded');
  eq(w.scenario_to_link(back), link, 'the same link again from the decoded object');
  for (const bad of ['', 'v1.!!!', 'v9.AAAA', 'v1.AAAA', 'v2.AAAA', 'garbage']) {
    const e = throws(() => w.scenario_from_link(bad), bad);
    eq(e.kind, 'scenario', bad);
    eq(typeof e.message, 'string', bad);
  }
  // a link made under a defaults set this engine does not know names the field
  const e = throws(() => w.scenario_from_link(link.replace(cur, `v2.d${set + 1}.`)), 'newer set');
  eq(e.field, 'defaults', 'newer set');
  ok(e.message.includes(`defaults set ${set + 1}`), e.message);
  // the old v1 form of the same link (same JSON payload) loads as the same scenario as its v2.d1 form
  eq(show(w.scenario_from_link(link.replace(cur, 'v1.'))), show(w.scenario_from_link(link.replace(cur, 'v2.d1.'))), 'v1 = v2.d1');
  throws(() => w.scenario_from_link(`v1.${'A'.repeat(100_000)}`), 'a 100 kB link');
}));

test('validation names the fields; wrong types and unknown fields are errors, not panics', () => inPage(({ w, eq, ok, throws, json }) => {
  const c = w.check_scenario(json('{"placement":{"capacity":-1,"target_rho":1.5}}'));
  eq(c.errors.map((e) => e.field), ['placement.capacity', 'placement.target_rho'], 'fields');
  eq(throws(() => w.check_scenario(json('{"placement":{"capacity":"abc"}}')), 'a string capacity').kind, 'scenario', 'kind');
  ok(throws(() => w.check_scenario(json('{"placement":{"capacty":2}}')), 'a misspelt field').message.includes('capacty'), 'names it');
  const e = throws(() => w.scenario_to_link(json('{"placement":{"capacity":0}}')), 'capacity 0');
  eq([e.field, e.errors.length], ['placement.capacity', 1], 'capacity 0');
  ok(w.scenario_json(undefined).includes('"placement"'), 'scenario_json of nothing is the default');
}));

test('a malformed upload names its file, line and column; no files at all is an error', () => inPage(({ w, eq, ok, throws }) => {
  const b = new w.TraceBuilder();
  b.add('bad.csv', new TextEncoder().encode('item,time,usage\nvm1,0,0.5\nvm1,1,zero\n'));
  const e = throws(() => b.finish(undefined), 'malformed CSV');
  eq([e.kind, e.file, e.line, typeof e.column], ['trace', 'bad.csv', 3, 'number'], 'error');
  ok(e.display.startsWith('bad.csv:3:'), e.display);
  throws(() => new w.TraceBuilder().finish(undefined), 'no files');
}));

test('a frontier stepped one unit at a time equals the whole run; past the end is null', () => inPage(({ w, eq, ok, small, onTrace, smallScenario, show }) => {
  const t = small();
  eq([t.vms(), t.samples(), t.sha256().length, t.summary().vms], [6, 40, 64, 6], 'trace');
  const run = new w.ExperimentRun(smallScenario(), onTrace(t));
  const total = run.total();
  ok(total > 20, `${total} units`);
  for (let k = 0; k < total; k++) {
    const p = run.step();
    eq(p.first, k, 'first');
    eq(p.points.length, 1, 'one unit per step in the browser');
    ok(p.points[0].m >= 0, 'm');
    eq(run.done(), k + 1, 'done');
  }
  eq(run.step(), null, 'stepping past the end');
  const whole = new w.ExperimentRun(smallScenario(), onTrace(t)).run_all();
  eq(show(run.report()), show(whole), 'stepwise = whole');
  ok(whole.points.some((p) => p.pareto === true), 'a Pareto point');
}));

test('an unfinished run has no report; a bad scenario names its field', () => inPage(({ w, eq, throws, json, small, onTrace, smallScenario }) => {
  const t = small();
  const run = new w.ExperimentRun(smallScenario(), onTrace(t));
  throws(() => run.report(), 'report before the end');
  const e = throws(() => new w.ExperimentRun(json('{"placement":{"clairvoyance":0.001}}'), onTrace(t)), 'clairvoyance');
  eq(e.field, 'placement.clairvoyance', 'field');
}));

test('the teaching view: a machine of a packing, its totals and overflow; bad machines and fits name the field', () => inPage(({ w, eq, ok, throws, json, small, onTrace, smallScenario }) => {
  const run = new w.ExperimentRun(smallScenario(), onTrace(small()));
  const out = run.query('machine', json('{"fit":"gpa:0.1","machine":0}'));
  eq([out.view.machine, out.view.totals.length], [0, 40], 'view');
  ok(out.view.gaussian_overflow >= 0 && out.view.gaussian_overflow <= 1, 'overflow probability');
  eq(throws(() => run.query('machine', { fit: 'gpa:0.1', machine: out.packing.m_abs }), 'past the last machine').field, 'machine', 'machine');
  eq(throws(() => run.query('machine', json('{"fit":"gpa:7","machine":0}')), 'gpa:7').field, 'placement.fit', 'fit');
  const svg = w.chart_svg('placement.machine', out.view, null, 600, 300);
  ok(svg.includes('<svg') && svg.includes('capacity c'), 'machine SVG');
}));

test('charts draw on canvas and in SVG; bad chart data and unknown charts are errors', () => inPage(({ w, eq, ok, throws, json, small, onTrace, smallScenario, canvas, ink }) => {
  const t = small();
  const points = new w.ExperimentRun(smallScenario(), onTrace(t)).run_all().points;
  const c = canvas(800, 480);
  const layout = w.draw_chart(c, 'placement.frontier', points, json('{"target_rho":0.1,"highlight":"gpa:0.1","scale":1}'));
  eq(layout.points.length, points.length, 'layout points');
  ok(ink(c) > 2000, 'the frontier canvas is blank');
  const svg = w.chart_svg('placement.frontier', points, null, 640, 400);
  ok(svg.startsWith('<svg') && !svg.includes('target'), 'frontier SVG without a target');
  const h = canvas(400, 200);
  w.draw_chart(h, 'trace.histogram', t.summary(), json('{"scale":1}'));
  ok(ink(h) > 500, 'the histogram is blank');
  throws(() => w.draw_chart(c, 'placement.frontier', json('[{"family":"gpa"}]'), null), 'points without numbers');
  throws(() => w.draw_chart(h, 'trace.histogram', {}, null), 'an empty summary');
  throws(() => w.draw_chart(h, 'no.such.chart', {}, null), 'an unknown chart');
  throws(() => w.draw_chart(c, 'placement.machine', json('{"machine":0}'), null), 'a machine view without totals');
}));

test('saved links (tests/links/v*.jsonl) keep loading to what they were saved with', async () => {
  const entries = ['v1', 'v2'].flatMap((v) => readFileSync(path.join(ROOT, `tests/links/${v}.jsonl`), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)));
  await inPage(({ w, ok }, entries) => {
    /** `expect` ⊆ `got`: objects by key, arrays element by element, the rest by value. */
    const contains = (got, expect) => {
      if (expect && typeof expect === 'object') {
        if (Array.isArray(expect)) return Array.isArray(got) && got.length === expect.length && expect.every((e, i) => contains(got[i], e));
        return got !== null && typeof got === 'object' && Object.entries(expect).every(([k, v]) => k in got && contains(got[k], v));
      }
      return got === expect;
    };
    for (const e of entries) ok(contains(w.scenario_from_link(e.link), e.expect), `${e.note}: does not contain ${JSON.stringify(e.expect)}`);
    ok(entries.length >= 14, `${entries.length} saved links`);
  }, entries);
});

/** A tiny admission scenario (C = 150 cores, 120 h, 2 runs, 2 search steps, a short look-ahead). */
const TINY_ADMISSION = '{"model":"admission","seed":4,"admission":{"runs":2,"policies":["ZEROTH","SECOND"],'
  + '"params":{"capacity":150,"horizon_hours":120,"tune_iterations":2,"bootstrap":100,"subhorizons":[120,24],"steps":10}}}';

test("admission's arms list the preset (E0.1's four, E0.3's twelve); an unknown preset names the field", () => inPage(({ w, eq, throws, json }) => {
  eq(w.model_call(json('{"model":"admission"}'), 'arms', null, undefined, undefined).map((a) => a.label), ['ZEROTH', 'FIRST', 'SECOND', 'UPPER_BOUND'], 'E0.1');
  // E0.3 ablates MARGINAL for FIRST and SECOND at m = 1, 5, 50 (issue 32): 12 arms
  eq(w.model_call(json('{"model":"admission","admission":{"preset":"E0.3"}}'), 'arms', null, undefined, undefined).length, 12, 'E0.3');
  eq(throws(() => w.model_call(json('{"model":"admission","admission":{"preset":"E9"}}'), 'arms', null, undefined, undefined), 'E9').field, 'admission.preset', 'E9');
  eq(w.arm_color(0), '#0072b2', 'the first arm colour');
}));

test('an admission run stepped to its end equals the one-call run', () => inPage(({ w, eq, ok, throws, json, show }, tiny) => {
  const run = new w.ExperimentRun(json(tiny), undefined);
  const total = run.total();
  ok(total > 0 && run.done() === 0, 'fresh run');
  throws(() => run.report(), 'no report before the end');
  let steps = 0;
  for (let st = run.step(); st !== null; st = run.step()) {
    steps += 1;
    ok(st.done <= total, 'done ≤ total');
  }
  ok(steps > 0 && run.done() === total, 'stepped to the end');
  const stepped = show(run.report());
  const whole = show(new w.ExperimentRun(json(tiny), undefined).run_all());
  eq(stepped, whole, 'stepped = whole');
  eq([JSON.parse(whole).model, JSON.parse(whole).arms.length], ['admission', 2], 'report');
}, TINY_ADMISSION));

test("admission's errors name the field; a placement run without a trace names `trace`", () => inPage(({ w, eq, throws, json }, tiny) => {
  eq(throws(() => new w.ExperimentRun(json('{"model":"admission","admission":{"params":{"sla":1.5}}}'), undefined), 'sla').field, 'admission.params.sla', 'sla');
  eq(throws(() => new w.ExperimentRun(json('{"model":"admission","admission":{"runs":0}}'), undefined), 'runs').field, 'admission.runs', 'runs');
  eq(throws(() => new w.ExperimentRun(json('{"model":"placement"}'), undefined), 'no trace').field, 'trace', 'trace');
  throws(() => new w.ExperimentRun(json('{"model":"admission","admission":{"nope":1}}'), undefined), 'an unknown field');
  throws(() => w.model_call(json(tiny), 'series', json('{"label":"NOPE","threshold":10,"run":0,"points":50}'), undefined, undefined), 'an unknown arm');
  throws(() => w.model_call(json(tiny), 'nope', null, undefined, undefined), 'an unknown call');
}, TINY_ADMISSION));

test("admission's time series and frontier draw on canvas and in SVG; bad curves are errors", () => inPage(({ w, eq, ok, throws, json, canvas, ink }, tiny) => {
  const s = w.model_call(json(tiny), 'series', json('{"label":"ZEROTH","threshold":100,"run":1,"points":60}'), undefined, undefined);
  const n = s.t.length;
  ok(n >= 50, `${n} samples`);
  for (const k of ['active', 'failures', 'accepted', 'rejected']) eq(s[k].length, n, k);
  eq(s.capacity, 150, 'capacity');
  const c = canvas(800, 400);
  w.draw_chart(c, 'admission.series', s, null);
  ok(ink(c) > 2000, 'the series canvas is blank');
  ok(w.chart_svg('admission.series', s, null, 600, 400).startsWith('<svg'), 'series SVG');
  const curves = json('[{"label":"ZEROTH","points":[[0.4,0],[0.6,0.002],[0.7,0.01]],"tuned":[0.4,0]},'
    + '{"label":"SECOND","points":[[0.5,0],[0.65,0.0005]],"tuned":[0.65,0.0005]}]');
  const f = canvas(800, 440);
  w.draw_chart(f, 'admission.frontier', curves, json('{"sla":0.001,"scale":1}'));
  ok(ink(f) > 3000, 'the admission frontier canvas is blank');
  const svg = w.chart_svg('admission.frontier', curves, null, 640, 400);
  ok(svg.includes('SECOND') && svg.includes('tuned'), 'frontier SVG');
  throws(() => w.draw_chart(f, 'admission.frontier', json('[{"points":"x"}]'), null), 'bad curves');
}, TINY_ADMISSION));

// The lifetime model in wasm on the bundled Azure 2017 arrivals gives bit for bit the numbers the native CLI printed for
// the same scenario (tests/pins/lifetime-small.json: `packlab lifetime --share 0.03 --seed 2 --json`).
test('the lifetime model in wasm equals the native CLI (tests/pins/lifetime-small.json); its chart draws', async () => {
  const pinned = JSON.parse(readFileSync(path.join(ROOT, 'tests/pins/lifetime-small.json'), 'utf8'));
  await inPage(async ({ w, eq, ok, throws, json, canvas, ink }, pinned) => {
    const bytes = new Uint8Array(await (await fetch('/static/traces/azure2017-arrivals.txt.gz')).arrayBuffer());
    const b = new w.TraceBuilder();
    b.add('azure2017-arrivals.txt.gz', bytes);
    const wl = b.finish_workload('azure2017-arrivals');
    const inputs = new w.RunInputs();
    inputs.use_workload(wl);
    const run = new w.ExperimentRun(json('{"model":"lifetime","seed":2,"lifetime":{"share":0.03}}'), inputs);
    eq(run.total(), 4, 'four policies');
    const rep = run.run_all();
    eq(rep.results.length, pinned.length, 'rows');
    const fields = ['policy', 'empty_hosts', 'empty_hosts_pp_vs_best_fit', 'optimum_empty_hosts', 'packing_density',
      'stranded_cpu', 'stranded_mem', 'allocation', 'failures'];
    pinned.forEach((p, i) => { for (const f of fields) eq(rep.results[i][f], p[f], `${f} of ${p.policy}`); });
    const c = canvas(800, 480);
    w.draw_chart(c, 'lifetime.empty', rep.results, json('{"warmup_h":48,"scale":1}'));
    ok(ink(c) > 2000, 'the lifetime chart is blank');
    throws(() => w.draw_chart(c, 'lifetime.empty', json('[{"policy":1}]'), null), 'malformed results');
    // a workload model without a workload is a clear error naming the field
    eq(throws(() => new w.ExperimentRun(json('{"model":"lifetime"}'), undefined), 'no workload').field, 'workload', 'field');
  }, pinned);
});

// Hostile input through the exports (the fuzz findings' kind, docs/input-formats.md "Limits on untrusted input"): every
// call gives an error object naming the file:line:column or the field, and the engine keeps working after it (a panic
// would abort the module: the calls after it would trap).
test('hostile inputs are error objects and the engine keeps working', () => inPage(({ w, eq, ok, throws, json, small, onTrace, smallScenario }, maxLine) => {
  const head = new TextEncoder().encode('#packlab-wide v1 unit=vm interval_s=300\nvm\t');
  const long = new Uint8Array(head.length + maxLine + 1).fill(0x31); // '1' × (the limit + 1) on line 2
  long.set(head);
  // a gzip stream that lies about its content, a line too long, a truncated zip
  for (const [name, bytes, line] of [
    ['x.tsv.gz', new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff]), undefined],
    ['long.tsv', long, 2],
    ['day.zip', new TextEncoder().encode('PK\x03\x04\x14\x00\x00\x00'), undefined],
  ]) {
    const b = new w.TraceBuilder();
    b.add(name, bytes);
    const e = throws(() => b.finish(undefined), name);
    eq([e.kind, e.file, e.line], ['trace', name, line], name);
  }
  // a scenario that would allocate without bound is refused on its field
  const e = throws(() => new w.ExperimentRun(json('{"model":"admission","admission":{"params":{"steps":4000000000}}}'), undefined), 'steps');
  eq(e.field, 'admission.params', 'field');
  ok(e.message.includes('steps must be at most'), e.message);
  // tampered and oversized links
  for (const link of ['v2.d1.%%%', 'v2.d99.AAAA', `v2.d1.${'A'.repeat(20_000)}`]) eq(throws(() => w.scenario_from_link(link), link).kind, 'scenario', link);
  // still alive: a run plans and steps
  ok(new w.ExperimentRun(smallScenario(), onTrace(small())).step() !== null, 'a step after the errors');
}, maxLineBytes()));
