#!/usr/bin/env bash
# Installs the native libraries that setup unpacked or built (sherpa-onnx + ONNX Runtime, llama.cpp) so that
# any Swift package can link them without flags: pkg-config files in $EARSHOT_HOME/pkgconfig give the
# include and library folders, and each library's soname is its own absolute path, as a macOS install name
# is, so a program linked against it records that path and finds it at run time without an rpath or
# LD_LIBRARY_PATH (SwiftPM refuses rpath flags in packages used as dependencies).
# Idempotent (stamp = this script + inputs + EARSHOT_HOME). usage: install-native-libraries.sh EARSHOT_HOME
set -euo pipefail
HOME_DIR=$1
SHERPA_SRC="$HOME_DIR/sources/sherpa-onnx"
SHERPA="$HOME_DIR/runtime/sherpa-onnx"
LLAMA="$HOME_DIR/runtime/llama"
PC="$HOME_DIR/pkgconfig"
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

want="$(sha_of "$0") $(sha_of "$SHERPA_SRC/lib/libsherpa-onnx-c-api.so") $(sha_of "$SHERPA_SRC/lib/libonnxruntime.so") \
$(cat "$LLAMA/.earshot-stamp") $HOME_DIR"
[ "$(cat "$PC/.earshot-stamp" 2>/dev/null)" = "$want" ] && exit 0

# sherpa-onnx's C API finds ONNX Runtime beside it (its rpath is $ORIGIN)
rm -rf "$SHERPA.tmp" && mkdir -p "$SHERPA.tmp"
cp -r "$SHERPA_SRC/lib" "$SHERPA_SRC/include" "$SHERPA.tmp/"
for lib in libsherpa-onnx-c-api.so libonnxruntime.so; do
  patchelf --set-soname "$SHERPA/lib/$lib" "$SHERPA.tmp/lib/$lib"
done
rm -rf "$SHERPA" && mv "$SHERPA.tmp" "$SHERPA"

# libllama finds its ggml libraries beside it ($ORIGIN, set by build-llama.sh); programs link libllama only
real=$(readlink -f "$LLAMA/lib/libllama.so")
patchelf --set-soname "$LLAMA/lib/libllama.so" "$real"

rm -rf "$PC.tmp" && mkdir -p "$PC.tmp"
cat > "$PC.tmp/earshot-sherpa-onnx.pc" <<PCEOF
prefix=$SHERPA
Name: earshot-sherpa-onnx
Description: sherpa-onnx C API with the ONNX Runtime it ships, installed by Earshot's setup
Version: 1
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -lsherpa-onnx-c-api -lonnxruntime
PCEOF
cat > "$PC.tmp/earshot-llama.pc" <<PCEOF
prefix=$LLAMA
Name: earshot-llama
Description: llama.cpp (libllama and ggml), built by Earshot's setup
Version: 1
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -lllama
PCEOF
echo "$want" > "$PC.tmp/.earshot-stamp"
rm -rf "$PC" && mv "$PC.tmp" "$PC"
