# packlab — the two commands: `make run` and `make test` (each does all set-up itself).
SHELL := /bin/bash
PORT ?= 8000
CARGO ?= cargo

.PHONY: run test setup setup-native setup-web native wasm test-native test-web bench frontier findings fuzz fuzz-smoke

## make run: set everything up, build the engine + wasm, serve the playground (PORT=... overrides)
run: setup native wasm
	bash scripts/serve.sh $(PORT)

## make test: set everything up and run every test (native engine + CLI, wasm bindings, browser end-to-end)
test: setup test-native test-web fuzz-smoke

setup: setup-native setup-web

setup-native:
	bash scripts/setup-native.sh

setup-web:
	bash scripts/setup-web.sh

native:
	$(CARGO) build --locked --release

wasm:
	bash scripts/build-wasm.sh

test-native:
	$(CARGO) test --locked --release --lib --bins --tests
	$(CARGO) bench --locked --no-run

test-web: native wasm
	bash scripts/test-web.sh

## the default frontier of the bundled trace, natively
frontier: native
	./target/release/packlab frontier --trace static/traces/planetlab-20110303.tsv.gz --capacity 1 --rule bf

bench:
	$(CARGO) bench --locked

## seed 002's experiments E2.1-E2.6 on the 7 PlanetLab days and E2.3 on the Azure 2019 readings: raw runs and
## results/002/tables.md (the README includes it verbatim; tests/findings_tables.rs checks it)
findings: native
	python3 scripts/seed002_findings.py

## the cargo-fuzz targets (fuzz/), one after the other, FUZZ_SECONDS each (FUZZ_TARGETS="link gzip" picks some)
FUZZ_SECONDS ?= 600
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

## the CI smoke of every fuzz target (a few seconds each); skipped with a message where nightly cannot be installed
fuzz-smoke:
	FUZZ_SMOKE=1 FUZZ_SECONDS=$${FUZZ_SMOKE_SECONDS:-5} bash scripts/fuzz.sh
