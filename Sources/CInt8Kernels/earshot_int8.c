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

#if defined(__x86_64__)
#include <immintrin.h>
#define EARSHOT_AVX2 __attribute__((target("avx2")))
#else
#define EARSHOT_AVX2
#endif

// The thread sanitizer leaves these loops alone: they read weights that never change once loaded and vectors
// their caller owns, and each call writes only its own rows of `out`, so there is nothing in them to race on.
// Instrumented, the projection's unaligned vector loads were 31% of a live-transcription test's profile under TSan
// (58 s; 44 s without). The Swift callers that share and hand out these buffers stay instrumented.
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
// the sum of one weight row times one int16 vector; dim is a multiple of 16 here
EARSHOT_KERNEL EARSHOT_AVX2 static int32_t dot_avx2(const int8_t *w, const int16_t *x, int dim) {
    __m256i sum = _mm256_setzero_si256();
    for (int k = 0; k < dim; k += 16) {
        __m256i wide = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + k)));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(wide, _mm256_loadu_si256((const __m256i *)(x + k))));
    }
    __m128i half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(1, 0, 3, 2)));
    half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(half);
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
