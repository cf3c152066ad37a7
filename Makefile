# The two commands of the README:
#   make run    build (release) and run a short example session against an in-memory store
#   make test   build and run every test: Swift (unit, end-to-end, golden) and both clients
# Also: make bench (benchmarks beside the sqlite3 CLI), make fuzz (long fuzz run, see
# README "Fuzzing"), make build, make clean.

SWIFT ?= swift
RELEASE_BIN := .build/release/modelstore
DEBUG_BIN := .build/debug/modelstore
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: run test build deps test-deps swift-test python-test node-test fuzz-quick self-contained fuzz bench clean

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

# The release binary links the Swift runtime statically: it needs only the system's C
# libraries (jansson, sqlite3) at run time, not the toolchain (scripts/check-self-contained.sh).
build: deps
	$(SWIFT) build -c release --static-swift-stdlib --product modelstore

run: build
	python3 Clients/python/examples/tasks.py $(RELEASE_BIN)

test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory swift-test python-test node-test fuzz-quick self-contained

# The release binary's dynamic dependencies, and `make run`'s session with the toolchain hidden.
self-contained: build
	scripts/check-self-contained.sh $(RELEASE_BIN)

swift-test:
	$(SWIFT) test --skip-build

python-test:
	MODELSTORE_BIN=$(abspath $(DEBUG_BIN)) PYTHONPATH=Clients/python/src python3 -m unittest discover -s Clients/python/tests

node-test:
	MODELSTORE_BIN=$(abspath $(DEBUG_BIN)) bash Clients/node/test.sh

# A brief fuzz run inside `make test` (about 20 s on the 2-core machine), a fixed seed
# unless FUZZ_SEED is given. `make fuzz` runs long against the release binary:
#   make fuzz FUZZ_MESSAGES=1000000 FUZZ_CANCELS=1000000 FUZZ_FILES=2000 FUZZ_SEED=7 FUZZ_DURATION=3600
FUZZ_SEED ?=
FUZZ_MESSAGES ?= 200000
FUZZ_CANCELS ?= 1000000
FUZZ_FILES ?= 500
FUZZ_DURATION ?= 0
FUZZ_OUT ?= fuzz-out
FUZZ_FLAGS ?=

fuzz-quick:
	python3 -m unittest discover -s Tests/Fuzz -p 'test_*.py'
	python3 Tests/Fuzz/fuzz.py --binary $(DEBUG_BIN) --seed $(or $(FUZZ_SEED),20260101) --messages 40000 \
		--cancels 100000 --files 80 --duration 60 --minimise-bound 2 --out $(FUZZ_OUT)

fuzz: build
	python3 Tests/Fuzz/fuzz.py --binary $(RELEASE_BIN) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) \
		--messages $(FUZZ_MESSAGES) --cancels $(FUZZ_CANCELS) --files $(FUZZ_FILES) --duration $(FUZZ_DURATION) \
		--out $(FUZZ_OUT) $(FUZZ_FLAGS)

bench: build
	@scripts/ensure-deps.sh bench
	python3 Benchmarks/run.py --binary $(RELEASE_BIN)

clean:
	rm -rf .build bench-out fuzz-out Clients/node/dist
