// swift-tools-version:6.0
// Earshot used as any other Swift package would use it: a path dependency, no flags of its own. Each
// executable is the code of one guide in ../docs. Build with PKG_CONFIG_PATH=$EARSHOT_HOME/pkgconfig
// (where setup installs the native runtimes' pkg-config files); `make examples` builds and runs them all.
import PackageDescription

// SwiftPM names a path dependency after its folder: whatever folder Earshot was cloned into.
let earshot = Context.packageDirectory.split(separator: "/").dropLast().last.map { $0.lowercased() } ?? "earshot"

func example(_ name: String, _ products: [String]) -> Target {
    .executableTarget(name: name, dependencies: products.map { .product(name: $0, package: earshot) })
}

let package = Package(
    name: "EarshotExamples",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        example("transcribe-file", ["EarshotSpeech"]),
        example("classify-sound", ["EarshotSound"]),
        example("verify-voice", ["EarshotVoice"]),
        example("who-spoke", ["EarshotSpeech", "EarshotVoice"]),
        example("search-notes", ["EarshotNotes"]),
    ]
)
