// Whisper's logits projection (vocabulary × width, 51,864 × 384 for tiny.en) as int8 weights with one scale per
// row, times the decoder's last hidden state as int16 with one scale per vector.
//
// Why: the fp32 projection reads 80 MB (tiny.en) to 106 MB (base) per decoder step, which made it most of a
// greedy step's time; as int8 it reads a quarter of that. Why in C rather than in the ONNX graph: ONNX Runtime's
// integer kernels were slower than its fp32 Gemm for one row at a time, and a per-tensor int8 copy in the graph
// cost 0.5 WER points (docs/speech.md).
//
// Same answers on every CPU: each product of an int8 weight and an int16 activation fits in 22 bits and a row's
// sum of at most 512 of them in 31 bits, so the integer sums are exact whatever instructions add them (AVX2's
// vpmaddwd here, plain C where the compiler picks); the float steps after them are one multiplication each, in a
// fixed order. The vector loop needs only AVX2, which Earshot requires.
#include "earshot_int8.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

// products and sums are rounded one by one (no fused multiply-add), whatever flags the compiler is given
#pragma STDC FP_CONTRACT OFF

// The thread sanitizer leaves these loops alone: they read weights that never change once loaded and vectors
// their caller owns, and each call writes only its own rows of `out`, so there is nothing in them to race on.
// Instrumented, the projection's unaligned vector loads were 31% of a live-transcription test's profile under TSan
// (58 s; 44 s without); its loop is now assembly, which no sanitizer instruments. The Swift callers that share and
// hand out these buffers stay instrumented.
#define EARSHOT_KERNEL __attribute__((no_sanitize("thread")))

EARSHOT_KERNEL void earshot_int16_quantise(const float *x, int count, int dim, int16_t *out, float *scales) {
    for (int r = 0; r < count; r++) {
        const float *row = x + (size_t)r * dim;
        float largest = 0;
        for (int k = 0; k < dim; k++) largest = fmaxf(largest, fabsf(row[k]));
        float scale = largest > 0 ? largest / 32767.0f : 0.0f;
        scales[r] = scale;
        for (int k = 0; k < dim; k++) {
            out[(size_t)r * dim + k] = scale > 0 ? (int16_t)lrintf(row[k] / scale) : 0;
        }
    }
}

#if defined(__x86_64__)
// The sum of one weight row times one int16 vector (dim a multiple of 16), written in assembly rather than intrinsics:
// SwiftPM compiles C at -O0 in a debug build, a package that depends on Earshot's included, and there every intrinsic
// went through the stack: 44 ms for base's projection (51,864 rows of 512) against 1.0 ms optimised, most of a debug
// build's decoding time (docs/library.md). This loop is as fast at -O0 as at -O2 (1.0 ms both, the same sums as the
// intrinsics and as plain C for widths 16 to 512, checked by LogitsProjectionTests). vpmovsxbw widens 16 weights to
// int16, vpmaddwd multiplies them by 16 values and adds pairs into 8 int32 lanes; two accumulators, 32 values a turn,
// and a first lone block of 16 when dim is an odd number of them.
EARSHOT_KERNEL static int32_t dot_avx2(const int8_t *w, const int16_t *x, int dim) {
    int32_t sum;
    long k = 0;
    __asm__(
        "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
        "vpxor %%ymm1, %%ymm1, %%ymm1\n\t"
        "test $16, %[n]\n\t"
        "jz 2f\n\t"
        "vpmovsxbw (%[w]), %%ymm2\n\t"
        "vpmaddwd (%[x]), %%ymm2, %%ymm2\n\t"
        "vpaddd %%ymm2, %%ymm0, %%ymm0\n\t"
        "mov $16, %[k]\n\t"
        "2:\n\t"
        "cmp %[n], %[k]\n\t"
        "jae 3f\n\t"
        "1:\n\t"
        "vpmovsxbw (%[w],%[k]), %%ymm2\n\t"
        "vpmovsxbw 16(%[w],%[k]), %%ymm3\n\t"
        "vpmaddwd (%[x],%[k],2), %%ymm2, %%ymm2\n\t"
        "vpmaddwd 32(%[x],%[k],2), %%ymm3, %%ymm3\n\t"
        "vpaddd %%ymm2, %%ymm0, %%ymm0\n\t"
        "vpaddd %%ymm3, %%ymm1, %%ymm1\n\t"
        "add $32, %[k]\n\t"
        "cmp %[n], %[k]\n\t"
        "jb 1b\n\t"
        "3:\n\t"
        "vpaddd %%ymm1, %%ymm0, %%ymm0\n\t"
        "vextracti128 $1, %%ymm0, %%xmm1\n\t"
        "vpaddd %%xmm1, %%xmm0, %%xmm0\n\t"
        "vpshufd $0x4e, %%xmm0, %%xmm1\n\t"
        "vpaddd %%xmm1, %%xmm0, %%xmm0\n\t"
        "vpshufd $0xb1, %%xmm0, %%xmm1\n\t"
        "vpaddd %%xmm1, %%xmm0, %%xmm0\n\t"
        "vmovd %%xmm0, %[sum]\n\t"
        "vzeroupper\n\t"  // the callers' SSE code runs without the AVX-to-SSE transition cost
        : [sum] "=r"(sum), [k] "+r"(k)
        : [w] "r"(w), [x] "r"(x), [n] "r"((long)dim)
        : "xmm0", "xmm1", "xmm2", "xmm3", "cc", "memory");
    return sum;
}
#endif

EARSHOT_KERNEL static int32_t dot_plain(const int8_t *w, const int16_t *x, int dim) {
    int32_t sum = 0;
    for (int k = 0; k < dim; k++) sum += (int32_t)w[k] * (int32_t)x[k];
    return sum;
}

EARSHOT_KERNEL void earshot_int8_project(const int8_t *weights, const float *wscales, int first, int rows, int dim,
                          const int16_t *x, const float *xscales, int count, float *out, int stride) {
    int vector = 0;
#if defined(__x86_64__)
    vector = dim % 16 == 0 && __builtin_cpu_supports("avx2");
#endif
    for (int v = first; v < first + rows; v++) {
        const int8_t *w = weights + (size_t)v * dim;
        // every vector against this weight row while it is in cache: the matrix is read once per call
        for (int r = 0; r < count; r++) {
            const int16_t *xr = x + (size_t)r * dim;
#if defined(__x86_64__)
            int32_t sum = vector ? dot_avx2(w, xr, dim) : dot_plain(w, xr, dim);
#else
            int32_t sum = dot_plain(w, xr, dim);
#endif
            out[(size_t)r * stride + (v - first)] = (float)sum * xscales[r] * wscales[v];
        }
    }
}

EARSHOT_KERNEL static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else {
        float small = (float)mantissa * 5.9604644775390625e-8f;  // subnormal: mantissa × 2^-24, exact
        return sign ? -small : small;
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

EARSHOT_KERNEL float earshot_f16_dot(const uint16_t *h, const float *x, int dim) {
    float sum = 0;
    for (int k = 0; k < dim; k++) {
        float product = half_to_float(h[k]) * x[k];
        sum += product;
    }
    return sum;
}
