# The two commands of the README:
#   make run    build (release) and run a short example session against an in-memory store
#   make test   build and run every test: Swift (unit, end-to-end, golden) and both clients
# Also: make bench (benchmarks beside the sqlite3 CLI), make build, make clean.

SWIFT ?= swift
RELEASE_BIN := .build/release/modelstore
DEBUG_BIN := .build/debug/modelstore
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: run test build deps test-deps swift-test python-test node-test bench clean

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

build: deps
	$(SWIFT) build -c release

run: build
	python3 Clients/python/examples/tasks.py $(RELEASE_BIN)

test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory swift-test python-test node-test

swift-test:
	$(SWIFT) test --skip-build

python-test:
	MODELSTORE_BIN=$(abspath $(DEBUG_BIN)) PYTHONPATH=Clients/python/src python3 -m unittest discover -s Clients/python/tests

node-test:
	MODELSTORE_BIN=$(abspath $(DEBUG_BIN)) bash Clients/node/test.sh

bench: build
	@scripts/ensure-deps.sh bench
	python3 Benchmarks/run.py --binary $(RELEASE_BIN)

clean:
	rm -rf .build bench-out Clients/node/dist
