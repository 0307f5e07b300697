#!/usr/bin/env bash
# Builds libllama (+ ggml) as shared libraries from the llama.cpp tree vendored in the pinned
# llama-cpp-python sdist, with Debian's cmake, and installs them with their headers into OUT.
# Idempotent: a finished build (stamp = sdist SHA-256) is kept. usage: build-llama.sh SDIST OUT
set -euo pipefail
SDIST=$1
OUT=$2
want="$(sha256sum "$SDIST" | cut -d" " -f1) $(sha256sum "$0" | cut -d" " -f1)"
[ "$(cat "$OUT/.earshot-stamp" 2>/dev/null)" = "$want" ] && exit 0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar xzf "$SDIST" -C "$WORK"
SRC=$(echo "$WORK"/llama_cpp_python-*/vendor/llama.cpp)
# only the library: no tools, examples, tests or server. Setup builds on the machine that runs it, so
# the CPU code is built for this CPU (AVX2/AVX-512 where present): the portable baseline took 22 s
# instead of 14 s for a note's title, summary and actions (BENCHMARKS.md). A cache copied to an older CPU
# needs a rebuild: delete runtime/llama and run setup again.
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
  -DLLAMA_BUILD_COMMON=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF \
  -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_PREFIX="$OUT.tmp" > "$WORK/configure.log" 2>&1
cmake --build "$WORK/build" --target llama -j "$(nproc)" > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log" >&2; exit 1; }
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp/lib" "$OUT.tmp/include"
find "$WORK/build" -name 'lib*.so*' -exec cp -a {} "$OUT.tmp/lib/" \;
cp "$SRC/include/llama.h" "$SRC"/ggml/include/*.h "$OUT.tmp/include/"
echo "$want" > "$OUT.tmp/.earshot-stamp"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
