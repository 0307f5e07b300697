import Foundation

/// A private PulseAudio daemon with a 16 kHz virtual microphone (scripts/virtual-microphone.sh): what
/// `play` sends into its sink is what PortAudio records from the default input. Tests that need it skip
/// where it cannot start.
public struct VirtualMicrophone {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/virtual-microphone.sh").path
    public let directory: URL
    /// The variables a process needs to reach this daemon.
    public var environment: [String: String] {
        ["HOME": directory.path, "XDG_RUNTIME_DIR": directory.appendingPathComponent("run").path]
    }

    /// Starts the daemon in `directory`, or returns nil when PulseAudio is not installed or will not start.
    public static func start(in directory: URL) -> VirtualMicrophone? {
        guard (try? TestAudio.run(script, ["start", directory.path])) != nil else { return nil }
        return VirtualMicrophone(directory: directory)
    }

    public func stop() { _ = try? TestAudio.run(Self.script, ["stop", directory.path]) }

    /// Starts playing a file into the microphone; the returned process ends when it has played.
    @discardableResult
    public func play(_ file: URL) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["paplay", "-d", "vsink", file.path]
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }
}
