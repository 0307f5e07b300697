#!/usr/bin/env bash
# Builds libllama (+ ggml) as shared libraries from the llama.cpp tree vendored in the pinned
# llama-cpp-python sdist, with Debian's cmake, and installs them with their headers into OUT.
# Idempotent: a finished build (stamp = sdist SHA-256, this script, the instruction sets) is kept.
# usage: build-llama.sh SDIST OUT [native|portable]
#
# Which instructions: never GGML_NATIVE. -march=native turns on AMX on Intel Xeons that have it, and ggml's
# AMX kernels fault there with SIGILL (seen on a Xeon whose kernel grants AMX), so AMX is always off. The
# other extensions are named one by one from what this CPU reports: AVX2/FMA/F16C/BMI2 (the baseline every
# supported machine has), plus AVX-512, VNNI and BF16 where present ("native", the default: a note's title
# took 14 s instead of 22 s with them). "portable" is the AVX2 baseline alone; setup falls back to it when
# the native build fails its smoke test. A cache copied to an older CPU needs `scripts/setup.sh` again: setup
# records the instruction sets in the stamp and rebuilds when they differ.
set -euo pipefail
SDIST=$1
OUT=$2
MODE=${3:-native}

has() { grep -q -w "$1" /proc/cpuinfo; }
for f in avx2 fma f16c bmi2; do
  has "$f" || { echo "this CPU lacks $f: Earshot needs an x86-64 CPU with AVX2, FMA, F16C and BMI2" >&2; exit 1; }
done
ISA=(-DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
if [ "$MODE" = native ]; then
  if has avx512f && has avx512bw && has avx512vl && has avx512dq && has avx512cd; then
    ISA+=(-DGGML_AVX512=ON)
    has avx512_vnni && ISA+=(-DGGML_AVX512_VNNI=ON)
    has avx512_bf16 && ISA+=(-DGGML_AVX512_BF16=ON)
    has avx512vbmi && ISA+=(-DGGML_AVX512_VBMI=ON)
  fi
  has avx_vnni && ISA+=(-DGGML_AVX_VNNI=ON)
fi
ISA+=(-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)

want="$(sha256sum "$SDIST" | cut -d" " -f1) $(sha256sum "$0" | cut -d" " -f1) $MODE ${ISA[*]}"
[ "$(cat "$OUT/.earshot-stamp" 2>/dev/null)" = "$want" ] && exit 0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar xzf "$SDIST" -C "$WORK"
SRC=$(echo "$WORK"/llama_cpp_python-*/vendor/llama.cpp)
echo "    ggml instruction sets ($MODE): ${ISA[*]}"
# only the library: no tools, examples, tests or server. -mno-amx-* as well, in case a compiler default or a
# future ggml option would turn AMX on behind the options above (tests/objdump check the result).
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
  -DLLAMA_BUILD_COMMON=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF "${ISA[@]}" \
  -DCMAKE_C_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" -DCMAKE_CXX_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" \
  -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_PREFIX="$OUT.tmp" > "$WORK/configure.log" 2>&1
cmake --build "$WORK/build" --target llama -j "$(nproc)" > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log" >&2; exit 1; }
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp/lib" "$OUT.tmp/include"
find "$WORK/build" -name 'lib*.so*' -exec cp -a {} "$OUT.tmp/lib/" \;
cp "$SRC/include/llama.h" "$SRC"/ggml/include/*.h "$OUT.tmp/include/"
echo "$want" > "$OUT.tmp/.earshot-stamp"
echo "$MODE ${ISA[*]}" > "$OUT.tmp/instruction-sets.txt"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
