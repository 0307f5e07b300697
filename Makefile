# Earshot: every target installs what it needs first (scripts/setup.sh is idempotent and quick when done).
EARSHOT_HOME ?= $(HOME)/.cache/earshot
export EARSHOT_HOME
SWIFT ?= swift

.PHONY: setup build demo test bench clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build -c release

# The main job on a built-in default: synthesise a passage, transcribe it, report accuracy and speed.
demo: build
	.build/release/earshot demo

test: setup
	$(SWIFT) test

# Earshot vs faster-whisper on ../shared/data/speech; writes bench/results/ and prints a BENCHMARKS.md table.
bench: build
	scripts/bench.sh

clean:
	rm -rf .build
