/* One Whisper decoder step timed alone, in the ONNX Runtime Earshot ships (sherpa-onnx's), with its session made as
 * Earshot's WhisperDecoder makes it (Earshot's C shim over the API, Sources/COnnxRuntime: two threads, no spinning,
 * its memory arena kept): a graph change's cost per step, which a whole transcription's noise hides. One token, a
 * cache of P = 12 positions, made-up values (the time does not depend on them); prints the median, 10th and 90th
 * percentiles of RUNS steps.
 *
 * build (after make setup):
 *   R=$HOME/.cache/earshot/runtime/sherpa-onnx; cc -O2 -o /tmp/decoder_step bench/decoder_step.c \
 *     Sources/COnnxRuntime/earshot_ort.c Sources/COnnxRuntime/earshot_ort_options.c -ISources/COnnxRuntime/include \
 *     -L$R/lib -Wl,--no-as-needed -lonnxruntime -ldl -Wl,-rpath,$R/lib
 * run:  /tmp/decoder_step MODEL-decoder.onnx RUNS HEADS   (tiny.en: 6 heads, base: 8)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "earshot_ort.h"

static EarshotOrtApi api;
#define CHECK(x) do { OrtStatus *s_ = (x); if (s_) { fprintf(stderr, "%s: %s\n", #x, earshot_ort_error_message(api, s_)); exit(1); } } while (0)

static int by_value(const void *x, const void *y) { double d = *(const double *)x - *(const double *)y; return (d > 0) - (d < 0); }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s MODEL-decoder.onnx RUNS HEADS\n", argv[0]); return 2; }
    int runs = atoi(argv[2]), heads = atoi(argv[3]), positions = 12, frames = 1500, width = 64;  // layers: by input name
    const char *version;
    api = earshot_ort_api(17, &version);
    OrtEnv *env; CHECK(earshot_ort_create_env(api, 3, "decoder_step", &env));
    OrtSessionOptions *options; CHECK(earshot_ort_create_session_options(api, &options));
    CHECK(earshot_ort_set_intra_op_threads(api, options, 2));
    CHECK(earshot_ort_enable_cpu_arena(api, options));  // InferenceSession(keepingItsMemory: true), as the decoder has
    OrtSession *session; CHECK(earshot_ort_create_session(api, env, argv[1], options, &session));
    size_t inputs, outputs; CHECK(earshot_ort_input_count(api, session, &inputs)); CHECK(earshot_ort_output_count(api, session, &outputs));
    OrtAllocator *allocator; CHECK(earshot_ort_default_allocator(api, &allocator));
    OrtMemoryInfo *memory; CHECK(earshot_ort_create_cpu_memory_info(api, &memory));
    char *in[128], *out[128]; OrtValue *values[128];
    static int64_t tokens[1] = {440}, beams[1] = {0};
    for (size_t i = 0; i < inputs; i++) {
        CHECK(earshot_ort_input_name(api, session, i, allocator, &in[i]));
        if (!strcmp(in[i], "tokens") || !strcmp(in[i], "beams")) {
            int64_t shape[2] = {1, 1};
            CHECK(earshot_ort_create_tensor_with_data(api, memory, in[i][0] == 't' ? tokens : beams, 8, shape, in[i][0] == 't' ? 2 : 1, 7, &values[i]));
            continue;
        }
        int64_t shape[4] = {1, heads, 0, 0}; size_t rank = 4, count = 1;
        if (!strncmp(in[i], "in_self_k", 9)) { shape[2] = width; shape[3] = positions; }
        else if (!strncmp(in[i], "in_self_v", 9)) { shape[2] = positions; shape[3] = width; }
        else { shape[2] = width * frames; rank = 3; }  // cross_k_i, cross_v_i [1, H, dh * T]
        for (size_t r = 0; r < rank; r++) count *= shape[r];
        float *data = malloc(count * sizeof(float));
        for (size_t k = 0; k < count; k++) data[k] = (float)((k * 7919) % 1000) / 4000.0f - 0.125f;
        CHECK(earshot_ort_create_tensor_with_data(api, memory, data, count * sizeof(float), shape, rank, 1, &values[i]));
    }
    size_t wanted = 0;
    for (size_t i = 0; i < outputs; i++) {
        char *name; CHECK(earshot_ort_output_name(api, session, i, allocator, &name));
        if (strcmp(name, "cross_qk")) out[wanted++] = name;  // word timing's scores are asked for once per window
    }
    double *ms = malloc(runs * sizeof(double));
    for (int r = 0; r < runs; r++) {
        struct timespec start, end; clock_gettime(CLOCK_MONOTONIC, &start);
        OrtValue *results[128] = {0};
        CHECK(earshot_ort_run(api, session, (const char *const *)in, (const OrtValue *const *)values, inputs, (const char *const *)out, wanted, results));
        for (size_t i = 0; i < wanted; i++) earshot_ort_release_value(api, results[i]);
        clock_gettime(CLOCK_MONOTONIC, &end);
        ms[r] = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
    }
    qsort(ms, runs, sizeof(double), by_value);
    printf("%s (ONNX Runtime %s): median %.3f ms a step, p10 %.3f, p90 %.3f over %d steps\n", argv[1], version, ms[runs / 2], ms[runs / 10], ms[runs * 9 / 10], runs);
    return 0;
}
