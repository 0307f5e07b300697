import Foundation

/// Runs the built `earshot` executable, as a user would.
public enum CLI {
    public struct Result {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public static var executable: URL {
        // the test bundle sits in the same build products folder as the executable
        let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("earshot")
    }

    public static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try p.run()
        if let stdin {
            DispatchQueue.global().async {
                input.fileHandleForWriting.write(stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        let errData = ErrorCollector(err.fileHandleForReading)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: data, as: UTF8.self),
                      stderr: String(decoding: errData.wait(), as: UTF8.self))
    }
}

/// Drains a pipe on another thread so neither stream can block the child.
final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    init(_ handle: FileHandle) {
        DispatchQueue.global().async {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }
    }
    func wait() -> Data { done.wait(); return data }
}
