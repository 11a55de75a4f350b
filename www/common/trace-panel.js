// The trace card, shared by every model view: pick a bundled trace or upload one (file picker, folder picker,
// drag and drop of files or a folder), parse it in the worker with a progress bar, show errors with
// file:line:column, keep the previous trace when an upload fails, and show a summary with a histogram/CDF.

import { h, setChildren, fmt, fitCanvas } from './dom.js';
import { errorText } from './engine.js';

const FOLDER_SKIP = /(^|\/)(\.[^/]*|__MACOSX)(\/|$)/; // hidden files and macOS resource forks

/** Files of a drop, walking dropped folders; names are relative paths ("20110303/vm1"). */
async function filesFromDrop(dt) {
  // entries must be taken synchronously, before the first await
  const entries = Array.from(dt.items || [])
    .filter((i) => i.kind === 'file')
    .map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null))
    .filter(Boolean);
  if (!entries.length) return Array.from(dt.files || []).map((f) => ({ name: f.name, data: f }));
  const out = [];
  const walk = async (entry) => {
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ name: entry.fullPath.replace(/^\/+/, ''), data: file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}

function filesFromInput(input) {
  return Array.from(input.files || []).map((f) => ({ name: f.webkitRelativePath || f.name, data: f }));
}

function cleanFiles(files) {
  const kept = files.length > 1 ? files.filter((f) => !FOLDER_SKIP.test(f.name)) : files;
  return kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function bytesText(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * @param {object} o
 * @param {object} o.wasm       the page's engine (drawing)
 * @param {import('./worker-client.js').EngineWorker} o.worker
 * @param {(t: { ref: object, info: object }) => void} o.onLoaded  called after every successful load
 */
export function createTracePanel({ wasm, worker, onLoaded }) {
  const bundled = wasm.bundled_data().filter((d) => d.kind === 'usage-trace');
  let current = null; // { ref, info }
  let expected = null; // { name, sha256 } when a link asks for an uploaded trace
  let busy = null; // the load in progress { cancel }

  const select = h('select', { id: 'trace-select', 'aria-label': 'Bundled trace' },
    bundled.map((b) => h('option', { value: b.id }, b.id)),
    h('option', { value: '', disabled: true, id: 'trace-upload-option', hidden: true }, 'uploaded trace'));
  const fileInput = h('input', { type: 'file', multiple: true, id: 'trace-files', class: 'visually-hidden', 'aria-label': 'Trace files',
    accept: '.zip,.csv,.tsv,.gz,.txt,text/csv,application/zip,application/gzip,*/*' });
  const folderInput = h('input', { type: 'file', id: 'trace-folder', class: 'visually-hidden', 'aria-label': 'Trace folder', webkitdirectory: true });
  const progress = h('progress', { id: 'trace-progress', max: 1, value: 0, hidden: true });
  const status = h('div', { class: 'status', id: 'trace-status', 'aria-live': 'polite' });
  const error = h('div', { class: 'error-box', id: 'trace-error', role: 'alert', hidden: true });
  const request = h('div', { class: 'request-box', id: 'trace-request', hidden: true });
  const summary = h('dl', { class: 'summary', id: 'trace-summary' });
  const histCanvas = h('canvas', { id: 'trace-histogram', 'aria-label': 'histogram and CDF of the usage samples' });
  const histWrap = h('figure', { class: 'canvas-wrap small' }, histCanvas,
    h('figcaption', { class: 'fine' }, 'Bars: samples per usage bin (log scale). Line: cumulative share (right axis).'));
  const attribution = h('p', { class: 'fine', id: 'trace-attribution' });

  const drop = h('div', { class: 'dropzone', id: 'trace-drop', tabindex: 0, 'aria-label': 'Upload a trace: drop files here, or press Enter to choose files' },
    h('div', { class: 'drop-title' }, 'Upload a trace'),
    h('div', { class: 'fine' }, 'Drop a PlanetLab day folder or .zip, an item,time,usage CSV, or a .tsv.gz here'),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'btn small', onclick: () => fileInput.click() }, 'Choose files…'),
      h('button', { type: 'button', class: 'btn small', onclick: () => folderInput.click() }, 'Choose folder…')),
    fileInput, folderInput);

  const el = h('section', { class: 'card', id: 'trace-card', 'aria-labelledby': 'trace-title' },
    h('h2', { id: 'trace-title' }, 'Trace'),
    h('label', { class: 'field' }, h('span', { class: 'label' }, 'Bundled'), select),
    request, drop, progress, status, error, summary, histWrap, attribution);

  // the drop zone takes focus: Enter or Space on it (not on its buttons) opens the file picker
  drop.addEventListener('keydown', (ev) => {
    if (ev.target !== drop || (ev.key !== 'Enter' && ev.key !== ' ')) return;
    ev.preventDefault();
    fileInput.click();
  });
  select.addEventListener('change', () => { if (select.value) loadBundled(select.value); });
  fileInput.addEventListener('change', () => { const f = filesFromInput(fileInput); fileInput.value = ''; if (f.length) loadFiles(f); });
  folderInput.addEventListener('change', () => { const f = filesFromInput(folderInput); folderInput.value = ''; if (f.length) loadFiles(f); });
  for (const target of [drop, document.body]) {
    target.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
    target.addEventListener('dragleave', (ev) => { if (ev.target === drop) drop.classList.remove('over'); });
    target.addEventListener('drop', async (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      drop.classList.remove('over');
      const files = await filesFromDrop(ev.dataTransfer);
      if (files.length) loadFiles(files);
    });
  }

  function showError(e) {
    const prev = current ? `The previous trace (${current.info.name}) is still loaded.` : '';
    setChildren(error, h('strong', {}, e.kind === 'hash' ? 'Wrong file. ' : 'Could not read the trace. '),
      h('code', { class: 'where' }, errorText(e)), prev ? h('div', { class: 'fine' }, prev) : null);
    error.hidden = false;
  }

  function setBusy(text, frac) {
    status.textContent = text;
    progress.hidden = frac === null;
    if (frac !== null) {
      if (frac === undefined) progress.removeAttribute('value');
      else progress.value = frac;
    }
  }

  function drawHistogram(info) {
    const dpr = fitCanvas(histCanvas, 150);
    try {
      wasm.draw_chart(histCanvas, 'trace.histogram', info.summary, { scale: dpr });
    } catch (e) {
      console.warn('histogram', e);
    }
  }

  function showSummary(info, ref) {
    const s = info.summary;
    const interval = s.interval_s ? ` × ${s.interval_s >= 60 ? `${s.interval_s / 60} min` : `${s.interval_s} s`}` : '';
    setChildren(summary,
      h('dt', {}, 'name'), h('dd', { id: 'trace-name', title: info.sha256 }, info.name),
      h('dt', {}, 'VMs'), h('dd', { id: 'trace-vms' }, String(s.vms)),
      h('dt', {}, 'samples'), h('dd', { id: 'trace-samples' }, `${s.samples}${interval}`),
      h('dt', {}, 'usage'), h('dd', {}, `mean ${fmt(s.mean, 3)} · s.d. ${fmt(s.sd, 3)} VM`),
      h('dt', {}, 'range'), h('dd', {}, `${fmt(s.min, 3)} – ${fmt(s.max, 3)} VM`),
      h('dt', {}, 'total mean'), h('dd', {}, `${fmt(s.total_mean, 4)} VM (all VMs together)`));
    drawHistogram(info);
    const b = ref.bundled ? bundled.find((x) => x.id === ref.bundled) : null;
    attribution.textContent = b ? `${b.title}. ${b.attribution}` : `Uploaded by you; SHA-256 ${info.sha256}.`;
    const footer = document.getElementById('attribution');
    if (footer && b) footer.textContent = `Bundled trace: ${b.title}.`;
  }

  function finishLoad(ref, info) {
    current = { ref, info };
    error.hidden = true;
    setBusy(`Loaded ${info.name}.`, null);
    const uploadOption = select.querySelector('#trace-upload-option');
    if (ref.bundled) {
      select.value = ref.bundled;
      uploadOption.hidden = true;
    } else {
      uploadOption.hidden = false;
      uploadOption.textContent = `uploaded: ${info.name}`;
      select.value = '';
    }
    showSummary(info, ref);
    onLoaded(current);
  }

  async function run(files, ref, { expectSha256, label, name }) {
    if (busy) busy.cancel();
    const r = worker.loadTrace(files, {
      name,
      expectSha256,
      onProgress: (p) => {
        if (p.stage === 'parsing') setBusy(`Parsing ${label}…`, undefined);
        else setBusy(`Reading ${label}: ${bytesText(p.done)} of ${bytesText(p.total)}`, p.total ? p.done / p.total : 0);
      },
    });
    busy = r;
    try {
      const info = await r.promise;
      if (busy !== r) return false;
      const fullRef = ref.upload ? { upload: { name: info.name, sha256: info.sha256 } } : ref;
      if (ref.upload) {
        expected = null;
        request.hidden = true;
      }
      finishLoad(fullRef, info);
      return true;
    } catch (e) {
      if (busy !== r) return false;
      if (e && e.kind === 'cancelled') {
        setBusy('Cancelled.', null);
        return false;
      }
      setBusy(current ? `Still using ${current.info.name}.` : 'No trace loaded.', null);
      if (current && current.ref.bundled) select.value = current.ref.bundled;
      showError(e);
      return false;
    } finally {
      if (busy === r) busy = null;
    }
  }

  /** Fetch a bundled trace's bytes (download progress), then parse them in the worker. */
  async function loadBundled(id) {
    expected = null; // choosing a bundled trace abandons a link's uploaded trace
    request.hidden = true;
    const b = bundled.find((x) => x.id === id);
    if (!b) {
      showError({ kind: 'input', message: `no bundled trace '${id}'` });
      return false;
    }
    setBusy(`Downloading ${b.id}…`, 0);
    let bytes;
    try {
      const resp = await fetch(new URL(b.path, document.baseURI));
      if (!resp.ok) throw new Error(`HTTP ${resp.status} for ${b.path}`);
      const total = Number(resp.headers.get('content-length')) || 0;
      const reader = resp.body.getReader();
      const chunks = [];
      let got = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        got += value.byteLength;
        if (total) setBusy(`Downloading ${b.id}: ${bytesText(got)} of ${bytesText(total)}`, got / total);
      }
      bytes = new Uint8Array(got);
      let off = 0;
      for (const c of chunks) { bytes.set(c, off); off += c.byteLength; }
    } catch (e) {
      setBusy('', null);
      showError({ kind: 'input', message: `could not download the bundled trace: ${e.message}` });
      return false;
    }
    const name = b.path.split('/').pop();
    return run([{ name, data: bytes.buffer }], { bundled: id }, { label: b.id, name: b.id });
  }

  /** Parse user files (checked against the link's SHA-256 when a link asked for an upload). */
  function loadFiles(files) {
    const clean = cleanFiles(files);
    if (!clean.length) {
      showError({ kind: 'input', message: 'the drop held no readable files' });
      return Promise.resolve(false);
    }
    const label = clean.length === 1 ? clean[0].name : `${clean.length} files`;
    return run(clean, { upload: {} }, { expectSha256: expected ? expected.sha256 : undefined, label });
  }

  /** A link names an uploaded trace: ask for it (and refuse files whose hash differs). */
  function expectUpload(up) {
    expected = { name: up.name, sha256: up.sha256 };
    setChildren(request,
      h('strong', {}, 'This link was made with an uploaded trace. '),
      'Choose the same ', h('code', {}, up.name), ' to reproduce it (SHA-256 ',
      h('code', { title: up.sha256 }, `${up.sha256.slice(0, 12)}…`), '). ',
      h('button', { type: 'button', class: 'link-btn', onclick: () => loadBundled(bundled[0].id) },
        'Use the bundled trace instead'));
    request.hidden = false;
  }

  return { el, loadBundled, loadFiles, expectUpload, current: () => current, redraw: () => current && drawHistogram(current.info) };
}
