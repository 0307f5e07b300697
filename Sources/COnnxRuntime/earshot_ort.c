// Calls into the ONNX Runtime API table by ordinal; see include/earshot_ort.h.
#include "earshot_ort.h"

typedef struct {
    EarshotOrtApi (*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;

extern const OrtApiBase *OrtGetApiBase(void);

#define FN(api, ordinal, type) ((type)((void *const *)(api))[ordinal])

EarshotOrtApi earshot_ort_api(uint32_t version, const char **runtime_version) {
    const OrtApiBase *base = OrtGetApiBase();
    if (runtime_version) *runtime_version = base->GetVersionString();
    return base->GetApi(version);
}

OrtStatus *earshot_ort_create_status(EarshotOrtApi api, int code, const char *message) {
    return FN(api, 0, OrtStatus *(*)(int, const char *))(code, message);
}
int earshot_ort_error_code(EarshotOrtApi api, const OrtStatus *status) {
    return FN(api, 1, int (*)(const OrtStatus *))(status);
}
const char *earshot_ort_error_message(EarshotOrtApi api, const OrtStatus *status) {
    return FN(api, 2, const char *(*)(const OrtStatus *))(status);
}
void earshot_ort_release_status(EarshotOrtApi api, OrtStatus *status) {
    FN(api, 93, void (*)(OrtStatus *))(status);
}

OrtStatus *earshot_ort_create_env(EarshotOrtApi api, int level, const char *log_id, OrtEnv **out) {
    return FN(api, 3, OrtStatus *(*)(int, const char *, OrtEnv **))(level, log_id, out);
}
void earshot_ort_release_env(EarshotOrtApi api, OrtEnv *env) { FN(api, 92, void (*)(OrtEnv *))(env); }

OrtStatus *earshot_ort_create_session_options(EarshotOrtApi api, OrtSessionOptions **out) {
    return FN(api, 10, OrtStatus *(*)(OrtSessionOptions **))(out);
}
OrtStatus *earshot_ort_set_optimization_level(EarshotOrtApi api, OrtSessionOptions *o, int level) {
    return FN(api, 23, OrtStatus *(*)(OrtSessionOptions *, int))(o, level);
}
OrtStatus *earshot_ort_set_intra_op_threads(EarshotOrtApi api, OrtSessionOptions *o, int n) {
    return FN(api, 24, OrtStatus *(*)(OrtSessionOptions *, int))(o, n);
}
OrtStatus *earshot_ort_set_inter_op_threads(EarshotOrtApi api, OrtSessionOptions *o, int n) {
    return FN(api, 25, OrtStatus *(*)(OrtSessionOptions *, int))(o, n);
}
OrtStatus *earshot_ort_enable_cpu_arena(EarshotOrtApi api, OrtSessionOptions *o) {
    return FN(api, 18, OrtStatus *(*)(OrtSessionOptions *))(o);  // EnableCpuMemArena
}
void earshot_ort_release_session_options(EarshotOrtApi api, OrtSessionOptions *o) {
    FN(api, 100, void (*)(OrtSessionOptions *))(o);
}
OrtStatus *earshot_ort_session_config_entry(EarshotOrtApi api, const OrtSessionOptions *o, const char *key, char *value,
                                            size_t *size) {
    return FN(api, 238, OrtStatus *(*)(const OrtSessionOptions *, const char *, char *, size_t *))(o, key, value, size);
}

OrtStatus *earshot_ort_create_session(EarshotOrtApi api, const OrtEnv *env, const char *path,
                                      const OrtSessionOptions *o, OrtSession **out) {
    return FN(api, 7, OrtStatus *(*)(const OrtEnv *, const char *, const OrtSessionOptions *, OrtSession **))(
        env, path, o, out);
}
void earshot_ort_release_session(EarshotOrtApi api, OrtSession *s) { FN(api, 95, void (*)(OrtSession *))(s); }
OrtStatus *earshot_ort_input_count(EarshotOrtApi api, const OrtSession *s, size_t *out) {
    return FN(api, 30, OrtStatus *(*)(const OrtSession *, size_t *))(s, out);
}
OrtStatus *earshot_ort_output_count(EarshotOrtApi api, const OrtSession *s, size_t *out) {
    return FN(api, 31, OrtStatus *(*)(const OrtSession *, size_t *))(s, out);
}
OrtStatus *earshot_ort_input_name(EarshotOrtApi api, const OrtSession *s, size_t i, OrtAllocator *a, char **out) {
    return FN(api, 36, OrtStatus *(*)(const OrtSession *, size_t, OrtAllocator *, char **))(s, i, a, out);
}
OrtStatus *earshot_ort_output_name(EarshotOrtApi api, const OrtSession *s, size_t i, OrtAllocator *a, char **out) {
    return FN(api, 37, OrtStatus *(*)(const OrtSession *, size_t, OrtAllocator *, char **))(s, i, a, out);
}
OrtStatus *earshot_ort_run(EarshotOrtApi api, OrtSession *s, const char *const *input_names,
                           const OrtValue *const *inputs, size_t input_count, const char *const *output_names,
                           size_t output_count, OrtValue **outputs) {
    return FN(api, 9, OrtStatus *(*)(OrtSession *, const void *, const char *const *, const OrtValue *const *,
                                     size_t, const char *const *, size_t, OrtValue **))(
        s, NULL, input_names, inputs, input_count, output_names, output_count, outputs);
}

OrtStatus *earshot_ort_default_allocator(EarshotOrtApi api, OrtAllocator **out) {
    return FN(api, 78, OrtStatus *(*)(OrtAllocator **))(out);
}
OrtStatus *earshot_ort_allocator_free(EarshotOrtApi api, OrtAllocator *a, void *p) {
    return FN(api, 76, OrtStatus *(*)(OrtAllocator *, void *))(a, p);
}
OrtStatus *earshot_ort_create_cpu_memory_info(EarshotOrtApi api, OrtMemoryInfo **out) {
    // OrtArenaAllocator = 1, OrtMemTypeDefault = 0
    return FN(api, 69, OrtStatus *(*)(int, int, OrtMemoryInfo **))(1, 0, out);
}
void earshot_ort_release_memory_info(EarshotOrtApi api, OrtMemoryInfo *m) {
    FN(api, 94, void (*)(OrtMemoryInfo *))(m);
}

OrtStatus *earshot_ort_create_tensor_with_data(EarshotOrtApi api, const OrtMemoryInfo *m, void *data,
                                               size_t byte_count, const int64_t *shape, size_t rank,
                                               int element_type, OrtValue **out) {
    return FN(api, 49, OrtStatus *(*)(const OrtMemoryInfo *, void *, size_t, const int64_t *, size_t, int,
                                      OrtValue **))(m, data, byte_count, shape, rank, element_type, out);
}
OrtStatus *earshot_ort_tensor_data(EarshotOrtApi api, OrtValue *v, void **out) {
    return FN(api, 51, OrtStatus *(*)(OrtValue *, void **))(v, out);
}
OrtStatus *earshot_ort_tensor_shape_info(EarshotOrtApi api, const OrtValue *v, OrtTensorTypeAndShapeInfo **out) {
    return FN(api, 65, OrtStatus *(*)(const OrtValue *, OrtTensorTypeAndShapeInfo **))(v, out);
}
OrtStatus *earshot_ort_element_type(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, int *out) {
    return FN(api, 60, OrtStatus *(*)(const OrtTensorTypeAndShapeInfo *, int *))(i, out);
}
OrtStatus *earshot_ort_dimension_count(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, size_t *out) {
    return FN(api, 61, OrtStatus *(*)(const OrtTensorTypeAndShapeInfo *, size_t *))(i, out);
}
OrtStatus *earshot_ort_dimensions(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, int64_t *dims, size_t n) {
    return FN(api, 62, OrtStatus *(*)(const OrtTensorTypeAndShapeInfo *, int64_t *, size_t))(i, dims, n);
}
void earshot_ort_release_shape_info(EarshotOrtApi api, OrtTensorTypeAndShapeInfo *i) {
    FN(api, 99, void (*)(OrtTensorTypeAndShapeInfo *))(i);
}
void earshot_ort_release_value(EarshotOrtApi api, OrtValue *v) { FN(api, 96, void (*)(OrtValue *))(v); }
