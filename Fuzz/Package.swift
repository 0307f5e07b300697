// swift-tools-version:6.0
// libFuzzer targets for the loaders of every file Earshot reads: WAV audio, voice profiles, sound models; and
// for `earshot serve`'s request handling (any bytes as an HTTP request) and its Realtime WebSocket (any bytes
// after the handshake).
// A separate package (libFuzzer brings its own `main`), built by `make fuzz` with the fuzzer and address
// sanitizers; see ../docs/fuzzing.md.
import PackageDescription

let earshot = Context.packageDirectory.split(separator: "/").dropLast().last.map { $0.lowercased() } ?? "earshot"

let package = Package(
    name: "EarshotFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "fuzz-wav", dependencies: [.product(name: "EarshotCore", package: earshot)]),
        .executableTarget(name: "fuzz-profile", dependencies: [.product(name: "EarshotVoice", package: earshot)]),
        .executableTarget(name: "fuzz-sound-model", dependencies: [.product(name: "EarshotSound", package: earshot),
                                                                   .product(name: "EarshotCore", package: earshot)]),
        .executableTarget(name: "fuzz-http", dependencies: [.product(name: "EarshotServer", package: earshot),
                                                            .product(name: "EarshotCore", package: earshot)]),
        .executableTarget(name: "fuzz-websocket", dependencies: [.product(name: "EarshotServer", package: earshot),
                                                                 .product(name: "EarshotCore", package: earshot)]),
    ]
)
