#!/usr/bin/env python3
"""Convert a CTranslate2 Whisper model (model.bin v6, fp16) into the ONNX encoder/decoder pair Earshot decodes with.

Needs only numpy, onnx and onnxruntime (for int8 quantisation) -- no torch. Earshot's own decoding loop
(Sources/EarshotSpeech/Whisper) drives the decoder; the contract is described in docs/speech.md.

usage: convert_whisper.py CT2_DIR OUT_DIR NAME ENCODER_PRECISION DECODER_PRECISION
precisions: float, u8, s8, s8-paired, s8-paired-rows, s8-reduced, u8-asymmetric, dequantised (see PRECISIONS)
writes OUT_DIR/NAME-encoder.onnx, NAME-decoder.onnx, NAME-vocabulary.txt, NAME-whisper.json
"""
import base64
import json
import os
import re
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from integer_weights import int8_weights_as_uint8, int8_weights_pair_safe, symmetric_int8
from pair_safe_features import pair_safe_features
from row_scaled_inputs import row_scaled_inputs

OPSET = 17
CONTRIB = "com.microsoft"  # ONNX Runtime's own operators (the encoder's fused attention, GELU)
IR_VERSION = 8  # ORT 1.28 rejects onnx 1.19's default IR version
N_TEXT_CTX = 448
DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(path):
    """Parse a CTranslate2 model.bin (version 6) into {name: ndarray}."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    def string():
        nonlocal pos
        (n,) = take("H")
        s = data[pos:pos + n - 1].decode()
        pos += n
        return s

    (version,) = take("i")
    if version != 6:
        raise SystemExit(f"{path}: CTranslate2 model version {version}, expected 6")
    spec = string()
    if spec != "WhisperSpec":
        raise SystemExit(f"{path}: spec {spec!r} is not a Whisper model")
    take("i")  # spec revision
    (count,) = take("I")
    variables = {}
    for _ in range(count):
        name = string()
        (rank,) = take("B")
        dims = take("I" * rank)
        (dtype,) = take("B")
        (nbytes,) = take("I")
        array = np.frombuffer(data, DTYPES[dtype], nbytes // np.dtype(DTYPES[dtype]).itemsize, pos)
        variables[name] = array.reshape(dims)
        pos += nbytes
    return variables


class Graph:
    """A small builder over onnx.helper that names nodes and keeps weights as fp32 initializers."""

    def __init__(self, weights):
        self.w = weights
        self.nodes, self.inits, self.count = [], {}, 0

    def fresh(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def op(self, kind, inputs, hint=None, outputs=1, **attrs):
        names = [self.fresh(hint or kind) for _ in range(outputs)]
        # unique node names: the int8 quantiser derives its tensor names from them
        self.nodes.append(helper.make_node(kind, inputs, names, name=names[0] + "_node", **attrs))
        return names[0] if outputs == 1 else names

    def output(self, kind, inputs, name, **attrs):
        self.nodes.append(helper.make_node(kind, inputs, [name], name=name + "_node", **attrs))

    def const(self, value, name=None, dtype=np.float32):
        name = name or self.fresh("const")
        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(np.asarray(value, dtype=dtype), name)
        return name

    def weight(self, key, transpose=False):
        array = self.w[key].astype(np.float32)
        return self.const(array.T.copy() if transpose else array, key.replace("/", ".") + (".T" if transpose else ""))

    def linear(self, x, prefix, bias=True):
        y = self.op("MatMul", [x, self.weight(prefix + "/weight", transpose=True)])
        return self.op("Add", [y, self.weight(prefix + "/bias")]) if bias else y

    def add_norm(self, residual, prefix, keep_sum=True):
        """The residual stream's next value a + b, for `residual` = (a, b), and its layer norm, as ONNX Runtime's one
        `SkipLayerNormalization` kernel. Why: the runtime Earshot ships (sherpa-onnx's ONNX Runtime 1.28) runs
        `LayerNormalization` about five times slower than this kernel (12% of tiny.en's encoder; BENCHMARKS,
        Transcription). Both are plain C++ with no instruction-set dispatch, so the CPU still makes no difference;
        in ONNX Runtime 1.23 their outputs were the same to the bit, in 1.28 they differ in the last bits (their
        sums run in other orders). Returns (a + b, its norm); a + b is not computed where no one reads it
        (`keep_sum`)."""
        normed, total = self.fresh("SkipLayerNormalization"), self.fresh("residual") if keep_sum else ""
        inputs = [*residual, self.weight(prefix + "/gamma"), self.weight(prefix + "/beta")]
        self.nodes.append(helper.make_node("SkipLayerNormalization", inputs, [normed, "", "", total] if keep_sum else [normed],
                                           name=normed + "_node", domain=CONTRIB, epsilon=1e-5))
        return total, normed

    def gelu(self, x):
        """x * (1 + erf(x / sqrt 2)) / 2, the exact form Whisper was trained with, as ONNX Runtime's one `Gelu`
        kernel: as close to the exact function as Mul, Erf, Add and Mul (within 5e-7 over [-8, 8]), but the tensor
        is read and written once instead of four times; the encoders took 6-10% less time (BENCHMARKS,
        Transcription). ONNX Runtime does not fuse the four itself in this order."""
        return self.op("Gelu", [x], domain=CONTRIB)

    def split3(self, x, d, parts=3):
        return self.op("Split", [x, self.const([d] * parts, dtype=np.int64)], outputs=parts, axis=-1)

    def heads(self, x, heads, d, perm):
        """[N, T, d] -> per-head 4-D tensor in the order `perm` of (N, T, H, dh)."""
        return self.op("Transpose", [self.op("Reshape", [x, self.const([0, 0, heads, d // heads], dtype=np.int64)])],
                       perm=perm)

    def attend(self, q4, k4, v4, d, mask=None, scores=None):
        """softmax(q4 k4 + mask) v4 with q4 [N,H,n,dh], k4 [N,H,dh,T], v4 [N,H,T,dh] -> [N, n, d].
        `scores`, a list, receives the raw q4 k4 [N,H,n,T] (word timing reads the cross-attention's)."""
        qk = self.op("MatMul", [q4, k4])
        if scores is not None:
            scores.append(qk)
        if mask is not None:
            qk = self.op("Add", [qk, mask])
        out = self.op("MatMul", [self.op("Softmax", [qk], axis=-1), v4])
        out = self.op("Transpose", [out], perm=[0, 2, 1, 3])
        return self.op("Reshape", [out, self.const([0, 0, d], dtype=np.int64)])

    def fused_attention(self, q, k, v, heads, d):
        """softmax(q k^T / sqrt(dh)) v over all frames in ONNX Runtime's MultiHeadAttention (q, k, v [N, T, d]): one
        kernel in place of the head transposes, two MatMuls and a Softmax over the 1,500 x 1,500 scores of each head,
        which took the encoders 4-7% less time (BENCHMARKS, Transcription). The encoder only: no mask, no cache."""
        return self.op("MultiHeadAttention", [q, k, v], num_heads=heads, scale=float((d // heads) ** -0.5),
                       domain=CONTRIB)

    def ffn(self, residual, prefix):
        """The feed-forward block after the residual (a, b): returns the residual (a + b, its block's output) that
        the next layer norm adds."""
        x, h = self.add_norm(residual, prefix + "/layer_norm")
        return x, self.linear(self.gelu(self.linear(h, prefix + "/linear_0")), prefix + "/linear_1")

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, list(self.inits.values()))
        opsets = [helper.make_opsetid("", OPSET)]
        if any(n.domain == CONTRIB for n in self.nodes):
            opsets.append(helper.make_opsetid(CONTRIB, 1))
        m = helper.make_model(graph, opset_imports=opsets, producer_name="earshot")
        m.ir_version = IR_VERSION
        return m


def build_encoder(w, dims):
    g = Graph(w)
    d, heads = dims["d"], dims["heads"]
    x = g.op("Conv", ["mel", g.weight("encoder/conv1/weight"), g.weight("encoder/conv1/bias")], pads=[1, 1])
    x = g.gelu(x)
    x = g.op("Conv", [x, g.weight("encoder/conv2/weight"), g.weight("encoder/conv2/bias")], pads=[1, 1], strides=[2])
    x = g.op("Transpose", [g.gelu(x)], perm=[0, 2, 1])  # [N, T/2, d]
    frames = g.op("Slice", [g.op("Shape", [x]), g.const([1], dtype=np.int64), g.const([2], dtype=np.int64)])
    pos = g.op("Slice", [g.weight("encoder/position_encodings/encodings"), g.const([0], dtype=np.int64), frames,
                         g.const([0], dtype=np.int64)])
    # the residual stream as the pair its next Add sums: each Add is done by the layer norm that reads it (add_norm)
    residual = (x, pos)
    for i in range(dims["enc_layers"]):
        p = f"encoder/layer_{i}"
        x, h = g.add_norm(residual, p + "/self_attention/layer_norm")
        q, k, v = g.split3(g.linear(h, p + "/self_attention/linear_0"), d)
        residual = g.ffn((x, g.linear(g.fused_attention(q, k, v, heads, d), p + "/self_attention/linear_1")), p + "/ffn")
    _, x = g.add_norm(residual, "encoder/layer_norm", keep_sum=False)
    # Cross-attention K and V are computed once here and read at every decoder step, so they leave the
    # encoder already split into heads, transposed and (K) scaled: [N, H, dh*T2] per layer holding K as
    # [H, dh, T2] and V as [H, T2, dh]. The decoding loop passes them to every decoder step untouched.
    scale = g.const((d // heads) ** -0.25)
    flat = g.const([0, heads, -1], dtype=np.int64)
    outputs = []
    f = TensorProto.FLOAT
    for i in range(dims["dec_layers"]):
        k, v = g.split3(g.linear(x, f"decoder/layer_{i}/attention/linear_1"), d, parts=2)
        # one output per layer: a decoder step reads each as it is (one stacked tensor was split, i.e. copied,
        # at every step: a quarter of tiny.en's step time)
        g.output("Reshape", [g.op("Mul", [g.heads(k, heads, d, [0, 2, 3, 1]), scale]), flat], f"cross_k_{i}")
        g.output("Reshape", [g.heads(v, heads, d, [0, 2, 1, 3]), flat], f"cross_v_{i}")
        outputs += [helper.make_tensor_value_info(f"cross_{kv}_{i}", f, ["N", heads, "K"]) for kv in "kv"]
    return g, [helper.make_tensor_value_info("mel", f, ["N", dims["n_mels"], "T"])], outputs


def build_decoder(w, dims, alignment_heads):
    """One decoding step for a batch of N hypotheses (Earshot's loop in Sources/EarshotSpeech/Whisper).

    inputs:  tokens [N, n] int64; for each layer i, in_self_k_i [Np, H, dh, P] and in_self_v_i [Np, H, P, dh], the
             self-attention keys (transposed, unscaled) and values of the P positions decoded so far (P = 0 at the
             start); beams [N] int64, the row of the caches each hypothesis continues (beam search reorders and
             forks hypotheses without copying caches outside); cross_k_i / cross_v_i [Nc, H, dh*T2], from the
             encoder (Nc = 1 is shared by all N hypotheses).
    outputs: hidden [N, n, d] (or logits [N, n, vocab], attach_logits); out_self_k_i [N, H, dh, P+n] and
             out_self_v_i [N, H, P+n, dh]; cross_qk [N, A, n, T2], the raw cross-attention scores of the model's A
             alignment heads (for word timing; only computed when asked).

    The caches are one tensor per layer, kept in the layout the attention reads: a step copies each twice (the
    beams' Gather, and the Concat that appends its new positions, which is also the output) instead of six times
    (as one stacked tensor: gathered, split, appended, cut into heads and transposed, scaled, stacked again), and
    the attention's scale is applied to the queries alone, before they are cut into heads: a Mul that feeds a
    MatMul directly is folded into it by ONNX Runtime (FusedMatMul), whose scaled product packs the whole cache or
    the 1,500 cross-attention keys at every step, where a plain product of one query row reads them as they are
    (BENCHMARKS.md, Transcription: the scaled products were 36-45% of a decoding step).
    """
    g = Graph(w)
    d, heads, layers = dims["d"], dims["heads"], dims["dec_layers"]
    dh = d // heads
    i64 = lambda v: g.const(v, dtype=np.int64)  # noqa: E731
    emb = g.weight("decoder/embeddings/weight")
    n = g.op("Slice", [g.op("Shape", ["tokens"]), i64([1]), i64([2])])
    offset = g.op("Slice", [g.op("Shape", ["in_self_v_0"]), i64([2]), i64([3])])
    total = g.op("Add", [offset, n])
    pos = g.op("Slice", [g.weight("decoder/position_encodings/encodings"), offset, total, i64([0])])
    residual = (g.op("Gather", [emb, "tokens"]), pos)  # summed by the first layer norm (add_norm)
    # causal mask [n, offset+n]: query at offset+i sees keys 0..offset+i
    keys = g.op("Range", [i64(0), g.op("Squeeze", [total]), i64(1)])
    queries = g.op("Unsqueeze", [g.op("Range", [g.op("Squeeze", [offset]), g.op("Squeeze", [total]), i64(1)]), i64([1])])
    mask = g.op("Where", [g.op("Greater", [keys, queries]), g.const(-1e9), g.const(0.0)])
    scale = g.const(dh ** -0.25)  # the cross-attention keys carry the other dh^-0.25 (build_encoder)
    self_scale = g.const(dh ** -0.5)  # q k^T / sqrt(dh), all of it on q: the cache keeps its keys unscaled
    scores = []
    for i in range(layers):
        p = f"decoder/layer_{i}"
        x, h = g.add_norm(residual, p + "/self_attention/layer_norm")
        q, k, v = g.split3(g.linear(h, p + "/self_attention/linear_0"), d)
        # the positions so far, in the order of the hypotheses, then this step's appended: [N, H, dh, P+n] and
        # [N, H, P+n, dh], ready for the products
        past_k = g.op("Gather", [f"in_self_k_{i}", "beams"], axis=0)
        past_v = g.op("Gather", [f"in_self_v_{i}", "beams"], axis=0)
        g.output("Concat", [past_k, g.heads(k, heads, d, [0, 2, 3, 1])], f"out_self_k_{i}", axis=3)
        g.output("Concat", [past_v, g.heads(v, heads, d, [0, 2, 1, 3])], f"out_self_v_{i}", axis=2)
        # the scale is a Mul on the queries before their heads are cut (not folded into the weights: that changes
        # int8 rounding), so that no Mul feeds a MatMul (see above)
        q4 = g.heads(g.op("Mul", [q, self_scale]), heads, d, [0, 2, 1, 3])
        attended = g.linear(g.attend(q4, f"out_self_k_{i}", f"out_self_v_{i}", d, mask), p + "/self_attention/linear_1")
        x, h = g.add_norm((x, attended), p + "/attention/layer_norm")
        q4 = g.heads(g.op("Mul", [g.linear(h, p + "/attention/linear_0"), scale]), heads, d, [0, 2, 1, 3])
        ck = g.op("Reshape", [f"cross_k_{i}", i64([0, heads, dh, -1])])
        cv = g.op("Reshape", [f"cross_v_{i}", i64([0, heads, -1, dh])])
        layer_scores = []
        attended = g.linear(g.attend(q4, ck, cv, d, scores=layer_scores), p + "/attention/linear_2")
        chosen = [h for (layer, h) in alignment_heads if layer == i]
        if chosen:
            scores.append(g.op("Gather", [layer_scores[0], i64(chosen)], axis=1))
        residual = g.ffn((x, attended), p + "/ffn")
    g.output("Concat", scores, "cross_qk", axis=1)
    # the last hidden state [N, n, d]: quantised models project it onto the vocabulary outside ONNX Runtime
    # (write_projection); float ones get the logits Gemm attached after quantisation (attach_logits)
    g.output("Identity", [g.add_norm(residual, "decoder/layer_norm", keep_sum=False)[1]], "hidden")
    f = TensorProto.FLOAT
    def caches(way, rows, length):  # in_ or out_self_k_i [rows, H, dh, length] and _v_i [rows, H, length, dh]
        return [value for i in range(layers) for value in (
            helper.make_tensor_value_info(f"{way}_self_k_{i}", f, [rows, heads, dh, length]),
            helper.make_tensor_value_info(f"{way}_self_v_{i}", f, [rows, heads, length, dh]))]
    inputs = [helper.make_tensor_value_info("tokens", TensorProto.INT64, ["N", "n"])] + caches("in", "Np", "P") + [
        helper.make_tensor_value_info("beams", TensorProto.INT64, ["N"])] + [
        helper.make_tensor_value_info(f"cross_{kv}_{i}", f, ["Nc", heads, "K"]) for i in range(layers) for kv in "kv"]
    outputs = [helper.make_tensor_value_info("hidden", f, ["N", "n", d])] + caches("out", "N", "Pn")
    outputs.append(helper.make_tensor_value_info("cross_qk", f, ["N", len(alignment_heads), "n", "T2"]))
    return g, inputs, outputs


def attach_logits(model, vocab, d):
    """Append logits = Gemm(hidden, embedding, transB=1) reshaped to [N, n, vocab] as the first output, in place of
    `hidden`. It reuses the embedding matrix (Gemm transB) instead of storing a transposed copy, and is attached
    after int8 quantisation, which would otherwise rewrite it."""
    g = model.graph
    emb = "decoder.embeddings.weight"
    g.node.extend([
        helper.make_node("Reshape", ["hidden", "hidden_rows_shape"], ["hidden_rows"], name="hidden_rows_node"),
        helper.make_node("Gemm", ["hidden_rows", emb], ["logits_flat"], name="logits_gemm", transB=1),
        helper.make_node("Shape", ["tokens"], ["tokens_shape"], name="tokens_shape_node"),
        helper.make_node("Concat", ["tokens_shape", "minus_one"], ["logits_shape"], name="logits_shape_node", axis=0),
        helper.make_node("Reshape", ["logits_flat", "logits_shape"], ["logits"], name="logits_node")])
    g.initializer.append(numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one"))
    g.initializer.append(numpy_helper.from_array(np.array([-1, d], dtype=np.int64), "hidden_rows_shape"))
    rest = [o for o in g.output if o.name != "hidden"]
    del g.output[:]
    g.output.extend([helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "n", vocab])] + rest)
    del g.value_info[:]  # stale shapes from the quantiser's inference
    return model


def write_projection(embedding, path):
    """The logits projection (the embedding matrix, vocabulary × width), little-endian: the rows as symmetric int8,
    the float32 scale of each row, then the rows as float16 (CTranslate2 stores them so: the same numbers as the
    float graph's). Earshot's decoding loop multiplies the decoder's hidden state by the int8 rows in exact integer
    arithmetic (Sources/CInt8Kernels), a quarter of the bytes per step of the fp32 Gemm that was most of a greedy
    step, then computes the likeliest tokens' logits again from the float16 rows, so the tokens it chooses between
    are scored as the float model scores them (a per-tensor int8 copy in the graph cost 0.5 WER points)."""
    scales = np.abs(embedding.astype(np.float32)).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    weights = np.clip(np.rint(embedding.astype(np.float32) / scales[:, None]), -127, 127).astype(np.int8)
    with open(path + ".tmp", "wb") as out:
        out.write(weights.tobytes())
        out.write(scales.astype("<f4").tobytes())
        out.write(embedding.astype("<f2").tobytes())
    os.replace(path + ".tmp", path)


def special_tokens(tokenizer_path, dims):
    """Token ids the decoding loop needs, read from tokenizer.json (config.json's lang_ids are off by one for .en)."""
    with open(tokenizer_path, encoding="utf-8") as f:
        added = {t["content"]: t["id"] for t in json.load(f)["added_tokens"]}
    sot, translate = added["<|startoftranscript|>"], added["<|translate|>"]
    languages = sorted((i, c) for c, i in added.items()
                       if sot < i < translate and re.fullmatch(r"<\|[a-z]{2,3}\|>", c))
    no_timestamps = added["<|notimestamps|>"]
    return {
        "sot": sot, "eot": added["<|endoftext|>"], "translate": translate, "transcribe": added["<|transcribe|>"],
        "sot_prev": added["<|startofprev|>"], "sot_lm": added["<|startoflm|>"], "no_timestamps": no_timestamps,
        # the no-speech token is <|nocaptions|> in older tokenizers, <|nospeech|> in newer
        "no_speech": added.get("<|nospeech|>", added.get("<|nocaptions|>")),
        # <|0.00|> .. <|30.00|> in steps of 0.02 s follow <|notimestamps|>
        "timestamp_begin": no_timestamps + 1,
        # tiny.en's tokenizer says iw where Whisper's language list says he
        "languages": [{"code": "he" if c[2:-2] == "iw" else c[2:-2], "token": i} for i, c in languages],
        "multilingual": dims["vocab"] >= 51865,
    }


def gpt2_byte_decoder():
    """Inverse of GPT-2's bytes_to_unicode map: printable stand-in character -> raw byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def write_vocabulary(src, out_dir, name):
    """The BPE vocabulary Earshot's tokenizer reads to encode prompts and decode tokens: one token per line, line
    number = id = merge rank (tiktoken's rule), in GPT-2's printable stand-ins for bytes."""
    path = os.path.join(out_dir, f"{name}-vocabulary.txt")
    with open(os.path.join(src, "vocabulary.txt"), encoding="utf-8") as f:
        text = f.read().rstrip("\n") + "\n"
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(path + ".tmp", path)


def count_layers(w, stack):
    return len({m.group(1) for k in w if (m := re.match(stack + r"/layer_(\d+)/", k))})


# How MatMul weights are stored (measured on 173 read-speech utterances: BENCHMARKS.md).
#   float: no quantisation.
#   u8: symmetric int8 quantisation (quantize_dynamic, QInt8), then stored as uint8 (w + 128, zero point
#       128): the same numbers, computed exactly on every CPU (see integer_weights.py).
#   s8: the int8 file itself; ONNX Runtime's AVX2 kernels saturate on it, so transcripts depend on the CPU.
#   s8-paired: the same int8 weights, with the rows of those that could saturate in pairs reordered (and their
#       quantised input put in the same order), so the fast u8 x s8 kernels compute the exact sums on every CPU (see
#       integer_weights.py): u8's numbers at s8's speed.
#   s8-paired-rows: s8-paired, with the input of each feed-forward block's second MatMul (the GELU's output)
#       quantised with a scale per row (per audio frame) rather than one per tensor (see row_scaled_inputs.py):
#       base's encoder, whose GELU outputs have outliers that one scale rounds the rest of the tensor to zero by.
#   s8-reduced: 7-bit int8 weights (reduce_range), which cannot saturate but are coarser.
#   u8-asymmetric: asymmetric uint8 quantisation (QUInt8): CPU-independent, but base lost 0.5 WER points.
#   dequantised: float, each MatMul weight rounded as the symmetric int8 quantisation rounds it: the float
#       reference of the u8/s8 models (only their activations are still quantised, per tensor, at run time).
PRECISIONS = ("float", "u8", "s8", "s8-paired", "s8-paired-rows", "s8-reduced", "u8-asymmetric", "dequantised")


def dequantised(model):
    """MatMul weights replaced by their int8 values times their scale (quantize_dynamic's symmetric per-tensor
    rounding: scale = max|w| / 127), everything else float."""
    g = model.graph
    weights = {i.name: i for i in g.initializer}
    for name in {n.input[1] for n in g.node if n.op_type == "MatMul" and n.input[1] in weights}:
        values, scale = symmetric_int8(numpy_helper.to_array(weights[name]))
        weights[name].CopyFrom(numpy_helper.from_array(values.astype(np.float32) * scale, name))
    return model


def quantise(model, precision, scratch):
    """The model with its MatMul weights stored as `precision` (see PRECISIONS)."""
    if precision == "float":
        return model
    if precision == "dequantised":
        return dequantised(model)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    onnx.save(model, scratch)
    try:
        quantize_dynamic(scratch, scratch + ".q", op_types_to_quantize=["MatMul"],
                         weight_type=QuantType.QUInt8 if precision == "u8-asymmetric" else QuantType.QInt8,
                         reduce_range=precision == "s8-reduced",
                         # shape inference stops at the contrib attention; what it cannot type is float
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})
        quantised = onnx.load(scratch + ".q")
    finally:
        for f in (scratch, scratch + ".q"):
            if os.path.exists(f):
                os.remove(f)
    if precision == "u8":
        int8_weights_as_uint8(quantised)
    if precision.startswith("s8-paired"):
        int8_weights_pair_safe(quantised)
    if precision == "s8-paired-rows" and not row_scaled_inputs(quantised, r"ffn\.linear_1\.weight"):
        raise SystemExit("s8-paired-rows: no feed-forward MatMul found to quantise per row")
    return quantised


def main():
    if len(sys.argv) != 6 or not set(sys.argv[4:6]) <= set(PRECISIONS):
        raise SystemExit(__doc__)
    src, out_dir, name = sys.argv[1:4]
    precisions = {"encoder": sys.argv[4], "decoder": sys.argv[5]}
    os.makedirs(out_dir, exist_ok=True)
    w = read_ct2(os.path.join(src, "model.bin"))
    d = w["encoder/position_encodings/encodings"].shape[1]
    dims = {
        "d": d, "heads": int(w["encoder/num_heads"]), "n_mels": w["encoder/conv1/weight"].shape[1],
        "enc_layers": count_layers(w, "encoder"), "dec_layers": count_layers(w, "decoder"),
        "vocab": w["decoder/embeddings/weight"].shape[0],
    }
    with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    # the cross-attention heads that follow the audio (openai-whisper's table, as CTranslate2 stores it)
    alignment_heads = [tuple(pair) for pair in config["alignment_heads"]]
    description = {
        "n_mels": int(dims["n_mels"]), "n_audio_ctx": 1500, "n_text_ctx": N_TEXT_CTX, "n_vocab": int(dims["vocab"]),
        "n_text_layer": dims["dec_layers"], "n_text_state": int(d), "n_text_head": dims["heads"],
        "alignment_heads": [list(p) for p in alignment_heads],
        # tokens Whisper should never write (symbols that are not speech), and at the start (blank, end)
        "suppress_tokens": config["suppress_ids"], "suppress_tokens_at_start": config["suppress_ids_begin"],
        "precision": precisions,
        # quantised decoders leave the vocabulary projection to this int8 file (write_projection); float ones
        # compute logits in the graph
        "projection": None if precisions["decoder"] in ("float", "dequantised") else f"{name}-projection.bin",
    }
    description.update(special_tokens(os.path.join(src, "tokenizer.json"), dims))
    # hidden features renumbered so that fewer int8 weights need their input reordered at run time
    # (pair_safe_features.py); the same numbers to the bit, so the float references get it too
    pair_safe_features(w, dims)

    for part, builder in (("encoder", build_encoder), ("decoder", lambda w, dims: build_decoder(w, dims, alignment_heads))):
        g, inputs, outputs = builder(w, dims)
        model = g.model(f"whisper_{part}", inputs, outputs)
        onnx.checker.check_model(model)
        final = os.path.join(out_dir, f"{name}-{part}.onnx")
        model = quantise(model, precisions[part], final + ".fp32.tmp")
        reordered = sum(n.name.endswith("_pair_safe_split") for n in model.graph.node)
        if reordered:
            print(f"  {part}: {reordered} MatMul input(s) reordered at run time (those reading a layer norm)")
        if part == "decoder" and description["projection"]:
            write_projection(w["decoder/embeddings/weight"], os.path.join(out_dir, description["projection"]))
        elif part == "decoder":
            model = attach_logits(model, dims["vocab"], d)
        onnx.save(model, final + ".tmp")
        os.replace(final + ".tmp", final)
        print(f"  wrote {final} ({precisions[part]}, {os.path.getsize(final) / 1e6:.0f} MB)")
    write_vocabulary(src, out_dir, name)
    path = os.path.join(out_dir, f"{name}-whisper.json")
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(description, out, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
