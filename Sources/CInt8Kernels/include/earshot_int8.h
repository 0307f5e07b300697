// Integer matrix-vector products whose results do not depend on the CPU (see earshot_int8.c).
#ifndef EARSHOT_INT8_H
#define EARSHOT_INT8_H

#include <stdint.h>

/// Vectors as int16 for earshot_int8_project: each of the `count` rows of `x` (`dim` floats each) scaled by its
/// own factor so its largest magnitude is 32767 and rounded to the nearest integer; the factor (float value of
/// one integer step) goes to `scales[row]` (0 for a row of zeros).
void earshot_int16_quantise(const float *x, int count, int dim, int16_t *out, float *scales);

/// out[r * stride + (v - first)] = (sum_k weights[v][k] * x[r][k]) * xscales[r] * wscales[v] for the weight rows v in
/// [first, first + rows) of a row-major int8 matrix with `dim` columns, and every vector r < count; `out` points
/// at the first row's slot of vector 0 and steps by `stride` between vectors. Sums are exact (int32).
void earshot_int8_project(const int8_t *weights, const float *wscales, int first, int rows, int dim,
                          const int16_t *x, const float *xscales, int count, float *out, int stride);

/// sum_k float(h[k]) * x[k] over `dim` IEEE half-precision values `h` (as their bits), added in order in float
/// without fused multiply-adds: the same value on every CPU.
float earshot_f16_dot(const uint16_t *h, const float *x, int dim);

#endif
