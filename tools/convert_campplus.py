#!/usr/bin/env python3
"""Convert 3D-Speaker's CAM++ speaker network (campplus_cn_en_common.pt, a PyTorch state dict) into ONNX.

The diarizer tells voices apart with this network: trained on some 200,000 Chinese and English speakers, it
separates voices the d-vector encoder (voice ID's network) puts together. Needs only numpy and onnx -- no torch:
the checkpoint's zip is read with a small unpickler and the graph is written node by node, every BatchNorm that
follows a convolution folded into it. The network computes in float32 (no integer kernels, so no CPU can round it
differently).

Contract (Sources/EarshotCore/Networks/DiarizationEncoder.swift reads it): input "fbank" [N, T, 80], Kaldi log mel filterbank frames (25 ms every 10 ms, Povey
window, no dither) with each window's mean over time taken out; output "embedding" [N, 192], not normalised.

usage: convert_campplus.py CHECKPOINT.pt OUT.onnx
"""
import collections
import io
import os
import pickle
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from convert_whisper import Graph

DTYPES = {"FloatStorage": np.float32, "LongStorage": np.int64, "HalfStorage": np.float16}
BN_EPS = 1e-5
# CAM++'s dense blocks: (layers, kernel, dilation); growth 32, bottleneck 128, 128 channels into the first
BLOCKS = [(12, 3, 1), (24, 3, 2), (16, 3, 2)]


def read_state_dict(path):
    """A PyTorch zip checkpoint's tensors as numpy arrays, without torch."""
    archive = zipfile.ZipFile(path)
    pkl = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
    root = pkl[: -len("data.pkl")]

    class Storage:
        def __init__(self, name):
            self.name = name

    def rebuild_tensor(storage, offset, size, stride, *_):
        flat = storage
        itemsize = flat.dtype.itemsize
        return np.lib.stride_tricks.as_strided(flat[offset:], shape=tuple(size),
                                               strides=tuple(s * itemsize for s in stride)).copy()

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "torch._utils" and name == "_rebuild_tensor_v2":
                return rebuild_tensor
            if module == "torch" and name in DTYPES:
                return Storage(name)
            if module == "collections" and name == "OrderedDict":
                return collections.OrderedDict
            raise pickle.UnpicklingError(f"unexpected object in the checkpoint: {module}.{name}")

        def persistent_load(self, pid):
            _, kind, key, _, _ = pid
            raw = archive.read(f"{root}data/{key}")
            return np.frombuffer(raw, dtype=DTYPES[kind.name])

    return dict(Unpickler(io.BytesIO(archive.read(pkl))).load())


class CAMPlusPlus:
    def __init__(self, w):
        self.w = w
        self.g = Graph(w)

    def bn_affine(self, prefix):
        """BatchNorm as scale and shift per channel."""
        w = self.w
        scale = 1 / np.sqrt(w[prefix + ".running_var"] + BN_EPS)
        shift = -w[prefix + ".running_mean"] * scale
        if prefix + ".weight" in w:
            scale, shift = scale * w[prefix + ".weight"], shift * w[prefix + ".weight"] + w[prefix + ".bias"]
        return scale.astype(np.float32), shift.astype(np.float32)

    def conv(self, x, prefix, bn=None, relu=False, **attrs):
        """Conv (1-d or 2-d), then an optional BatchNorm folded into its weights, then an optional ReLU."""
        weight = self.w[prefix + ".weight"].astype(np.float32)
        bias = self.w.get(prefix + ".bias", np.zeros(weight.shape[0], np.float32)).astype(np.float32)
        if bn:
            scale, shift = self.bn_affine(bn)
            weight = weight * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
            bias = bias * scale + shift
        y = self.g.op("Conv", [x, self.g.const(weight, prefix + ".w"), self.g.const(bias, prefix + ".b")], **attrs)
        return self.g.op("Relu", [y]) if relu else y

    def bn_relu(self, x, prefix):
        """A BatchNorm that no convolution precedes (its input is a concatenation), then ReLU."""
        scale, shift = self.bn_affine(prefix)
        y = self.g.op("Mul", [x, self.g.const(scale.reshape(-1, 1), prefix + ".scale")])
        y = self.g.op("Add", [y, self.g.const(shift.reshape(-1, 1), prefix + ".shift")])
        return self.g.op("Relu", [y])

    def res_block(self, x, prefix, stride):
        out = self.conv(x, prefix + ".conv1", prefix + ".bn1", relu=True, kernel_shape=[3, 3], strides=[stride, 1],
                        pads=[1, 1, 1, 1])
        out = self.conv(out, prefix + ".conv2", prefix + ".bn2", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        if prefix + ".shortcut.0.weight" in self.w:
            x = self.conv(x, prefix + ".shortcut.0", prefix + ".shortcut.1", kernel_shape=[1, 1], strides=[stride, 1])
        return self.g.op("Relu", [self.g.op("Add", [out, x])])

    def seg_context(self, x):
        """CAM's context: the mean over all frames plus the mean of each 100-frame segment, repeated over it."""
        g = self.g
        mean = g.op("ReduceMean", [x], axes=[2], keepdims=1)
        seg = g.op("AveragePool", [x], kernel_shape=[100], strides=[100], ceil_mode=1)  # [N, C, S]
        seg = g.op("Unsqueeze", [seg, g.const(np.array([3], np.int64), dtype=np.int64)])  # [N, C, S, 1]
        shape = g.op("Shape", [seg])
        head = g.op("Slice", [shape, g.const(np.array([0], np.int64), dtype=np.int64),
                              g.const(np.array([3], np.int64), dtype=np.int64)])
        full = g.op("Concat", [head, g.const(np.array([100], np.int64), dtype=np.int64)], axis=0)
        seg = g.op("Expand", [seg, full])  # [N, C, S, 100]
        flat = g.op("Concat", [g.op("Slice", [shape, g.const(np.array([0], np.int64), dtype=np.int64),
                                              g.const(np.array([2], np.int64), dtype=np.int64)]),
                               g.const(np.array([-1], np.int64), dtype=np.int64)], axis=0)
        seg = g.op("Reshape", [seg, flat])  # [N, C, S*100]
        frames = g.op("Slice", [g.op("Shape", [x]), g.const(np.array([2], np.int64), dtype=np.int64),
                                g.const(np.array([3], np.int64), dtype=np.int64)])
        seg = g.op("Slice", [seg, g.const(np.array([0], np.int64), dtype=np.int64), frames,
                             g.const(np.array([2], np.int64), dtype=np.int64)])
        return g.op("Add", [mean, seg])

    def cam_layer(self, x, prefix, kernel, dilation):
        g = self.g
        pad = (kernel - 1) // 2 * dilation
        local = self.conv(x, prefix + ".linear_local", kernel_shape=[kernel], dilations=[dilation], pads=[pad, pad])
        context = self.seg_context(x)
        mask = self.conv(context, prefix + ".linear1", relu=True, kernel_shape=[1])
        mask = g.op("Sigmoid", [self.conv(mask, prefix + ".linear2", kernel_shape=[1])])
        return g.op("Mul", [local, mask])

    def build(self):
        g, w = self.g, self.w
        x = g.op("Transpose", ["fbank"], perm=[0, 2, 1])  # [N, 80, T]
        x = g.op("Unsqueeze", [x, g.const(np.array([1], np.int64), dtype=np.int64)])  # [N, 1, 80, T]
        # FCM: a small 2-d ResNet over frequency and time, frequency downsampled 8x
        x = self.conv(x, "head.conv1", "head.bn1", relu=True, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        for layer in ("head.layer1", "head.layer2"):
            x = self.res_block(x, layer + ".0", 2)
            x = self.res_block(x, layer + ".1", 1)
        x = self.conv(x, "head.conv2", "head.bn2", relu=True, kernel_shape=[3, 3], strides=[2, 1], pads=[1, 1, 1, 1])
        x = g.op("Reshape", [x, g.const(np.array([0, 320, -1], np.int64), dtype=np.int64)])  # [N, 32 x 10, T]
        # D-TDNN with context-aware masking
        x = self.conv(x, "xvector.tdnn.linear", "xvector.tdnn.nonlinear.batchnorm", relu=True, kernel_shape=[5],
                      strides=[2], pads=[2, 2])
        for b, (layers, kernel, dilation) in enumerate(BLOCKS, start=1):
            for i in range(1, layers + 1):
                p = f"xvector.block{b}.tdnnd{i}"
                y = self.bn_relu(x, p + ".nonlinear1.batchnorm")
                y = self.conv(y, p + ".linear1", p + ".nonlinear2.batchnorm", relu=True, kernel_shape=[1])
                y = self.cam_layer(y, p + ".cam_layer", kernel, dilation)
                x = g.op("Concat", [x, y], axis=1)
            p = f"xvector.transit{b}"
            x = self.conv(self.bn_relu(x, p + ".nonlinear.batchnorm"), p + ".linear", kernel_shape=[1])
        x = self.bn_relu(x, "xvector.out_nonlinear.batchnorm")
        # statistics pooling: mean and unbiased standard deviation over time
        axes = g.const(np.array([2], np.int64), dtype=np.int64)
        mean = g.op("ReduceMean", [x], axes=[2], keepdims=1)
        centred = g.op("Sub", [x, mean])
        frames = g.op("Cast", [g.op("Slice", [g.op("Shape", [x]), g.const(np.array([2], np.int64), dtype=np.int64),
                                              g.const(np.array([3], np.int64), dtype=np.int64)])], to=TensorProto.FLOAT)
        var = g.op("Div", [g.op("ReduceSum", [g.op("Mul", [centred, centred]), axes], keepdims=0),
                           g.op("Sub", [frames, g.const(np.array(1, np.float32))])])
        stats = g.op("Concat", [g.op("Squeeze", [mean, axes]), g.op("Sqrt", [var])], axis=1)  # [N, 1024]
        # the embedding: a linear layer with a BatchNorm without affine parameters folded in
        weight = w["xvector.dense.linear.weight"][:, :, 0].astype(np.float32)
        scale, shift = self.bn_affine("xvector.dense.nonlinear.batchnorm")
        y = g.op("MatMul", [stats, g.const((weight * scale[:, None]).T.copy(), "dense.w")])
        g.output("Add", [y, g.const(shift, "dense.b")], "embedding")
        model = g.model("campplus",
                        [helper.make_tensor_value_info("fbank", TensorProto.FLOAT, ["n", "frames", 80])],
                        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 192])])
        return model


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, out = sys.argv[1:]
    weights = read_state_dict(source)
    read = set()
    model = CAMPlusPlus(ReadTracker(weights, read)).build()
    unused = {k for k in weights if not k.endswith("num_batches_tracked")} - read
    if unused:
        sys.exit(f"{source}: weights the graph does not use (not the CAM++ layout?): {sorted(unused)[:5]}")
    onnx.checker.check_model(model)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    onnx.save(model, out + ".tmp")
    os.replace(out + ".tmp", out)
    print(f"  wrote {out} ({os.path.getsize(out) / 1e6:.0f} MB, {sum(v.size for v in weights.values()) / 1e6:.1f}M numbers)")


class ReadTracker(dict):
    """The state dict, noting which keys the graph reads: a checkpoint of another layout fails loudly."""

    def __init__(self, weights, read):
        super().__init__(weights)
        self.read_keys = read

    def __getitem__(self, key):
        self.read_keys.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        if key in self:
            self.read_keys.add(key)
        return super().get(key, default)


if __name__ == "__main__":
    main()
