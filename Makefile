# Earshot: every target installs what it needs first (scripts/setup.sh is idempotent and quick when done).
EARSHOT_HOME ?= $(HOME)/.cache/earshot
export EARSHOT_HOME
# where setup writes the pkg-config files of the native runtimes (sherpa-onnx, llama.cpp) that SwiftPM reads
export PKG_CONFIG_PATH := $(EARSHOT_HOME)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
SWIFT ?= swift

.PHONY: setup build demo test examples tsan bench avx2-check clean

# setup also builds the CLI to compute what needs Earshot's own code: the background voices' speaker
# vectors that enrolment trains against (cached; recomputed only when the speaker network changes).
setup:
	@scripts/setup.sh
	$(SWIFT) build -c release --product earshot
	.build/release/earshot voice prepare

build: setup
	$(SWIFT) build -c release

# The main job on a built-in default: synthesise a passage, transcribe it, report accuracy and speed.
demo: build
	.build/release/earshot demo

test: setup
	$(SWIFT) test
	scripts/run-examples.sh
	$(MAKE) --no-print-directory tsan

# Examples/ is a separate package that depends on Earshot by path: build it and run each program (the
# docs/ guides show their code, checked here too).
examples: setup
	scripts/run-examples.sh

# The library's concurrency under the thread sanitizer: each capability driven from 8 tasks at once, the live
# streams, the core and the notes store (a separate build folder; any data race fails the run).
TSAN_TESTS = ConcurrentUseTests|EarshotCoreTests|LiveTranscriberTests|NotesStoreTests
tsan: setup
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --build-path .build/tsan --filter '$(TSAN_TESTS)'

# Earshot vs faster-whisper on ../shared/data/speech; writes bench/results/ and prints a BENCHMARKS.md table.
bench: build
	scripts/bench.sh

# Every quantised network natively and on valgrind's simulated AVX2 CPU (no AVX-512/VNNI) vs its float
# reference: shows the shipped models do not depend on the CPU's int8 kernels. Slow (minutes).
avx2-check: setup
	$(EARSHOT_HOME)/venv/bin/python bench/avx2_check.py

clean:
	rm -rf .build
