# packlab — the two commands: `make run` and `make test` (each does all set-up itself).
SHELL := /bin/bash
PORT ?= 8000
CARGO ?= cargo
# every stage prints its start as "== [seconds since make started] HH:MM:SS stage (the machine's busy CPU seconds
# since then)", so CI's log gives the time of each stage and the CPU the whole machine spent meanwhile (user, nice
# and system time of /proc/stat, every process counted, the browser's and background builds' too)
T0 := $(shell date +%s)
BUSY = awk '/^cpu / { printf "%d", ($$2 + $$3 + $$4 + $$7 + $$8) / 100 }' /proc/stat 2>/dev/null || echo 0
BUSY0 := $(shell $(BUSY))
STAMP = @echo "== [$$(( $$(date +%s) - $(T0) )) s] $$(date -u +%T) $@ (CPU $$(( $$($(BUSY)) - $(BUSY0) )) s)"

.PHONY: run test tree-save setup setup-native setup-web setup-web-start setup-web-wait native native-tests native-tests-build wasm wasm-start wasm-wait test-native test-web test-web-run bench frontier oversub-pretrained findings findings-links findings-quick fuzz fuzz-smoke fuzz-smoke-build

## make run: set everything up, build the engine + wasm, serve the playground (PORT=... overrides)
run: setup native wasm
	bash scripts/serve.sh $(PORT)

## make test: set everything up and run every test (native engine + CLI, wasm bindings, browser end-to-end)
test: tree-save fuzz-smoke-build setup-native setup-web-start wasm-start native-tests-build test-native wasm-wait test-web-run fuzz-smoke
	bash scripts/tree-clean.sh check
	$(STAMP) done

## the fuzz smoke's nightly build (~110 s of CPU: the engine and its dependencies at opt-level 0, scripts/fuzz.sh) in
## the background at nice 5, from the start of `make test`: it takes what the other stages leave idle (downloads, links,
## the wasm build's single-threaded LTO, the browser tests' waits) and a small share beside them, so it is done
## before the smoke needs it (at nice 19, with the other stages' CPU cut, it would get no share until the browser
## tests end, and its engine compile runs on one core: results/bench/ci-stages.txt, sixteenth session);
## `make fuzz-smoke` waits for it (scripts/fuzz.sh's lock). Its log: test-artifacts/fuzz-build.log. If an earlier
## stage fails, it finishes on its own.
## Its process id goes to test-artifacts/fuzz-build.pid: the browser suite stops it (SIGSTOP) during the one
## measurement taken alone (scripts/e2e-run.mjs; issue 25: Chromium starts as a session leader, in a scheduler group of
## its own, so the build's nice level does not make it yield to the browser: the default Oversubscription view read
## 9.3-10.8 s beside it instead of 5.8-6.5 s, results/bench/oversub-default.txt); `make fuzz-smoke` resumes it first.
fuzz-smoke-build:
	$(STAMP)
	@mkdir -p test-artifacts
	FUZZ_SMOKE=1 FUZZ_BUILD_ONLY=1 nohup nice -n 5 bash scripts/fuzz.sh > test-artifacts/fuzz-build.log 2>&1 & echo $$! > test-artifacts/fuzz-build.pid
	@sleep 1

tree-save:
	bash scripts/tree-clean.sh save

setup: setup-native setup-web

setup-native:
	$(STAMP)
	bash scripts/setup-native.sh

setup-web:
	$(STAMP)
	bash scripts/setup-web.sh

## `make test` runs the web set-up (wasm-bindgen-cli's build, ~125 s on a fresh clone, and npm ci) beside the native
## tests, which do not need it; setup-web-wait waits for it before the wasm stage and fails with its log if it failed
setup-web-start:
	$(STAMP)
	@mkdir -p test-artifacts
	@rm -f test-artifacts/setup-web.rc
	(bash scripts/setup-web.sh > test-artifacts/setup-web.log 2>&1; echo $$? > test-artifacts/setup-web.rc) &

setup-web-wait:
	$(STAMP)
	@while [ ! -s test-artifacts/setup-web.rc ]; do sleep 1; done
	@cat test-artifacts/setup-web.log | grep -v '^ *Compiling ' || true
	@exit $$(cat test-artifacts/setup-web.rc)

native:
	$(STAMP)
	$(CARGO) build --locked --release

wasm:
	$(STAMP)
	bash scripts/build-wasm.sh

test-native:
	$(STAMP)
	$(CARGO) test --locked --release --lib --tests
	$(CARGO) bench --locked --no-run

## only the native tests' compile (the CLI included)
native-tests-build:
	$(STAMP)
	$(CARGO) test --locked --release --lib --tests --no-run

## the CLI as the native tests built it: `cargo build --release` resolves features without the dev-dependencies and
## would compile rhai and the crate a second time (64 s on a fresh clone); after test-native this is a no-op
native-tests:
	$(STAMP)
	$(CARGO) test --locked --release --lib --tests --no-run

test-web: native-tests wasm test-web-run

## the browser tests alone (the CLI and www/pkg built)
test-web-run:
	$(STAMP)
	bash scripts/test-web.sh

## `make test` builds the wasm modules (`make wasm`, ~260 s of CPU on a fresh clone for both, each one's LTO on one
## core; the brotli copy at quality 5, a few seconds: `make wasm`/`make run` use 11, about a minute, 15% smaller; tests
## serve it the same way) in the background as soon as the web set-up has finished, beside the native build and test
## run (its own target layout, target/wasm*, so the two cargo runs do not wait for each other): started after the
## native compile, its single-threaded LTO left a core idle for ~110 s before the browser tests (results/bench/
## ci-stages.txt, sixteenth session); wasm-wait waits for it before the browser tests and prints its log (each line of
## it keeps its own `== [s]` stamp), failing with it if it failed. (A plain `make`, not $(MAKE): `make -n test` would
## run a recipe line naming $(MAKE).)
wasm-start:
	$(STAMP)
	@mkdir -p test-artifacts
	@rm -f test-artifacts/wasm.rc
	(while [ ! -s test-artifacts/setup-web.rc ]; do sleep 1; done; \
	 rc=$$(cat test-artifacts/setup-web.rc); \
	 if [ "$$rc" = 0 ]; then WASM_BROTLI_QUALITY=$${WASM_BROTLI_QUALITY:-5} make --no-print-directory T0=$(T0) BUSY0=$(BUSY0) CARGO=$(CARGO) wasm; rc=$$?; fi; \
	 echo $$rc > test-artifacts/wasm.rc) > test-artifacts/wasm.log 2>&1 &

wasm-wait: setup-web-wait
	$(STAMP)
	@while [ ! -s test-artifacts/wasm.rc ]; do sleep 1; done
	@grep -v '^ *Compiling ' test-artifacts/wasm.log || true
	@exit $$(cat test-artifacts/wasm.rc)

## the default frontier of the bundled trace, natively
frontier: native
	./target/release/packlab placement frontier --trace static/traces/planetlab-20110303.tsv.gz --capacity 1 --rule bf

## the bundled pretrained C2MARL arm of the default oversubscription scenario (static/oversub/c2marl-e11.json.gz,
## the playground's default view); re-run when the learner or the defaults change (tests/integration/oversub_pretrained.rs says so)
oversub-pretrained: native
	bash scripts/oversub-pretrained.sh

bench:
	$(CARGO) bench --locked

## one command for every paper's findings (scripts/findings.py runs scripts/seed00N_findings.py and, at the paper
## scale, the scripts in its EXTRAS: seed 001's Alibaba hot machines, seed 003's frontier and synthetic pools): raw runs and
## results/<paper>/tables.md, indexed by results/README.md (tests/integration/findings_tables.rs checks them against the stored
## runs). PAPER=000|001|002|003|004|all (comma-separated list allowed), SCALE=paper|quick (quick:
## results/<paper>/quick/, what CI checks); seed 000's scale is
## FINDINGS_000_SCALE (default paper = 1/10, about 40 min; also reduced = 1/20 in results/000/reduced/, and full)
PAPER ?= all
SCALE ?= paper
FINDINGS_000_SCALE ?= paper
findings: native
	FINDINGS_000_SCALE=$(FINDINGS_000_SCALE) python3 scripts/findings.py --paper $(PAPER) --scale $(SCALE)

## only the share links of the stored runs (results/<paper>/links.json, scripts/findings_links.py; no simulation)
findings-links: native
	python3 scripts/findings_links.py --paper $(PAPER)

## every paper's quick scale (results/<paper>/quick/: a small version of each paper's experiments;
## results/quick.md gives their wall times); tests/integration/findings_tables.rs re-runs the stored quick commands and re-renders their tables
findings-quick: native
	python3 scripts/findings.py --paper all --scale quick

## the cargo-fuzz targets (fuzz/), FUZZ_JOBS at a time (default 1), FUZZ_SECONDS each (FUZZ_TARGETS="link gzip" picks some)
FUZZ_SECONDS ?= 600
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

## the CI smoke of every fuzz target (a second each, no sanitizer); skipped with a message where nightly cannot be installed
fuzz-smoke:
	$(STAMP)
	@pkill -CONT -s 0 2>/dev/null; rm -f test-artifacts/fuzz-build.pid; true
	FUZZ_SMOKE=1 FUZZ_SECONDS=$${FUZZ_SMOKE_SECONDS:-1} bash scripts/fuzz.sh
