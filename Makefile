# Runway: build, demo and test. Every target installs what it needs first.
# `make demo` and `make test` are the README's quick start.

SWIFT ?= swift
CONFIG ?= Config
# The Swift files `make lint` and `make format` cover (directories are searched recursively, hidden ones skipped).
SWIFT_FORMAT_PATHS ?= Sources Tests Examples Benchmarks Fuzz Plugins Package.swift Benchmarks/Package.swift

.PHONY: all deps build demo demo-wake simulate validate lint format snippet-check refs-check example-check docs \
	docs-check man test clean install

all: build

# libuv1-dev (the event loop of the runtime) and pkg-config, through apt-get, only when missing. `make test` also
# wants tmux for the terminal tests of `runway status` (skipped without it; .ci/run installs it).
deps:
	@if ! dpkg -s libuv1-dev >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then \
		echo "installing libuv1-dev and pkg-config"; \
		SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libuv1-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

# The main job on the shipped Config/: validate it, then run the daemon on it playing the demo scenario (about
# 10 s of real time: launch, background, expiration warning, suspension, exits-on-suspend, budget overrun, purge,
# stop). Exits 0 when every step of the scenario held.
demo: build
	"$$($(SWIFT) build --show-bin-path)/runway" validate --config $(CONFIG)
	"$$($(SWIFT) build --show-bin-path)/runway" run --config $(CONFIG) --scenario $(CONFIG)/Scenarios/demo.jsonl

# The second demo (about 11 s): background wake-ups on the real daemon (Behaviour.md W1-W9). The weather app uses the
# modern lock, is suspended, woken for a background fetch and then for the refresh it scheduled, and unlocked.
demo-wake: build
	"$$($(SWIFT) build --show-bin-path)/runway" run --config $(CONFIG) --scenario $(CONFIG)/Scenarios/wake.jsonl

# State restoration (about 8 s): the Python sample app on a daemon of its own (scratch configuration and state
# directory, removed after) counts while active, preserves its counter when sent Home, is purged as under memory
# pressure and summoned: the launch restores it and the counter goes on from where it was (Behaviour.md R1, R2).
# Exits 0 when the counter survived (Scripts/demo-restore.py).
.PHONY: demo-restore
demo-restore: build
	python3 Scripts/demo-restore.py "$$($(SWIFT) build --show-bin-path)/runway"

# The seed scenarios on the core with a simulated clock (no real time, no processes).
simulate: build
	"$$($(SWIFT) build --show-bin-path)/runway" demo --config $(CONFIG)

validate: build
	$(SWIFT) run runway validate --config $(CONFIG)

# The tree against .swift-format, with the swift-format that ships with the toolchain; any finding fails. Then
# every line at most 120 characters: swift-format neither wraps nor reports a comment or string literal it cannot
# break, so the second command catches those.
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_FORMAT_PATHS)
	@long=$$(find $(SWIFT_FORMAT_PATHS) -name '*.swift' -not -path '*/.*' \
		-exec env LC_ALL=C.UTF-8 grep -nHE '^.{121,}' {} + | sort -u); \
	if [ -n "$$long" ]; then echo "$$long"; echo "lines over 120 columns: wrap them by hand"; exit 1; fi

# Rewrites the same files in place to .swift-format. It does not wrap comments or string literals: lines over 120
# columns there still fail `make lint` and are shortened by hand.
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_FORMAT_PATHS)

# README.md's marked code blocks against the files they show (`<!-- snippet: PATH -->`): fails with a diff when one
# differs. Python 3, standard library only; well under a second.
snippet-check:
	python3 Scripts/check-readme-snippets.py

# Every rule id cited in the tracked files (L3, B4, S12, ...) is defined in Docs/Behaviour.md, every decision cited
# (Decision 166) has its record in Docs/Decisions/, every relative link of a Markdown file resolves, and no path leads
# to the specification's old home beside the clone (Scripts/check-rule-references.py). Well under a second.
refs-check:
	python3 Scripts/check-rule-references.py

# The C of CRunwayProcess with warnings: each .c compiled with -Wall -Wextra -Werror, then its header and CLibUV's
# shim.h each on their own. SwiftPM compiles them without these flags (unsafeFlags would make the package unusable as
# a dependency by URL), so this is where a warning fails `make test`. C_CHECK_CC is the compiler (cc unless CC says
# otherwise; gcc and the toolchain's clang both pass); gnu17 is the dialect SwiftPM's clang compiles in by default.
# Under a second.
C_CHECK_CC ?= $(CC)
C_CHECK_FLAGS ?= -std=gnu17 -O2 -Wall -Wextra -Werror
.PHONY: c-check
c-check: deps
	@for file in Sources/CRunwayProcess/*.c Fuzz/C/*.c; do \
		$(C_CHECK_CC) $(C_CHECK_FLAGS) -ISources/CRunwayProcess/include -c -o /dev/null "$$file" || exit 1; \
	done
	@printf '#include "CRunwayProcess.h"\n' | \
		$(C_CHECK_CC) $(C_CHECK_FLAGS) -ISources/CRunwayProcess/include -x c -fsyntax-only -
	@printf '#include "shim.h"\n' | \
		$(C_CHECK_CC) $(C_CHECK_FLAGS) $$(pkg-config --cflags libuv) -ISources/CLibUV -x c -fsyntax-only -
	@echo "c-check: Sources/CRunwayProcess and Sources/CLibUV/shim.h compile without a warning ($(C_CHECK_CC))"

# The tree against the module table of Docs/Architecture.md (Scripts/check-architecture.py): every import of a
# Sources/ or Examples/ folder is one its row allows, no Swift, C or header file is over 300 lines, no test file,
# type or suite is named after a review, pass, issue or regression, and Runway with RunwayCore show an embedder at
# most 40 public types. `--self-test` first: the script must fail on a tree that breaks each rule. Under a second.
.PHONY: arch-check
arch-check:
	python3 Scripts/check-architecture.py --self-test
	python3 Scripts/check-architecture.py

# README.md's embedding example, unchanged, built by a package of its own in a temporary directory outside the
# repository that depends on Runway by path (Scripts/example-check.sh). Its build folder is .build-example: about a
# minute the first time on 2 cores, seconds after that (EXAMPLE_SCRATCH_PATH=fresh builds from nothing).
example-check: deps snippet-check
	SWIFT="$(SWIFT)" Scripts/example-check.sh
	$(MAKE) function-host-check

# The function host (Examples/FunctionHost, a package of its own on Hummingbird): one debug build of it and its tests,
# then its tests, serial (they start real functions and time their budgets). Its status page test runs headless
# Chromium (.ci/run installs Debian's `chromium`) and is skipped without it; the screenshot is kept in
# Examples/FunctionHost/.build/test-artefacts/. The first build compiles Hummingbird, swift-nio and Runway's modules
# once more (about 3 CPU-minutes: 6 minutes of real time on a busy 2-core machine), later ones take seconds; the
# tests about 10 s.
.PHONY: function-host-check
function-host-check: deps
	$(SWIFT) build --build-tests --package-path Examples/FunctionHost
	$(SWIFT) test --skip-build --no-parallel --package-path Examples/FunctionHost

# DocC documentation of the modules an embedder imports (Sources/Runway/Runway.docc, with the articles, and
# Sources/RunwayCore/RunwayCore.docc) with swift-docc-plugin: archives under .build/plugins/Swift-DocC/outputs/,
# published nowhere. DOCC_FLAGS goes to docc; `DOCC_FLAGS="--experimental-documentation-coverage
# --coverage-summary-level detailed"` lists the symbols without documentation.
docs: deps
	$(SWIFT) package --disable-sandbox generate-documentation --target Runway --target RunwayCore $(DOCC_FLAGS)

# The manual page runway(1), written from the commands' help by swift-argument-parser's GenerateManual plugin (it
# builds the package first, in debug unless MAN_CONFIGURATION=release): .build/man/man1/runway.1, read it with
# `man -M .build/man runway` or `man -l .build/man/man1/runway.1`. Generated, not committed. The blank lines the
# plugin copies from multi-paragraph help become `.Pp` (mdoc's paragraph break; a blank line makes man(1) print
# "mdoc warning: Empty input line" for each). Fails unless the page is there, documents the subcommands, and groff
# (where installed) reads it without a warning.
MAN_CONFIGURATION ?= debug
man: deps
	$(SWIFT) package --disable-sandbox generate-manual --configuration $(MAN_CONFIGURATION)
	mkdir -p .build/man/man1
	sed 's/^$$/.Pp/' .build/plugins/GenerateManual/outputs/RunwayCLI/runway.1 >.build/man/man1/runway.1
	@grep -q '^\.Dt RUNWAY 1' .build/man/man1/runway.1 && grep -q '^\.It Em completion' .build/man/man1/runway.1 \
		&& grep -q '^\.It Em status' .build/man/man1/runway.1 \
		|| { echo "make man: .build/man/man1/runway.1 is not the runway(1) page expected"; exit 1; }
	@if command -v groff >/dev/null 2>&1 && groff -mdoc -z -ww .build/man/man1/runway.1 2>&1 | grep .; then \
		echo "make man: groff warns about .build/man/man1/runway.1 (above)"; exit 1; fi
	@echo "wrote .build/man/man1/runway.1"

# `make docs` with DocC's coverage report, then fails on any public symbol of Runway or RunwayCore declared without
# a doc comment (file:line for each) and on any DocC warning (Scripts/check-doc-coverage.py). About 30 s after a
# build, a minute more the first time; not part of `make test` for that reason: .ci/run runs it after the tests.
docs-check: deps
	SWIFT="$(SWIFT)" python3 Scripts/check-doc-coverage.py

# Deploy/prometheus/ (Docs/Operations.md, "Alerting rules and dashboard"): promtool checks the alerting rules, runs
# their unit tests and checks the sample prometheus.yml, the Grafana dashboard must be a dashboard whose queries
# promtool parses, and every metric name the rules and the dashboard use must be in a real scrape of `runway run`
# (MetricsPerApp all) on a scratch configuration (Scripts/check-prometheus.py, after its --self-test). Needs
# promtool (Debian's `prometheus`) and PyYAML; builds `runway` first. A few seconds after the build.
.PHONY: prometheus-check
prometheus-check: deps
	python3 Scripts/check-prometheus.py --self-test
	$(SWIFT) build --product runway
	python3 Scripts/check-prometheus.py "$$($(SWIFT) build --show-bin-path)/runway"

# `make lint` (about 2 s), the README snippet and rule-id checks, `make c-check`, `make arch-check` and
# `make example-check` (a few minutes on a new clone, most of it the function host's first build) first, so that the
# test runner's summary is the last thing printed. Serial: the real-loop tests run delegate calls on the shared
# cooperative pool, and CPU-heavy property tests in parallel could delay them past their (short) budgets. The whole
# suite takes about 4 minutes of real time (about 930 tests, most of it real daemons and children).
test: deps lint snippet-check refs-check c-check arch-check example-check prometheus-check
	@if ! command -v tmux >/dev/null 2>&1; then echo "note: tmux is not installed; the terminal tests of runway status will be skipped (.ci/run installs it)"; fi
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

# The daemon as a service (Docs/Deployment.md): the `runway` binary (a release build, unless RUNWAY_BINARY names one
# already built), the systemd unit with this PREFIX's paths, and a sample Runway.plist with an empty Apps/ when
# SYSCONFDIR/runway has none (an existing configuration is never overwritten). DESTDIR stages it all under another
# root for packaging; the paths written into the unit stay those without DESTDIR. The manual page goes to MANDIR/man1
# when `make man` has written it.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# /etc for PREFIX=/usr (the FHS place), else PREFIX/etc.
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
RUNWAY_BINARY ?=
# The build is a recipe line of its own: make runs a line that names $(MAKE) even under `make -n`, so the
# install line must not name it, or a dry run would install.
install:
	@if [ -z "$(RUNWAY_BINARY)" ]; then $(MAKE) deps && $(SWIFT) build -c release --product runway; fi
	@binary="$(RUNWAY_BINARY)"; \
	if [ -z "$$binary" ]; then binary="$$($(SWIFT) build -c release --show-bin-path)/runway"; fi; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSCONFDIR)/runway" && \
	install -m 0755 "$$binary" "$(DESTDIR)$(BINDIR)/runway" && \
	sed -e 's|/usr/local/bin/runway|$(BINDIR)/runway|' -e 's|/usr/local/etc/runway|$(SYSCONFDIR)/runway|' \
		Deploy/systemd/runway.service > "$(DESTDIR)$(UNITDIR)/runway.service" && \
	chmod 0644 "$(DESTDIR)$(UNITDIR)/runway.service" && \
	if [ ! -e "$(DESTDIR)$(SYSCONFDIR)/runway/Runway.plist" ]; then \
		install -m 0644 Deploy/Runway.plist "$(DESTDIR)$(SYSCONFDIR)/runway/Runway.plist"; \
	fi && \
	install -d "$(DESTDIR)$(SYSCONFDIR)/runway/Apps" && \
	if [ -f .build/man/man1/runway.1 ]; then \
		install -d "$(DESTDIR)$(MANDIR)/man1" && install -m 0644 .build/man/man1/runway.1 "$(DESTDIR)$(MANDIR)/man1/runway.1"; \
	fi && \
	echo "installed $(DESTDIR)$(BINDIR)/runway, $(DESTDIR)$(UNITDIR)/runway.service, $(DESTDIR)$(SYSCONFDIR)/runway/"
# The floor under Runway's process lifecycle: Benchmarks/Probes/lifecycle.c, the whole lifecycle of PROBE_CHILDREN
# `sleep` children on raw libuv (spawn, suspend + confirm, resume + confirm, terminate + reap), PROBE_ROUNDS rounds,
# one JSON line per round in milliseconds. PROBE_MODE=freezer uses one cgroup v2 per child instead of SIGSTOP/SIGCONT
# (root or a delegated subtree). gcc and libuv through pkg-config; the binary goes to .build/probes/.
# PROBE_SPAWN=runway starts the children with Runway's own runway_spawn (CRunwayProcess compiled in: the
# same-mechanism floor), posix_spawn with glibc's; libuv (uv_spawn, a fork) is the default. PROBE_MODE=signal-rules
# and signal-least add the per-app work of Runway's rules (Benchmarks/README.md); signal-least needs
# PROBE_SPAWN=runway or posix_spawn.
PROBE_CHILDREN ?= 200
PROBE_MODE ?= signal
PROBE_ROUNDS ?= 3
PROBE_SPAWN ?= libuv
PROBE_C_SOURCES = Benchmarks/Probes/lifecycle.c Benchmarks/Probes/lifecycle_spawn.c \
	Benchmarks/Probes/lifecycle_clock.c Benchmarks/Probes/lifecycle_rules.c \
	$(addprefix Sources/CRunwayProcess/,spawn.c spawn_child.c spawn_limits.c spawn_slots.c spawn_vm.c process.c \
	procstat.c)
.PHONY: probe bench-check
probe: deps
	mkdir -p .build/probes
	gcc -std=gnu17 -O2 -Wall -Wextra -o .build/probes/lifecycle -IBenchmarks/Probes -ISources/CRunwayProcess/include \
		$(PROBE_C_SOURCES) $$(pkg-config --cflags --libs libuv)
	.build/probes/lifecycle $(PROBE_CHILDREN) $(PROBE_MODE) $(PROBE_ROUNDS) $(PROBE_SPAWN)

# package-benchmark's check of every benchmark in Benchmarks/ against the p90s recorded in Benchmarks/Thresholds/,
# within the tolerances of Benchmarks/Benchmarks/DeadlineBenchmarks/Benchmarks.swift (`checkTolerances`); fails
# naming each metric worse than its threshold. Builds the Benchmarks package in release first: about 6 minutes the
# first time on 2 cores, then the run takes 30 to 40 s (Benchmarks/README.md, "Names and thresholds").
bench-check: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark thresholds check

# The daemon at fleet scale (Benchmarks/Scripts/bench_scale.py, Docs/Benchmarking.md "Fleet scale"): N generated
# `sleep` apps with RunAtLoad under the release `runway`; prints validate, start, status, /metrics, all-active, idle
# and stop figures as a table and JSON. N is one count or a comma-separated list (1000,10000). Python 3, stdlib.
N ?= 1000
.PHONY: bench-scale
bench-scale: deps
	$(SWIFT) build -c release --product runway
	python3 Benchmarks/Scripts/bench_scale.py --apps $(N) $(if $(RUNNING),--running $(RUNNING)) \
		--runway "$$($(SWIFT) build -c release --show-bin-path)/runway"

# Summon -> active for a suspended app, a purged app whose launch restores its state, and a cold launch, medians
# side by side from one run of the release daemon with the Python sample app (Benchmarks/Scripts/restore_bench.py;
# ROUNDS each, default 20). Quote the load it prints.
ROUNDS ?= 20
.PHONY: bench-restore
bench-restore: deps
	$(SWIFT) build -c release --product runway
	python3 Benchmarks/Scripts/restore_bench.py --rounds $(ROUNDS) --runway "$$($(SWIFT) build -c release --show-bin-path)/runway"

# The function host (Examples/FunctionHost, a package of its own: the first build takes minutes) under the seeded
# load generator: Scripts/loadgen.py starts the host (debug build) with FUNCTION_COUNT functions made from
# functions.json, sends FUNCTION_REQUESTS requests over FUNCTION_ROUNDS runs of the host, checks every answer,
# prints the latency of the warm, thawed, restored and cold requests side by side and the CPU the functions used
# while frozen, and stops the host. Exits 1 when an answer was wrong. The figures go to .build/function-host-demo.json.
FUNCTION_SEED ?= 1
FUNCTION_REQUESTS ?= 240
FUNCTION_COUNT ?= 8
FUNCTION_ROUNDS ?= 3
.PHONY: function-host-demo function-samples-check
function-host-demo: deps
	cd Examples/FunctionHost && $(SWIFT) build
	cd Examples/FunctionHost && python3 Scripts/loadgen.py --host .build/debug/FunctionHost --config functions.json \
		--seed $(FUNCTION_SEED) --requests $(FUNCTION_REQUESTS) --functions $(FUNCTION_COUNT) \
		--rounds $(FUNCTION_ROUNDS) --json .build/function-host-demo.json

# Each sample function of the function host on its own, under a runway daemon, over its Unix socket
# (Examples/FunctionHost/Scripts/function_check.py): launch, count, echo, waitUntil work, freeze, purge and restore,
# work stopped at the expiration warning, work killed at the deadline.
function-samples-check: build
	cd Examples/FunctionHost && $(SWIFT) build --product SwiftFunction
	python3 Examples/FunctionHost/Scripts/function_check.py "$$($(SWIFT) build --show-bin-path)/runway" \
		Examples/FunctionHost/Functions/python_function.py
	python3 Examples/FunctionHost/Scripts/function_check.py "$$($(SWIFT) build --show-bin-path)/runway" \
		"$$(cd Examples/FunctionHost && $(SWIFT) build --show-bin-path)/SwiftFunction"

clean:
	rm -rf .build .build-example

# Instructions per begin+end pair and per expiry at 100,000 outstanding tasks, counted by callgrind
# (Benchmarks/Scripts/instructions.py on the CoreInstructions executable; Benchmarks/README.md). Needs valgrind;
# builds only RunwayCore and that executable in release (about a minute). Not part of `make test`.
.PHONY: instructions
instructions: deps
	cd Benchmarks && $(SWIFT) build -c release -j 2 --product CoreInstructions
	cd Benchmarks && python3 Scripts/instructions.py

# The libFuzzer targets of Fuzz/ (Docs/Testing.md, "Fuzzing"): the control and app protocol decoders with their line
# framer, the config files' reader, and the /proc and cgroup.events parsers, each run for FUZZ_SECONDS from its seed
# corpus (Scripts/fuzz.sh). FUZZ_TARGETS picks some. The first build (.build/fuzz: debug, ASan, coverage) compiles
# the package's modules once more, as long as `make test`'s build; later ones only what changed. Exits 1 on a
# finding, with its input in .build/fuzz/artifacts/NAME/.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= control-request app-protocol config-plist cgroup-events proc-files
.PHONY: fuzz
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" SWIFT="$(SWIFT)" Scripts/fuzz.sh

# The test suite under the sanitizers (Docs/Testing.md, "Sanitizers"), each configuration in a build folder of its
# own; both must pass. sanitize-address: AddressSanitizer with LeakSanitizer on the Swift and C, UndefinedBehavior-
# Sanitizer on the C (swiftc has no -sanitize=undefined on Linux; Swift traps on overflow and bad unwraps itself);
# the objects alive at exit that are not leaks are named in Scripts/Sanitizers/lsan.supp. sanitize-thread:
# ThreadSanitizer, with RUNWAY_TSAN_LOCK so that `RunwayLock` is a pthread mutex TSan sees instead of Mutex. The
# options reach the `runway` daemons and apps the tests start through the environment, so a child's report fails
# its test too. Serial like `make test`.
SANITIZE_ADDRESS_FLAGS ?= --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	--scratch-path .build-asan
SANITIZE_THREAD_FLAGS ?= --sanitize=thread -Xswiftc -DRUNWAY_TSAN_LOCK --scratch-path .build-tsan
SANITIZE_FILTER ?=
.PHONY: sanitize sanitize-address sanitize-thread
sanitize: sanitize-address sanitize-thread

sanitize-address: deps
	$(SWIFT) build --build-tests $(SANITIZE_ADDRESS_FLAGS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/Scripts/Sanitizers/lsan.supp:print_suppressions=0 \
		$(SWIFT) test --skip-build --no-parallel $(SANITIZE_ADDRESS_FLAGS) \
		$(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)')

sanitize-thread: deps
	$(SWIFT) build --build-tests $(SANITIZE_THREAD_FLAGS)
	$(SWIFT) test --skip-build --no-parallel $(SANITIZE_THREAD_FLAGS) \
		$(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)')
