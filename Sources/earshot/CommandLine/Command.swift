import EarshotCore
import Foundation

/// An option a command accepts: `--name VALUE`, or a flag when `value` is nil.
struct Option: Sendable {
    let name: String
    var value: String?
    let help: String
    /// A one-letter alias, as in `-o`.
    var short: Character? = nil
}

/// A node of the command tree: `earshot <group> <verb> [options] <args>`. Groups have subcommands;
/// leaves have a `run` body. Everything a user sees in `--help` is declared here.
struct Command: Sendable {
    let name: String
    let abstract: String
    var usage: String = ""
    var discussion: String = ""
    var options: [Option] = []
    var examples: [String] = []
    var subcommands: [Command] = []
    var run: (@Sendable (ParsedArguments) async throws -> Int32)?

    static let helpOption = Option(name: "help", value: nil, help: "Show this help.")

    func help(path: [String]) -> String {
        var out = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { out += "\n\(discussion)\n" }
        let full = path.joined(separator: " ")
        out += "\nUSAGE: \(full) \(usage.isEmpty ? (subcommands.isEmpty ? "[options]" : "<subcommand>") : usage)\n"
        if !subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            // at least two spaces after the longest name ("cross-validate" once ran into its abstract)
            let column = max(14, subcommands.map(\.name.count).max()! + 2)
            for sub in subcommands { out += "  " + sub.name.padding(toLength: column, withPad: " ", startingAt: 0) + sub.abstract + "\n" }
            out += "\n  See '\(full) <subcommand> --help' for details.\n"
        }
        let all = options + [Command.helpOption]
        if run != nil || !options.isEmpty {
            out += "\nOPTIONS:\n"
            let labels = all.map { o in (o.short.map { "-\($0), " } ?? "") + "--\(o.name)" + (o.value.map { " <\($0)>" } ?? "") }
            let column = max(24, labels.map(\.count).max()! + 2)
            for (o, label) in zip(all, labels) { out += "  " + label.padding(toLength: column, withPad: " ", startingAt: 0) + o.help + "\n" }
        }
        if !examples.isEmpty {
            out += "\nEXAMPLES:\n" + examples.map { "  \($0)\n" }.joined()
        }
        return out
    }
}

struct UsageError: Error, LocalizedError {
    let message: String
    let path: [String]
    var errorDescription: String? { "\(message)\n(see '\(path.joined(separator: " ")) --help')" }
}

/// What the parser found: option values, flags and positional arguments ("-" stays positional: stdin).
struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var path: [String] = []

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(message: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", path: path)
        }
        return n
    }

    /// A whole number when the option was given, nil when not.
    func optionalInt(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        values[name] == nil ? nil : try int(name, default: range.lowerBound, range: range)
    }

    func double(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let x = Double(text), x.isFinite, range.contains(x) else {
            throw UsageError(message: "--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", path: path)
        }
        return x
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T) throws -> T where T.RawValue == String {
        guard let text = values[name] else { return fallback }
        guard let v = T(rawValue: text) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "--\(name) must be one of: \(choices); got '\(text)'", path: path)
        }
        return v
    }
}

enum ArgumentParser {
    /// Parses `arguments` (after the command path) against a leaf command's options.
    static func parse(_ arguments: [String], for command: Command, path: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments(path: path)
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            var name: String
            if !onlyPositionals, arg.count == 2, arg.hasPrefix("-"), arg != "--",
               let option = command.options.first(where: { $0.short == arg.last }) {
                name = option.name
            } else if onlyPositionals || !arg.hasPrefix("--") || arg == "--" {
                if arg == "--" && !onlyPositionals { onlyPositionals = true } else { parsed.positionals.append(arg) }
                continue
            } else {
                name = String(arg.dropFirst(2))
            }
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = (command.options + [Command.helpOption]).first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option '--\(name)'", path: path)
            }
            if option.value == nil {
                if inline != nil { throw UsageError(message: "--\(name) takes no value", path: path) }
                parsed.flags.insert(name)
            } else if let v = inline {
                parsed.values[name] = v
            } else {
                guard i < arguments.count else { throw UsageError(message: "--\(name) needs a value <\(option.value!)>", path: path) }
                // `--output --json` is a forgotten value, not a folder named "--json"
                guard !(arguments[i].hasPrefix("--") && arguments[i].count > 2) else {
                    throw UsageError(message: "--\(name) needs a value <\(option.value!)>, got the option \(arguments[i]) "
                                     + "(write --\(name)=\(arguments[i]) if that really is the value)", path: path)
                }
                parsed.values[name] = arguments[i]
                i += 1
            }
        }
        return parsed
    }
}
