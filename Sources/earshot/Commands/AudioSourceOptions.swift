import EarshotCore
import Foundation

/// Where live commands get audio: the microphone (no argument), raw PCM on stdin ('-'), or a file
/// replayed. Shared by `listen` and `sound listen`.
enum AudioSourceOptions {
    static let all = [
        Option(name: "realtime", value: nil, help: "Replay a file at real speed (demos, latency checks)."),
        Option(name: "rate", value: "hz", help: "Sample rate of raw standard input (default 16000)."),
        Option(name: "sample-format", value: "fmt", help: "Raw standard input samples: s16le (default) or f32le."),
        Option(name: "channels", value: "n", help: "Channels of raw standard input (default 1)."),
    ]

    static func source(_ args: ParsedArguments, argument: String?) throws -> AudioSource {
        switch argument {
        case nil: return MicrophoneSource()
        case "-":
            return RawPCMSource(rate: try args.int("rate", default: 16_000, range: 1000...384_000),
                                format: try args.choice("sample-format", default: .s16le),
                                channels: try args.int("channels", default: 1, range: 1...32))
        case let path?:
            return try FileReplaySource(path: path, realtime: args.flag("realtime"))  // a bad file fails here, before any model loads
        }
    }
}
