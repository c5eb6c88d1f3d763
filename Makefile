# Backbeat: `make test` and `make demo` are all a fresh machine needs.

APT_PACKAGES := pkg-config libopenal-dev libvorbis-dev libsndfile1-dev libsamplerate0-dev \
                libstb-dev libebur128-dev libzip-dev zip vorbis-tools sox \
                libdbus-1-dev dbus-daemon mpv mpv-mpris playerctl strace \
                pulseaudio pulseaudio-utils tmux opus-tools mpg123 lame \
                chromium chromium-driver python3-selenium libembree-dev
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SWIFT ?= swift

.PHONY: all deps build release test test-tsan test-monitor-web hello-game snippets docs sanitize fuzz fuzz-build demo bench bench-json bench-compare assets clean format lint bench-micro bench-micro-baseline

all: build

# Installs whichever system packages are missing (apt-get, once).
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

# Formats every Swift file by .swift-format (120 columns, 4 spaces, and the
# rules it turns on), in place. Hidden folders (.build) are left alone.
FORMAT_PATHS := Package.swift Sources Tests Demo Fuzz Benchmarks
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

# Fails on any file `make format` would change or any rule it cannot fix by
# itself. CI runs it before the tests.
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

release: deps
	$(SWIFT) build -c release

# Tests run one at a time (--no-parallel). In parallel, tests that compute for
# a long while (offline renders, the demo's script) held both of the machine's
# cooperative threads, and a test that talks to a real-time peer (mpv on a
# private bus; later a sound server) waited 50 s or more for its turn while the
# peer played on without it. One at a time costs 20 s under the sanitizer.
#
# The thread-sanitizer pass is a second build of everything, and the two
# passes took 23 minutes on CI's 2 cores; make test stays the quick check a
# contributor runs (under 15 minutes), and CI (.ci/run) runs make test-tsan
# after it, so nothing lands that the sanitizer would refuse.
test: deps
	$(MAKE) snippets
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	$(MAKE) test-monitor-web
	$(MAKE) hello-game

# `backbeat monitor PID --web` as a person uses it: the drum pad on a private
# sound server, the page in headless Chromium (Debian's chromium, chromedriver
# and selenium, hence /usr/bin/python3). A pad hit in the voice timeline, a
# meter moving, the music slider to 0 heard as a 40 dB drop, the game's exit
# shown; the page's screenshot goes to out/monitor.png (MONITOR_DOCS=--docs
# also copies it to Docs/images/monitor.png). About 20 s, so make test runs it.
MONITOR_DOCS ?=
test-monitor-web: deps
	$(SWIFT) build --product drumpad
	$(SWIFT) build --product backbeat
	/usr/bin/python3 Scripts/monitor-browser-test.py $(MONITOR_DOCS)

# A game that links only the Backbeat product (Demo/HelloGame, a package of
# its own): it must link neither libdbus nor libsqlite3, and the WAV it
# renders (music with a snare over it) must not be silent. Nor Embree: the ray
# tracer is BackbeatAcoustics', a product of its own.
HELLO_GAME := Demo/HelloGame/.build/debug/HelloGame
hello-game: deps
	cd Demo/HelloGame && $(SWIFT) build
	@if ldd $(HELLO_GAME) | grep -E "libdbus|libsqlite3|libembree"; then \
		echo "HelloGame links libdbus, libsqlite3 or libembree: the Backbeat product must not"; exit 1; fi
	@mkdir -p out && rm -f out/hello-game.wav
	$(HELLO_GAME) out/hello-game.wav
	@rms=$$(sox out/hello-game.wav -n stat 2>&1 | awk '/^RMS +amplitude/ {print $$3}'); \
	if awk -v r="$$rms" 'BEGIN { exit !(r > 0.01) }'; then echo "HelloGame rendered out/hello-game.wav (RMS $$rms)"; \
	else echo "HelloGame rendered silence (RMS $$rms)"; exit 1; fi

# Every ```swift block of README.md and of the DocC articles, type-checked:
# Scripts/snippets.py writes them as the DocSnippets target's sources (in
# Tests/Snippets/Generated, not committed), and evaluates a block that is a
# package manifest with `swift package dump-package`.
snippets: deps
	python3 Scripts/snippets.py --manifests
	$(SWIFT) build --target DocSnippets

# The DocC catalog (Sources/Backbeat/Backbeat.docc) with the API it documents,
# into .build/docs. A link that does not resolve, to an article or a symbol,
# is a warning, and --warnings-as-errors makes it fail. Backbeat only
# re-exports the modules that hold the API, so its symbol graph, with theirs
# in it, comes from Scripts/docs-symbol-graph.sh (see there why).
DOCS_DIR := .build/docs
docs: deps
	$(SWIFT) build --target Backbeat
	Scripts/docs-symbol-graph.sh $(DOCS_DIR)/symbol-graphs
	$(SWIFT) package --disable-sandbox --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
		--target Backbeat --warnings-as-errors --output-path $(DOCS_DIR)/Backbeat.doccarchive \
		--additional-symbol-graph-dir $(DOCS_DIR)/symbol-graphs

# The suite under the thread sanitizer, Desktop suites included (its own
# scratch path); CI runs it after make test. TSAN_FILTER narrows it, for a
# quicker look at one suite. TSAN_SKIP leaves out, by default, the suites that
# only run the command-line tool and the demo's scripted renders as child
# processes: their engine code is the engine the in-process suites
# race-check, the plain pass runs them, and under the sanitizer they take half
# of the pass's time. The demo's real-time device, tmux and MPRIS suites stay
# in. `make sanitize` runs all.
TSAN_FILTER ?= .
TSAN_CHILD_SUITES := DrumpadDemoTests PlayCommandTests ConvertCommandTests RecordCommandTests DeviceSuiteTests \
	ReplayCommandTests BankCommandTests CommandLineTests InfoCommandTests MonitorCommandTests \
	MonitorWebCommandTests ChildPeakMemoryTests
empty :=
space := $(empty) $(empty)
TSAN_SKIP ?= $(subst $(space),|,$(strip $(TSAN_CHILD_SUITES)))
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=suppressions=$(CURDIR)/Tests/tsan.supp \
		$(SWIFT) test --skip-build --no-parallel --sanitize=thread --scratch-path .build-tsan \
		--filter '$(TSAN_FILTER)' $(if $(TSAN_SKIP),--skip '$(TSAN_SKIP)')

# The whole test suite under the thread sanitizer, then the address sanitizer.
sanitize: deps
	$(MAKE) test-tsan TSAN_FILTER=. TSAN_SKIP=
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --no-parallel --sanitize=address --scratch-path .build-asan

# Micro-benchmarks of the hot paths (play(), one update tick, MediaTime, a
# library query) and the same operations in raw OpenAL, with malloc counts, in
# Benchmarks/, a package of its own (ordo-one/benchmark with its malloc
# interposer): neither make test nor a game builds it. Prints the figures, then
# checks them against the committed baseline (Benchmarks/.benchmarkBaselines):
# fails on any extra allocation or a median 25 % slower; an improvement passes.
bench-micro: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --format markdown --no-progress
	cd Benchmarks && { $(SWIFT) package --disable-sandbox benchmark baseline check default --no-progress; \
		rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 4 ]; }

# Records this tree's micro-benchmark figures as the baseline bench-micro checks against.
bench-micro-baseline: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark baseline update default --no-progress

# libFuzzer: each fuzzer runs FUZZ_TIME seconds from its committed seeds in
# (one only: make fuzz FUZZERS=FuzzLibraryScan)
# Fuzz/Corpus (new inputs go to .build-fuzz/corpus; crashes to .build-fuzz/artifacts).
FUZZERS := FuzzVorbisComments FuzzPictureBlock FuzzOggAsset FuzzWAVAsset FuzzArchive FuzzPlaylist FuzzDrumpadCommand \
	FuzzAudioAsset FuzzSoundEffect FuzzLibraryScan FuzzMPRISDispatch FuzzCapture FuzzAcousticsOBJ
FUZZ_TIME ?= 60
FUZZ_BUILD := BACKBEAT_FUZZ=1 $(SWIFT) build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
fuzz-build: deps
	@set -e; for f in $(FUZZERS); do $(FUZZ_BUILD) --product $$f 2>&1 | grep -v "Cannot export local symbol"; done

fuzz: fuzz-build
	@set -e; mkdir -p .build-fuzz/artifacts; for f in $(FUZZERS); do \
		mkdir -p .build-fuzz/corpus/$$f; echo "== $$f: $(FUZZ_TIME) s"; \
		SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp:print_suppressions=0 \
		.build-fuzz/debug/$$f -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
			-artifact_prefix=.build-fuzz/artifacts/$$f- .build-fuzz/corpus/$$f Fuzz/Corpus/$$f 2>&1 \
			| grep -E "^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|ERROR|SUMMARY|Test unit written"; \
		status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] || { echo "$$f failed (status $$status)"; exit 1; }; \
	done

demo: release
	.build/release/drumpad --script Demo/demo.script

bench: release
	.build/release/backbeat bench

# Every suite in one run, as JSON (commit, OpenAL, CPU, date, then each figure
# with its min and max over rounds): the file the README's table comes from.
# Takes about 25 minutes (stream and soak run 10 minutes each in real time);
# run it on a quiet machine. `backbeat bench show $(BENCH_JSON)` prints it.
BENCH_JSON ?= Docs/bench/latest.json
bench-json: release
	@mkdir -p $(dir $(BENCH_JSON))
	.build/release/backbeat bench --json > $(BENCH_JSON).partial && mv $(BENCH_JSON).partial $(BENCH_JSON)

# This tree against the committed figures: BENCH_SUITES (default all) to
# .build/bench-new.json, then each figure's change, noise marked.
BENCH_SUITES ?=
bench-compare: release
	.build/release/backbeat bench $(BENCH_SUITES) --json > .build/bench-new.json
	.build/release/backbeat bench compare $(BENCH_JSON) .build/bench-new.json

# Regenerates the demo's drums, music library and level music (deterministic; see Assets/README.md).
assets: deps
	python3 Assets/generate.py

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzz out Demo/HelloGame/.build
