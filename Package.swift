// swift-tools-version:6.0
// Earshot: on-device audio intelligence for Linux. One module per capability over a shared core;
// C libraries reached through system-library targets (headers come from Debian or from setup).
import PackageDescription

// No unsafe flags, so other packages can depend on this one. The native runtimes that Debian does not package
// (sherpa-onnx with ONNX Runtime, llama.cpp) are installed by scripts/setup.sh under EARSHOT_HOME with
// pkg-config files; builds find them through PKG_CONFIG_PATH=$EARSHOT_HOME/pkgconfig (the Makefile sets it).
let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "earshot", targets: ["earshot"]),
        // The process that owns a language model (crash isolation): the library finds it beside the program.
        .executable(name: "earshot-language-runner", targets: ["earshot-language-runner"]),
        .library(name: "EarshotSpeech", targets: ["EarshotSpeech"]),
        .library(name: "EarshotSound", targets: ["EarshotSound"]),
        .library(name: "EarshotVoice", targets: ["EarshotVoice"]),
        .library(name: "EarshotNotes", targets: ["EarshotNotes"]),
        .library(name: "EarshotLanguage", targets: ["EarshotLanguage"]),
        .library(name: "EarshotCore", targets: ["EarshotCore"]),
        .library(name: "EarshotServer", targets: ["EarshotServer"]),
        .library(name: "EarshotBatch", targets: ["EarshotBatch"]),
    ],
    targets: [
        // C bridges, all through pkg-config: Debian's libraries and the runtimes setup installs.
        .systemLibrary(name: "CSherpaOnnx", pkgConfig: "earshot-sherpa-onnx"),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CPortAudio", pkgConfig: "portaudio-2.0", providers: [.apt(["portaudio19-dev"])]),
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLlama", pkgConfig: "earshot-llama"),
        // glibc's posix_spawn close-from action, which its headers hide from Swift.
        .systemLibrary(name: "CSpawn"),
        // Our own declarations of the ONNX Runtime C API subset we call (no package ships its header), over the
        // ONNX Runtime that ships with sherpa-onnx: one copy of the runtime in the process.
        .target(name: "COnnxRuntime", dependencies: ["CSherpaOnnx"], linkerSettings: [.linkedLibrary("onnxruntime")]),
        // Integer matrix-vector products with the same answers on every CPU (Whisper's vocabulary projection).
        .target(name: "CInt8Kernels"),

        // Shared core: audio decoding, resampling, live sources, model locations, ONNX Runtime, log-mel
        // features, training math, errors, terminal output.
        .target(name: "EarshotCore", dependencies: ["CSndFile", "CSoxr", "CPortAudio", "CBLAS", "COnnxRuntime"]),
        // Capability: speech to text (files and live): Earshot's own Whisper decoding loop over ONNX Runtime
        // (zlib for the loop check, int8 kernels for the vocabulary projection),
        // sherpa-onnx's silero VAD.
        .target(name: "EarshotSpeech", dependencies: ["EarshotCore", "CSherpaOnnx", "CZlib", "CInt8Kernels"]),
        // Capability: sound classification (built-in AudioSet classifier, trained classifiers). Voice features weigh
        // their windows by speech's voice-activity detector.
        .target(name: "EarshotSound", dependencies: ["EarshotCore", "EarshotSpeech"]),
        // Capability: voice ID (enrolment trained on the device, verification, identification).
        // Uses speech's voice-activity detector to find the speech in clips.
        .target(name: "EarshotVoice", dependencies: ["EarshotCore", "EarshotSpeech"]),
        // Local language model and text embeddings (llama.cpp): titles, summaries, action items, meaning search.
        .target(name: "EarshotLanguage", dependencies: ["EarshotCore", "CLlama", "CSpawn"]),
        // Capability: voice notes (SQLite store, staged pipeline over speech, voices and language, search, export).
        .target(name: "EarshotNotes", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotVoice", "EarshotLanguage", "CSQLite"]),
        // Archives: jobs over many files with models loaded once (`earshot batch`, the Ray integration's worker).
        .target(name: "EarshotBatch", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotSound", "EarshotVoice"]),
        // HTTP on Debian's libmicrohttpd: a few C lines for what Swift cannot call (varargs, a union).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        // The local web app and its HTTP API (OpenAI-compatible transcription, the Earshot API, the pages).
        .target(name: "EarshotServer", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotSound", "EarshotVoice", "EarshotNotes",
                                                      "EarshotLanguage", "CMicroHTTPD"],
                resources: [.copy("Pages")]),
        // Thin command-line front end.
        .executableTarget(name: "earshot", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotSound", "EarshotVoice",
                                                          "EarshotNotes", "EarshotLanguage", "EarshotServer", "EarshotBatch"]),

        // A language model in a process of its own, started by EarshotLanguage's LanguageRunner.
        .executableTarget(name: "earshot-language-runner", dependencies: ["EarshotLanguage"]),

        // Benchmark driver for bench/notes.py: in-process search timings on a generated store.
        .executableTarget(name: "earshot-bench", dependencies: ["EarshotNotes", "EarshotLanguage"]),

        // Helpers shared by the test targets: espeak-ng synthesis, shared evaluation data, running the CLI.
        .target(name: "EarshotTestSupport", dependencies: ["EarshotCore"], path: "Tests/Support"),
        .testTarget(name: "EarshotCoreTests", dependencies: ["EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotSpeechTests", dependencies: ["EarshotSpeech", "EarshotCore", "EarshotTestSupport", "CInt8Kernels"]),
        .testTarget(name: "EarshotSoundTests", dependencies: ["EarshotSound", "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotVoiceTests", dependencies: ["EarshotVoice", "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotLanguageTests", dependencies: ["EarshotLanguage", "CLlama", "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotNotesTests", dependencies: ["EarshotNotes", "EarshotLanguage", "EarshotVoice", "EarshotCore", "EarshotTestSupport"]),
        // Each capability's entry type driven from 8 tasks at once (make tsan runs these under the thread sanitizer).
        .testTarget(name: "EarshotConcurrencyTests", dependencies: ["EarshotSpeech", "EarshotSound", "EarshotVoice", "EarshotNotes",
                                                                    "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotServerTests", dependencies: ["EarshotServer", "EarshotSpeech", "EarshotNotes", "EarshotLanguage",
                                                               "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotCLITests", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotTestSupport"]),
        .testTarget(name: "EarshotBatchTests", dependencies: ["EarshotBatch", "EarshotSpeech", "EarshotCore", "EarshotTestSupport"]),
    ]
)
