// Session options for sessions Earshot does not create itself.
//
// sherpa-onnx creates its Whisper and VAD sessions with ONNX Runtime's default options, whose CPU memory arena
// and memory patterns keep the high-water mark of every run: over two hours of pieces of every length Whisper
// base grew the process from 607 MB (one 28 s piece) to 824 MB, and sherpa-onnx's C API cannot change session
// options. So Earshot defines OrtGetApiBase itself. The dynamic linker binds every reference to it, sherpa-onnx's
// included, to this definition (the program's own symbols come before any library's), and it hands out ONNX
// Runtime's own API table with one entry changed: CreateSessionOptions, which also turns the arena and memory
// patterns off in the options it creates. Every other entry is ONNX Runtime's. Without them the transcript of a
// 24-minute recording is byte-identical and its peak 507 MB instead of 654 MB (BENCHMARKS.md).
//
// The same options also stop the thread pools spinning while they wait for work (unless EARSHOT_ORT_SPIN is set):
// a spinning thread burns a core another process (a second transcription, the language model, a Ray actor, the
// tests' other lane) needs. Two transcriptions side by side took 0.86 of the time without it, one alone the same
// (0.99) with 8% less CPU time (bench/spinning.py, BENCHMARKS.md).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "earshot_ort.h"

typedef struct {
    EarshotOrtApi (*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;

enum { CREATE_SESSION_OPTIONS = 10, DISABLE_MEM_PATTERN = 17, DISABLE_CPU_MEM_ARENA = 19, RELEASE_STATUS = 93,
       ADD_SESSION_CONFIG_ENTRY = 130 };
enum { MAX_ENTRIES = 1024 };

static const OrtApiBase *runtime_base;
static OrtApiBase earshot_base;
static void *table[MAX_ENTRIES];
static const void *runtime_table;
static OrtStatus *(*runtime_create_options)(OrtSessionOptions **);
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void release(OrtStatus *status) {
    if (status) ((void (*)(OrtStatus *))table[RELEASE_STATUS])(status);
}

static OrtStatus *create_options(OrtSessionOptions **out) {
    OrtStatus *status = runtime_create_options(out);
    if (status == NULL) {
        release(((OrtStatus * (*)(OrtSessionOptions *)) table[DISABLE_CPU_MEM_ARENA])(*out));
        release(((OrtStatus * (*)(OrtSessionOptions *)) table[DISABLE_MEM_PATTERN])(*out));
        if (!getenv("EARSHOT_ORT_SPIN")) {
            OrtStatus *(*add)(OrtSessionOptions *, const char *, const char *) =
                (OrtStatus * (*)(OrtSessionOptions *, const char *, const char *)) table[ADD_SESSION_CONFIG_ENTRY];
            release(add(*out, "session.intra_op.allow_spinning", "0"));
            release(add(*out, "session.inter_op.allow_spinning", "0"));
        }
    }
    return status;
}

/// The number of leading entries of `t` that are functions of the library its first entry lives in: the
/// table's length (ONNX Runtime keeps no count; a few entries more are copied at worst, never called).
static size_t table_length(void *const *t) {
    Dl_info first, entry;
    if (!dladdr(t[0], &first)) return 0;
    size_t n = 0;
    while (n < MAX_ENTRIES && t[n] && dladdr(t[n], &entry) && entry.dli_fbase == first.dli_fbase) n++;
    return n;
}

static EarshotOrtApi get_api(uint32_t version) {
    void *const *t = (void *const *)runtime_base->GetApi(version);
    if (t == NULL) return NULL;
    pthread_mutex_lock(&table_lock);
    if (runtime_table == NULL) {  // every version's table is the same one, the runtime's latest
        size_t n = table_length(t);
        if (n > ADD_SESSION_CONFIG_ENTRY) {
            memcpy(table, t, n * sizeof(void *));
            runtime_create_options = (OrtStatus * (*)(OrtSessionOptions **)) table[CREATE_SESSION_OPTIONS];
            table[CREATE_SESSION_OPTIONS] = (void *)create_options;
            runtime_table = t;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return runtime_table == t ? (EarshotOrtApi)table : (EarshotOrtApi)t;
}

static void find_runtime(void) {
    const OrtApiBase *(*next)(void) = (const OrtApiBase *(*)(void))dlsym(RTLD_NEXT, "OrtGetApiBase");
    runtime_base = next ? next() : NULL;
    if (runtime_base) {
        earshot_base.GetApi = get_api;
        earshot_base.GetVersionString = runtime_base->GetVersionString;
    }
}

const OrtApiBase *OrtGetApiBase(void) {
    pthread_once(&once, find_runtime);
    return runtime_base ? &earshot_base : NULL;
}

int earshot_ort_options_in_effect(void) {
    return dlsym(RTLD_DEFAULT, "OrtGetApiBase") == (void *)OrtGetApiBase;
}
