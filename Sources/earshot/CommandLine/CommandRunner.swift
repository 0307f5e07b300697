import EarshotCore
import Foundation

/// Walks the command tree, parses the leaf's options and runs it, turning errors into a one-line
/// message on stderr and an exit code: 0 success, 1 failure (some input could not be processed), 2 usage error.
enum CommandRunner {
    static let version = "0.1.0"

    static func run(_ root: Command, arguments: [String]) async -> Int32 {
        var node = root
        var path = [root.name]
        var rest = arguments
        while !node.subcommands.isEmpty {
            guard let first = rest.first else {
                print(node.help(path: path), terminator: "")
                return 0
            }
            if ["--help", "-h", "help"].contains(first) {
                if first == "help", rest.count > 1 { rest.removeFirst(); rest.append("--help"); continue }
                print(node.help(path: path), terminator: "")
                return 0
            }
            if first == "--version" && path.count == 1 {
                print("earshot \(version)")
                return 0
            }
            guard let sub = node.subcommands.first(where: { $0.name == first }) else {
                fail("unknown command '\(first)' (see '\(path.joined(separator: " ")) --help')")
                return 2
            }
            node = sub
            path.append(first)
            rest.removeFirst()
        }
        do {
            if rest.contains("-h") { rest = rest.map { $0 == "-h" ? "--help" : $0 } }
            let parsed = try ArgumentParser.parse(rest, for: node, path: path)
            if parsed.flag("help") {
                print(node.help(path: path), terminator: "")
                return 0
            }
            return try await node.run!(parsed)
        } catch let error as UsageError {
            fail(error.localizedDescription)
            return 2
        } catch {
            fail(error)
            return 1
        }
    }

    static func fail(_ message: String) {
        StandardError.write("earshot: error: \(message)\n")
    }

    /// A library error, with what to do about it.
    static func fail(_ error: Error) {
        fail(ErrorHints.message(for: error))
    }
}
