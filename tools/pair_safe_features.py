"""Whisper's hidden features put in an order where no int8 weight pair can saturate, so fewer MatMuls need their
input reordered at run time.

ONNX Runtime's u8 x s8 kernels on CPUs without VNNI add the products of K rows 2i and 2i+1 in int16, which two
large weights of the same sign can overflow (integer_weights.py). int8_weights_pair_safe fixes that per MatMul
by reordering the weight's rows and inserting a Split and a Concat that put its quantised input in the same
order at every run. In the decoder those were 14 (tiny.en) to 28 (base) pairs of small kernels at every step.

Here an order is chosen once, in the float weights, before the graph is built, wherever that changes no number:
features that one projection writes and the next reads, with nothing in between that sums over them, can be
renumbered on both sides and every output stays the same to the bit.
- Each head's values (self-attention's V, and the cross-attention's V that the encoder projects): renumbered
  within the head for the attention's output projection. Attention sums over positions, never over a head's
  features, and the integer products are exact whatever their order.
- Each feed-forward block's hidden features: renumbered for its second projection (GELU works feature by feature).
The int8 values a renumbered weight gets are the same as before (one scale per tensor, and the activations' too,
do not depend on the order), only in another order. The residual streams are left alone: renumbering them would
also free the projections that read a layer norm, but the norm's sums would then run in another order, and those
last-bit changes moved base's readings by a word here and there (its WER on 173 files went from 8.37% to 9.20%,
one sentence repeating itself); int8_weights_pair_safe still reorders those at run time, and checks every MatMul.
"""
import numpy as np

from integer_weights import pair_safe_order, symmetric_int8


def int8_values(weight):
    """A CTranslate2 weight [out, in] as the int8 MatMul weight [in, out] that quantize_dynamic makes of it."""
    return symmetric_int8(weight.T)[0]


def permute(w, key, axis, order, start=0):
    """Renumbers w[key] along `axis` from `start` on: position start + i takes what was at start + order[i]."""
    array = w[key].astype(np.float32)
    index = [slice(None)] * array.ndim
    index[axis] = slice(start, start + len(order))
    array[tuple(index)] = np.take(array[tuple(index)], order, axis=axis)
    w[key] = array


def renumber_heads(w, writer, reader, start, d, heads):
    """Renumbers the values of each head, which `writer`'s output rows start..start+d hold and `reader` reads."""
    dh = d // heads
    rows = int8_values(w[reader + "/weight"])
    for h in range(heads):
        order = pair_safe_order(rows[h * dh:(h + 1) * dh])
        if order is not None:
            permute(w, writer + "/weight", 0, order, start + h * dh)
            permute(w, writer + "/bias", 0, order, start + h * dh)
            permute(w, reader + "/weight", 1, order, h * dh)


def renumber_hidden(w, block):
    """Renumbers the hidden features of feed-forward `block` for its second projection."""
    order = pair_safe_order(int8_values(w[block + "/linear_1/weight"]))
    if order is not None:
        permute(w, block + "/linear_0/weight", 0, order)
        permute(w, block + "/linear_0/bias", 0, order)
        permute(w, block + "/linear_1/weight", 1, order)


def pair_safe_features(w, dims):
    """Renumbers features of the CTranslate2 Whisper weights `w` (in place) as the module describes."""
    d, heads = dims["d"], dims["heads"]
    encoder = [f"encoder/layer_{i}" for i in range(dims["enc_layers"])]
    decoder = [f"decoder/layer_{i}" for i in range(dims["dec_layers"])]

    for p in encoder + decoder:
        renumber_heads(w, p + "/self_attention/linear_0", p + "/self_attention/linear_1", 2 * d, d, heads)
        renumber_hidden(w, p + "/ffn")
    for p in decoder:  # the cross-attention's values come from the encoder's output, projected once per window
        renumber_heads(w, p + "/attention/linear_1", p + "/attention/linear_2", d, d, heads)
