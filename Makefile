# Earshot: every target installs what it needs first (scripts/setup.sh is idempotent and quick when done).
EARSHOT_HOME ?= $(HOME)/.cache/earshot
export EARSHOT_HOME
# where setup writes the pkg-config files of the native runtimes (sherpa-onnx, llama.cpp) that SwiftPM reads
export PKG_CONFIG_PATH := $(EARSHOT_HOME)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
SWIFT ?= swift
# One optimised build serves the CLI, the benchmarks and the tests (testing enabled, so @testable imports work):
# the suite's front-ends, training and encoders ran 2-11x faster than in a debug build (ESC-10 5-fold 152 -> 13 s).
RELEASE = -c release -Xswiftc -enable-testing
# `swift test` adds a second -enable-testing of its own to every library module unless told not to; the command lines
# then differ from setup's `swift build` and the whole library was compiled twice (329 s of the Swift lane's build in
# the last CI run). Without it the modules setup built are reused; @testable imports still work (-Xswiftc above).
TEST_FLAGS = $(RELEASE) --disable-testable-imports

.PHONY: setup setup-build build demo serve test tests-build swift-part-run no-data-run check client-tests ray-tests examples tsan tsan-build tsan-run asan asan-build asan-quick-build asan-run asan-quick-run fuzz bench avx2-check clean

# setup also builds the CLI to check every runtime on this CPU (earshot doctor, each network in a child process;
# llama.cpp rebuilt in its portable form if it crashes) and to compute what needs Earshot's own code: the
# background voices' speaker vectors that enrolment trains against (cached; recomputed only when the speaker
# network changes).
setup:
	@scripts/setup.sh
	@$(MAKE) --no-print-directory setup-build

# setup's second half, once the runtimes and models are installed (make test runs it beside the sanitizer build)
setup-build:
	$(SWIFT) build $(RELEASE) --product earshot
	$(SWIFT) build $(RELEASE) --product earshot-language-runner
	scripts/check-runtimes.sh
	.build/release/earshot voice prepare

build: setup
	$(SWIFT) build $(RELEASE)

# The main job on a built-in default: synthesise a passage, transcribe it, report accuracy and speed.
demo: build
	.build/release/earshot demo

# Setup's installation, then the jobs two at a time (scripts/test-lanes.sh): setup's build and the Swift suite (stdbuf:
# its output reaches the log line by line, so a run that is stopped shows the test it was in), and beside them the
# sanitizer suites, the fuzzers, the Examples package and the client and Ray tests. Each step's wall and CPU seconds
# are printed at the end (scripts/timed-step.sh). Three busy workers (the suite's two halves each on a
# worker of its own) were no faster (BENCHMARKS.md): the two cores are busy throughout, so only less work shortens it;
# only the client tests, which mostly wait, run beside them.
# The Swift suite leaves out the tests the thread-sanitizer job runs: that build is optimised with testing enabled as
# this one is, so they run once, the same assertions under the sanitizer, instead of twice.
# It also leaves out SWIFT_PART, a job at the end of the workers' queue that whichever worker is free first runs in
# the same build: the suite's worker ended ~60 s after the other, which then had nothing left to take.
STEP = scripts/timed-step.sh
# the tests start many language-model hosts (one per test's EARSHOT_HOME): each leaves 20 s after its last client
test: export EARSHOT_LANGUAGE_KEEP_ALIVE ?= 20
# and every llama.cpp context computes on one thread: two jobs keep both cores busy, where llama.cpp's spinning
# threads crawl
test: export EARSHOT_LANGUAGE_THREADS ?= 1
test:
	@$(STEP) --reset
	@$(STEP) install scripts/setup.sh
	@scripts/test-lanes.sh stdbuf -oL -eL $(SWIFT) test $(TEST_FLAGS) --skip-build --skip '$(TSAN_TESTS)|$(SWIFT_PART)'
	@$(STEP) --summary
SWIFT_PART = SharedWhisperTests|DiarizationTests
# the test targets, in the build setup made (the same command lines as `swift test $(TEST_FLAGS)`: nothing rebuilt)
tests-build:
	$(SWIFT) build $(RELEASE) --build-tests
# --ignore-lock: SwiftPM lets one command at a time use a build folder, so these jobs waited for the Swift suite to end
# before starting (its log said so), however free the other core was; with --skip-build they only read the built tests.
swift-part-run:
	$(SWIFT) test $(TEST_FLAGS) --skip-build --ignore-lock --filter '$(SWIFT_PART)'
# The tests that read ../shared/data (scripts/data-dependent-tests.sh finds them) with the data pointed at a folder that
# does not exist, as on a clone alone: each runs its fallback or skips, and must pass either way.
# Where the data is absent already (a clone alone), the suite itself ran them so: nothing to do twice.
no-data-run:
	@if [ -d "$${EARSHOT_DATA:-$(CURDIR)/../shared/data}" ]; then \
	  EARSHOT_DATA=$(CURDIR)/.build/no-shared-data $(SWIFT) test $(TEST_FLAGS) --skip-build --ignore-lock --filter "$$(scripts/data-dependent-tests.sh)"; \
	else echo "no shared data here: the Swift suite already ran these tests without it"; fi

# The inner loop while changing code (its time: BENCHMARKS.md): every test that takes under ~3 s, in the same optimised
# build. Not a substitute for `make test`: the accuracy guards, float references, live, server and concurrency
# tests are left out.
SLOW_TESTS = WhisperFloatReferenceTests|LanguageFloatReferenceTests|CommandLineTests.testDoctorCompares|ReplyEndTests.testAStopped|RealtimeAPITests|SlowClientTests|LiveTurnsTests|BatchCommandTests|ConnectionLoadTests|AccuracyGuardTests|MicrophoneCaptureTests|SoundVoiceAPITests|ConcurrentUseTests|NotesAPITests|NotesPipelineTests|VoiceTests|VoiceEnrolConcurrencyTests|SharedWhisperTests|SpeakerEncoderFloatReferenceTests|YAMNetFloatReferenceTests|LiveTranscriberTests|FileTranscriberTests|SpeechSegmenterTests.testBlocks|LanguageRunnerTests|DiarizationTests.testEnrolled|DiarizationTests.testLibriSpeech|DiarizeCommandTests.testTranscripts|DiarizeCommandTests.testLive
check: setup
	$(SWIFT) test $(TEST_FLAGS) --skip '$(SLOW_TESTS)'

# The web app and its API on http://127.0.0.1:8787 (Ctrl-C stops).
serve: build
	.build/release/earshot serve

# The server as clients see it: the official openai Python client, and the pages in headless chromium with a
# fake microphone (screenshots in .build/client-tests/). Uses the release build.
client-tests: setup
	scripts/run-client-tests.sh

# earshot_ray (integrations/ray) on a two-node Ray cluster started on this machine: every file once, the CLI's
# transcripts, killed workers and actors, a file that kills its worker twice, a resumed run.
ray-tests: setup
	scripts/run-ray-tests.sh

# Examples/ is a separate package that depends on Earshot by path: build it and run each program (the
# docs/ guides show their code, checked here too).
examples: setup
	scripts/run-examples.sh

# The library's concurrency under the thread sanitizer: each capability driven from 8 tasks at once, the live
# streams, the core, the notes store and the HTTP server (a separate build folder; any data race fails the run).
# Optimised, as the program ships: the suite ran in 216 s instead of 353 s in a debug build, for 47 s more building.
TSAN_TESTS = ConcurrentUseTests|EarshotCoreTests|LiveTranscriberTests|NotesStoreTests|AccessPolicyTests|LiveAPITests|ConnectionLoadTests|WorkQueueTests|RealtimeAPITests.testStopping|RealtimeAPITests.testBroken|RealtimeAPITests.testTwoSessions|SlowClientTests
tsan: setup tsan-build tsan-run
# The test bundle and the language runner its notes tests start, not the programs that no sanitizer test runs
# (compiling `earshot` and `earshot-bench` under TSan took 17 CPU-seconds)
tsan-build:
	$(SWIFT) build $(RELEASE) --sanitize=thread --build-path .build/tsan --product EarshotPackageTests
	$(SWIFT) build $(RELEASE) --sanitize=thread --build-path .build/tsan --product earshot-language-runner
tsan-run:
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test $(TEST_FLAGS) --skip-build --sanitize=thread --build-path .build/tsan --filter '$(TSAN_TESTS)'

# The suite under AddressSanitizer (its own build folder). `make asan` runs every test (slow); make test runs the
# loaders, stores and training math under it. Of the segmenter's tests it leaves out the twelve minutes of audio read
# in blocks (53 s under ASan; the same test runs in the optimised suite, and the debug build checks Swift's bounds).
ASAN_QUICK = EarshotCoreTests|NotesStoreTests|TrainingTests|ModelCatalogueTests|WordErrorRateTests|SpeechSegmenterTests
ASAN_QUICK_SKIP = SpeechSegmenterTests.testBlocks
ASAN_TESTS = .
ASAN_SKIP =
asan: setup asan-build asan-run
asan-build:
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
# make test's part: the quick list needs only the test bundle (no test in it runs a program)
asan-quick-build:
	$(SWIFT) build --sanitize=address --build-path .build/asan --product EarshotPackageTests
# make test's part: the quick list
asan-quick-run: ASAN_TESTS = $(ASAN_QUICK)
asan-quick-run: ASAN_SKIP = $(ASAN_QUICK_SKIP)
asan-quick-run: asan-run
asan-run:
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --build-path .build/asan --filter '$(ASAN_TESTS)' $(if $(ASAN_SKIP),--skip '$(ASAN_SKIP)')

# libFuzzer on the loaders of every file Earshot reads (Fuzz/, docs/fuzzing.md): 10^6 executions per target, after
# replaying Fuzz/Regressions/. make test runs a short pass (20,000 each).
FUZZ_RUNS = 1000000
fuzz: setup
	scripts/fuzz.sh --runs $(FUZZ_RUNS)

# Earshot vs faster-whisper on ../shared/data/speech; writes bench/results/ and prints a BENCHMARKS.md table.
bench: build
	scripts/bench.sh

# Every quantised network natively and on valgrind's simulated AVX2 CPU (no AVX-512/VNNI) vs its float
# reference: shows the shipped models do not depend on the CPU's int8 kernels. Slow (minutes).
avx2-check: setup
	$(EARSHOT_HOME)/venv/bin/python bench/avx2_check.py

clean:
	rm -rf .build
