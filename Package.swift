// swift-tools-version:6.0
// Earshot: on-device audio intelligence for Linux. One module per capability over a shared core;
// C libraries reached through system-library targets (headers come from Debian or from setup).
import Foundation
import PackageDescription

// scripts/setup.sh unpacks the sherpa-onnx C API and ONNX Runtime under EARSHOT_HOME; point the compiler
// and linker there (with an rpath, so the binaries find the libraries at run time).
let earshotHome = ProcessInfo.processInfo.environment["EARSHOT_HOME"].flatMap { $0.isEmpty ? nil : $0 }
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/earshot").path
let sherpa = "\(earshotHome)/runtime/sherpa-onnx"
let sherpaHeaders: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I\(sherpa)/include"])]
let sherpaLibraries: [LinkerSetting] = [
    .unsafeFlags(["-L\(sherpa)/lib", "-Xlinker", "-rpath", "-Xlinker", "\(sherpa)/lib"]),
]

// scripts/build-llama.sh builds libllama (+ ggml) from the pinned llama-cpp-python sdist into the same cache.
let llama = "\(earshotHome)/runtime/llama"
let llamaHeaders: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I\(llama)/include"])]
let llamaLibraries: [LinkerSetting] = [
    .unsafeFlags(["-L\(llama)/lib", "-Xlinker", "-rpath", "-Xlinker", "\(llama)/lib"]),
]

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "earshot", targets: ["earshot"]),
        .library(name: "EarshotSpeech", targets: ["EarshotSpeech"]),
        .library(name: "EarshotSound", targets: ["EarshotSound"]),
        .library(name: "EarshotVoice", targets: ["EarshotVoice"]),
        .library(name: "EarshotNotes", targets: ["EarshotNotes"]),
        .library(name: "EarshotLanguage", targets: ["EarshotLanguage"]),
        .library(name: "EarshotCore", targets: ["EarshotCore"]),
    ],
    targets: [
        // C bridges: Debian libraries through pkg-config, sherpa-onnx through the flags above.
        .systemLibrary(name: "CSherpaOnnx"),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CPortAudio", pkgConfig: "portaudio-2.0", providers: [.apt(["portaudio19-dev"])]),
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLlama"),
        // Our own declarations of the ONNX Runtime C API subset we call (no package ships its header).
        .target(name: "COnnxRuntime", linkerSettings: sherpaLibraries + [.linkedLibrary("onnxruntime")]),

        // Shared core: audio decoding, resampling, live sources, model locations, ONNX Runtime, log-mel
        // features, training math, errors, terminal output.
        .target(name: "EarshotCore", dependencies: ["CSndFile", "CSoxr", "CPortAudio", "CBLAS", "COnnxRuntime"]),
        // Capability: speech to text (files and live).
        .target(name: "EarshotSpeech", dependencies: ["EarshotCore", "CSherpaOnnx"],
                swiftSettings: sherpaHeaders, linkerSettings: sherpaLibraries),
        // Capability: sound classification (built-in AudioSet classifier, trained classifiers).
        .target(name: "EarshotSound", dependencies: ["EarshotCore"]),
        // Capability: voice ID (enrolment trained on the device, verification, identification).
        // Uses speech's voice-activity detector to find the speech in clips.
        .target(name: "EarshotVoice", dependencies: ["EarshotCore", "EarshotSpeech"],
                swiftSettings: sherpaHeaders, linkerSettings: sherpaLibraries),
        // Local language model and text embeddings (llama.cpp): titles, summaries, action items, meaning search.
        .target(name: "EarshotLanguage", dependencies: ["EarshotCore", "CLlama"],
                swiftSettings: llamaHeaders, linkerSettings: llamaLibraries),
        // Capability: voice notes (SQLite store, staged pipeline over speech and language, search, export).
        .target(name: "EarshotNotes", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotLanguage", "CSQLite"],
                swiftSettings: sherpaHeaders + llamaHeaders, linkerSettings: sherpaLibraries + llamaLibraries),
        // Thin command-line front end.
        .executableTarget(name: "earshot", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotSound", "EarshotVoice",
                                                          "EarshotNotes", "EarshotLanguage"],
                          swiftSettings: sherpaHeaders + llamaHeaders, linkerSettings: sherpaLibraries + llamaLibraries),

        // Benchmark driver for bench/notes.py: in-process search timings on a generated store.
        .executableTarget(name: "earshot-bench", dependencies: ["EarshotNotes", "EarshotLanguage"],
                          swiftSettings: sherpaHeaders + llamaHeaders, linkerSettings: sherpaLibraries + llamaLibraries),

        // Helpers shared by the test targets: espeak-ng synthesis, shared evaluation data, running the CLI.
        .target(name: "EarshotTestSupport", dependencies: ["EarshotCore"], path: "Tests/Support"),
        .testTarget(name: "EarshotCoreTests", dependencies: ["EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotSpeechTests", dependencies: ["EarshotSpeech", "EarshotCore", "EarshotTestSupport"],
                    swiftSettings: sherpaHeaders, linkerSettings: sherpaLibraries),
        .testTarget(name: "EarshotSoundTests", dependencies: ["EarshotSound", "EarshotCore", "EarshotTestSupport"]),
        .testTarget(name: "EarshotVoiceTests", dependencies: ["EarshotVoice", "EarshotCore", "EarshotTestSupport"],
                    swiftSettings: sherpaHeaders, linkerSettings: sherpaLibraries),
        .testTarget(name: "EarshotNotesTests", dependencies: ["EarshotNotes", "EarshotLanguage", "EarshotCore", "EarshotTestSupport"],
                    swiftSettings: sherpaHeaders + llamaHeaders, linkerSettings: sherpaLibraries + llamaLibraries),
        .testTarget(name: "EarshotCLITests", dependencies: ["EarshotCore", "EarshotSpeech", "EarshotTestSupport"],
                    swiftSettings: sherpaHeaders, linkerSettings: sherpaLibraries),
    ]
)
