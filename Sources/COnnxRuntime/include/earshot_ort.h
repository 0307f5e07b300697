// Earshot's own declarations of the part of the ONNX Runtime C API it uses (no ONNX Runtime header is
// shipped by any installable package). OrtApi is a table of function pointers whose ordinals never
// change (entries are only appended); each wrapper below calls one entry with its documented signature.
// A wrong ordinal does not fail loudly, so the Swift side checks the version string and known errors.
#ifndef EARSHOT_ORT_H
#define EARSHOT_ORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtAllocator OrtAllocator;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef void *EarshotOrtApi;  // const OrtApi*, used only as a table

enum { EARSHOT_ORT_LOGGING_FATAL = 4, EARSHOT_ORT_ENABLE_ALL = 99 };
enum { EARSHOT_ORT_FLOAT = 1, EARSHOT_ORT_UINT8 = 2, EARSHOT_ORT_INT8 = 3, EARSHOT_ORT_INT64 = 7 };

/// Whether every ONNX Runtime session in the process, sherpa-onnx's included, is created without the CPU memory
/// arena and memory patterns (earshot_ort_options.c): true when the process resolves OrtGetApiBase to Earshot's.
int earshot_ort_options_in_effect(void);

/// The API table for `version`, or NULL (this build accepts 1...28). Also returns the runtime's version.
EarshotOrtApi earshot_ort_api(uint32_t version, const char **runtime_version);

OrtStatus *earshot_ort_create_status(EarshotOrtApi api, int code, const char *message);
int earshot_ort_error_code(EarshotOrtApi api, const OrtStatus *status);
const char *earshot_ort_error_message(EarshotOrtApi api, const OrtStatus *status);
void earshot_ort_release_status(EarshotOrtApi api, OrtStatus *status);

OrtStatus *earshot_ort_create_env(EarshotOrtApi api, int level, const char *log_id, OrtEnv **out);
void earshot_ort_release_env(EarshotOrtApi api, OrtEnv *env);

OrtStatus *earshot_ort_create_session_options(EarshotOrtApi api, OrtSessionOptions **out);
OrtStatus *earshot_ort_set_optimization_level(EarshotOrtApi api, OrtSessionOptions *o, int level);
OrtStatus *earshot_ort_set_intra_op_threads(EarshotOrtApi api, OrtSessionOptions *o, int n);
OrtStatus *earshot_ort_set_inter_op_threads(EarshotOrtApi api, OrtSessionOptions *o, int n);
/// Turns ONNX Runtime's CPU memory arena back on in options that Earshot's CreateSessionOptions made without it
/// (earshot_ort_options.c): for a session whose inputs have a bounded size.
OrtStatus *earshot_ort_enable_cpu_arena(EarshotOrtApi api, OrtSessionOptions *o);
void earshot_ort_release_session_options(EarshotOrtApi api, OrtSessionOptions *o);
/// A session option's value as text (GetSessionConfigEntry): `*size` in, the length with its NUL out.
OrtStatus *earshot_ort_session_config_entry(EarshotOrtApi api, const OrtSessionOptions *o, const char *key, char *value,
                                            size_t *size);

OrtStatus *earshot_ort_create_session(EarshotOrtApi api, const OrtEnv *env, const char *path,
                                      const OrtSessionOptions *o, OrtSession **out);
void earshot_ort_release_session(EarshotOrtApi api, OrtSession *s);
OrtStatus *earshot_ort_input_count(EarshotOrtApi api, const OrtSession *s, size_t *out);
OrtStatus *earshot_ort_output_count(EarshotOrtApi api, const OrtSession *s, size_t *out);
OrtStatus *earshot_ort_input_name(EarshotOrtApi api, const OrtSession *s, size_t i, OrtAllocator *a, char **out);
OrtStatus *earshot_ort_output_name(EarshotOrtApi api, const OrtSession *s, size_t i, OrtAllocator *a, char **out);
OrtStatus *earshot_ort_run(EarshotOrtApi api, OrtSession *s, const char *const *input_names,
                           const OrtValue *const *inputs, size_t input_count, const char *const *output_names,
                           size_t output_count, OrtValue **outputs);

OrtStatus *earshot_ort_default_allocator(EarshotOrtApi api, OrtAllocator **out);
OrtStatus *earshot_ort_allocator_free(EarshotOrtApi api, OrtAllocator *a, void *p);
OrtStatus *earshot_ort_create_cpu_memory_info(EarshotOrtApi api, OrtMemoryInfo **out);
void earshot_ort_release_memory_info(EarshotOrtApi api, OrtMemoryInfo *m);

OrtStatus *earshot_ort_create_tensor_with_data(EarshotOrtApi api, const OrtMemoryInfo *m, void *data,
                                               size_t byte_count, const int64_t *shape, size_t rank,
                                               int element_type, OrtValue **out);
OrtStatus *earshot_ort_tensor_data(EarshotOrtApi api, OrtValue *v, void **out);
OrtStatus *earshot_ort_tensor_shape_info(EarshotOrtApi api, const OrtValue *v, OrtTensorTypeAndShapeInfo **out);
OrtStatus *earshot_ort_element_type(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, int *out);
OrtStatus *earshot_ort_dimension_count(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, size_t *out);
OrtStatus *earshot_ort_dimensions(EarshotOrtApi api, const OrtTensorTypeAndShapeInfo *i, int64_t *dims, size_t n);
void earshot_ort_release_shape_info(EarshotOrtApi api, OrtTensorTypeAndShapeInfo *i);
void earshot_ort_release_value(EarshotOrtApi api, OrtValue *v);

#endif
