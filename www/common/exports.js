// Exports shared by the model views: the "Export" row of a chart card (the chart as SVG and PNG, the results
// as CSV and JSON, the scenario as `packlab run` reads it) and the downloads behind it.

import { h, download } from './dom.js';
import { errorText } from './engine.js';

/** CSV text of `rows` (arrays of cells); cells with a comma, quote or newline are quoted. */
export function csvText(rows) {
  const cell = (x) => (/[",\n]/.test(String(x)) ? `"${String(x).replace(/"/g, '""')}"` : x);
  return rows.map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

/** Download the SVG `make()` renders as `filename`; a failure goes to `onError(text)`. */
export function downloadSvg(filename, make, onError) {
  try {
    download(filename, make(), 'image/svg+xml');
  } catch (e) { onError(`SVG export failed: ${errorText(e)}`); }
}

/**
 * The export row: buttons `#<prefix>-svg`, `-png`, `-csv`, `-json`, `-scenario`.
 * @param {object} o
 * @param {string} o.prefix            id prefix, e.g. 'export' or 'admission-export'
 * @param {object} o.wasm              the page's engine (scenario_json)
 * @param {HTMLCanvasElement} o.canvas the chart on screen (PNG = its pixels)
 * @param {() => string} o.stem        file name stem of the SVG/PNG/CSV/JSON files
 * @param {() => boolean} o.ready      true when there are results to export (else `onNothing()`)
 * @param {() => string} o.svg         the chart as an SVG document
 * @param {() => Array<Array>} o.csv   the results as rows, header first
 * @param {() => object} o.json        the results: saved as { scenario, link, ...json() }
 * @param {() => object} o.scenario    the scenario on display
 * @param {() => void} o.onNothing     called when there is nothing to export yet
 * @param {(text: string) => void} o.onError
 */
export function exportRow({ prefix, wasm, canvas, stem, ready, svg, csv, json, scenario, onNothing, onError }) {
  const need = (fn) => () => {
    if (!ready()) { onNothing(); return; }
    fn();
  };
  const button = (kind, text, onclick, title) => h('button', { type: 'button', class: 'btn small', id: `${prefix}-${kind}`, onclick, title }, text);
  return h('div', { class: 'row exports' },
    h('span', { class: 'fine' }, 'Export'),
    button('svg', 'SVG', need(() => downloadSvg(`${stem()}.svg`, svg, onError))),
    button('png', 'PNG', need(() => canvas.toBlob((b) => b && download(`${stem()}.png`, b), 'image/png'))),
    button('csv', 'CSV', need(() => download(`${stem()}.csv`, csvText(csv()), 'text/csv'))),
    button('json', 'JSON', need(() => download(`${stem()}.json`, JSON.stringify({ scenario: scenario(), link: location.href, ...json() }, null, 2) + '\n', 'application/json'))),
    button('scenario', 'Scenario', () => {
      try {
        download('scenario.json', wasm.scenario_json(scenario()) + '\n', 'application/json');
      } catch (e) { onError(errorText(e)); }
    }, 'the scenario for `packlab run scenario.json`'));
}
