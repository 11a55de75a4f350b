#!/usr/bin/env node
// Type-checks the reports' TypeScript declarations (src/wasm/reports.d.ts) against every pinned report of
// `packlab run` (tests/pins/link-*.json, tests/pins/run-admission-tiny.json), and the binding's declarations
// (src/wasm/packlab.d.ts) on their own, with `tsc --noEmit --strict`. Each report is written as an object
// literal of its model's type, so a field the declarations lack (excess property) or a required field the
// report lacks fails. The model of a report is told by the one key only its model's report has.
// The model views' handling of a step's partial result (`onProgress` of www/<id>/view.js, `// @ts-check`, each
// typed with its model's step of `ModelSteps`) is checked against reports.d.ts too (tsc --checkJs, not strict),
// so a step field renamed there (and in the engine: tests/integration/pool_jobs.rs) fails until the view reads the new name.
// Usage: node scripts/check-report-types.mjs [TSC] (default: node_modules/.bin/tsc). Exit 1 on a type error.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const tsc = process.argv[2] ?? join(root, 'node_modules/.bin/tsc');
// the key that tells each model's report apart (ModelReports in reports.d.ts)
const KEYS = { placement: 'evaluations', admission: 'arms', lifetime: 'pool_capacity', era: 'prices', oversub: 'rows' };
// each model's list of rows whose row may carry a failed script's `error` (issue 31): the first row of every
// pinned report is checked once more with it set, so a row type lacking the optional field fails too
const ROWS = { placement: 'points', admission: 'arms', lifetime: 'results', era: 'cells', oversub: 'rows' };

const pins = readdirSync(join(root, 'tests/pins'))
  .filter((f) => /^link-.*\.json$/.test(f) || f === 'run-admission-tiny.json')
  .sort();
const dir = mkdtempSync(join(tmpdir(), 'report-types-'));
try {
  copyFileSync(join(root, 'src/wasm/reports.d.ts'), join(dir, 'reports.d.ts'));
  const seen = new Set();
  let body = "import type { ModelReports } from './reports';\n";
  for (const f of pins) {
    const report = JSON.parse(readFileSync(join(root, 'tests/pins', f), 'utf8'));
    const models = Object.keys(KEYS).filter((m) => report && typeof report === 'object' && KEYS[m] in report);
    if (models.length !== 1) {
      throw new Error(`tests/pins/${f}: cannot tell its model (report keys match ${models.length} models)`);
    }
    seen.add(models[0]);
    body += `// tests/pins/${f}\nexport const r${seen.size}_${body.length}: ModelReports['${models[0]}'] = ${JSON.stringify(report)};\n`;
    const rows = report[ROWS[models[0]]];
    if (Array.isArray(rows) && rows.length) {
      const failed = { ...report, [ROWS[models[0]]]: [{ ...rows[0], error: "line 1, column 1: 'f' ran over the operation limit of one call" }] };
      body += `// tests/pins/${f}, its first row failed\nexport const e${seen.size}_${body.length}: ModelReports['${models[0]}'] = ${JSON.stringify(failed)};\n`;
    }
  }
  const missing = Object.keys(KEYS).filter((m) => !seen.has(m));
  if (missing.length) throw new Error(`no pinned report of ${missing.join(', ')}`);
  writeFileSync(join(dir, 'pins.ts'), body);
  const args = ['--noEmit', '--strict', '--lib', 'esnext,dom', '--target', 'esnext', '--moduleResolution', 'bundler', '--module', 'esnext'];
  execFileSync(tsc, [...args, join(dir, 'pins.ts')], { stdio: 'inherit' });
  execFileSync(tsc, [...args, join(root, 'src/wasm/packlab.d.ts')], { stdio: 'inherit' });
  const views = Object.keys(KEYS).map((m) => join(root, 'www', m, 'view.js'));
  const js = ['--noEmit', '--allowJs', '--lib', 'esnext,dom', '--target', 'esnext', '--moduleResolution', 'bundler', '--module', 'esnext'];
  execFileSync(tsc, [...js, ...views], { stdio: 'inherit' });
  console.log(`check-report-types: ${pins.length} pinned reports of ${seen.size} models match src/wasm/reports.d.ts; src/wasm/packlab.d.ts type-checks; ${views.length} views read the steps as declared`);
} catch (e) {
  console.error(`check-report-types: ${e.message}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
