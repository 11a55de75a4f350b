// The page's first wasm module (issue 30: placement without the other models and the script language,
// www/pkg/packlab_first_bg.wasm, instantiated with the full module's JS) against the full module and the CLI:
// the same placement numbers bit for bit (the default day and a resampled run of 3000 realisations), and what it
// leaves out fails with an error naming it, never a panic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { loadWasm, planRun, parseTrace, bundledTraceFiles, ROOT } from './wasm-node.mjs';
import { CLI, tempDir } from './helpers.mjs';

const TMP = tempDir('packlab-first-');
const PKG = path.join(ROOT, 'www/pkg');

/** The first module in an instance of the full module's JS of its own (a second import of the glue). */
async function loadFirst() {
  const w = await import(`${pathToFileURL(path.join(PKG, 'packlab.js')).href}?first`);
  w.initSync({ module: readFileSync(path.join(PKG, 'packlab_first_bg.wasm')) });
  return w;
}

test('the first module and the full one give the CLI\'s placement reports bit for bit', async () => {
  const [first, full] = [await loadFirst(), await loadWasm()];
  assert.ok(readFileSync(path.join(PKG, 'packlab_first_bg.wasm')).length < readFileSync(path.join(PKG, 'packlab_bg.wasm')).length / 2);
  const scenarios = {
    default: full.default_scenario(),
    resampled3000: full.check_scenario({ placement: { mode: 'resampled', realisations: 3000 } }).scenario,
  };
  for (const [label, scenario] of Object.entries(scenarios)) {
    const file = path.join(TMP, `${label}.json`);
    writeFileSync(file, full.scenario_json(scenario));
    const native = JSON.parse(execFileSync(CLI, ['run', file], { cwd: ROOT, maxBuffer: 64 << 20 }).toString());
    for (const [name, w] of [['first', first], ['full', full]]) {
      const trace = parseTrace(w, bundledTraceFiles(), 'planetlab-20110303');
      const run = planRun(w, scenario, { trace });
      assert.deepEqual(run.run_all(), native, `${label}, ${name} module`);
      run.free();
      trace.free();
    }
  }
});

test('the first module names what it leaves out: the other models, user scripts', async () => {
  const first = await loadFirst();
  // every model's section, validation and links stay; a run of another model is an error naming it
  const sc = first.check_scenario({ model: 'admission' });
  assert.equal(sc.errors.length, 0);
  assert.throws(() => new first.ExperimentRun(sc.scenario),
    (e) => /the admission model is not in this build of the engine/.test(e.message));
  const scripted = first.check_scenario({
    placement: { scripts: [{ name: 'gpa', language: 'rhai-1', enabled: true, source: 'fn fits(a, b, c, d) { true }' }] },
  });
  assert.ok(scripted.errors.some((e) => /user scripts are not in this build/.test(e.message)), JSON.stringify(scripted.errors));
});
