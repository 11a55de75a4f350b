#!/usr/bin/env bash
# Page weight in Chromium (issue 30): runs tests/e2e/page-weight.test.mjs (the playground's first load and a reload
# over scripts/serve.py: requests, bytes on the wire, the wasm module's brotli copy) and writes its page_* figures,
# with the commit and the module's raw / gzip -9 / brotli sizes, to results/bench/page-weight.json (or OUT=…).
# After `make native wasm` and `make setup-web`. Usage: bash scripts/page-weight.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
OUT="${OUT:-results/bench/page-weight.json}"
rm -f test-artifacts/metrics.json.lock
node --test --test-reporter=spec tests/e2e/page-weight.test.mjs
node -e '
const fs = require("fs");
const m = JSON.parse(fs.readFileSync("test-artifacts/metrics.json", "utf8"));
const page = Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith("page_")));
const wasm = "www/pkg/packlab_first_bg.wasm"; // the module the first load takes (issue 30)
const out = {
  commit: process.argv[1],
  date: new Date().toISOString().slice(0, 10),
  command: "bash scripts/page-weight.sh",
  wasm_raw_bytes: fs.statSync(wasm).size,
  wasm_gzip9_bytes: Number(process.argv[2]),
  wasm_brotli_bytes: fs.statSync(wasm + ".br").size,
  ...page,
};
fs.writeFileSync(process.argv[3], JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out));
' "$(git rev-parse --short HEAD)" "$(gzip -9c www/pkg/packlab_first_bg.wasm | wc -c)" "$OUT"
