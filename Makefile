# Runway: build, demo and test. Every target installs what it needs first.
# `make demo` and `make test` are the README's quick start.

SWIFT ?= swift
CONFIG ?= Config

.PHONY: all deps build demo validate test clean

all: build

# libuv1-dev (the event loop of the runtime) and pkg-config, through apt-get, only when missing.
deps:
	@if ! dpkg -s libuv1-dev >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then \
		echo "installing libuv1-dev and pkg-config"; \
		SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libuv1-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

# The main job on the shipped Config/: validate it, then play the demo scenarios on the core.
demo: build
	$(SWIFT) run runway validate --config $(CONFIG)
	$(SWIFT) run runway demo --config $(CONFIG)

validate: build
	$(SWIFT) run runway validate --config $(CONFIG)

# Serial: the real-loop tests run delegate calls on the shared cooperative pool, and CPU-heavy property tests
# in parallel could delay them past their (short) budgets. The whole suite takes a few seconds either way.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

clean:
	rm -rf .build
