import Foundation

/// Where commands that turn each input file into a document (transcribe, diarize) put them: a file per input in
/// `--output DIR` (written atomically), or standard output — several text documents each under a `==> file <==`
/// banner, JSON documents gathered into one array (one input: the document alone). `--json` is `--format json`.
struct DocumentOutput {
    let folder: String?
    private let inputs: Int
    private var json: [String] = []

    /// The `--format` asked for, `--json` standing for `json`; both at once with another format is a usage error.
    static func format<T: RawRepresentable & CaseIterable>(_ args: ParsedArguments, default fallback: T, json: T) throws -> T
    where T.RawValue == String {
        if args.flag("json"), let format = args.value("format"), format != json.rawValue {
            throw UsageError(message: "--json and --format \(format) ask for two formats: give one", path: args.path)
        }
        return args.flag("json") ? json : try args.choice("format", default: fallback)
    }

    /// Checks there are inputs and makes the `--output` folder.
    init(_ args: ParsedArguments) throws {
        guard !args.positionals.isEmpty else {
            throw UsageError(message: "give at least one audio file, or '-' for standard input", path: args.path)
        }
        folder = args.value("output")
        inputs = args.positionals.count
        if let folder {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw UsageError(message: "cannot create output folder \(folder): \(error.localizedDescription)", path: args.path)
            }
        }
    }

    /// The input's name for a file of its own: its base name without extension ("stdin" for '-').
    static func name(of path: String) -> String {
        path == "-" ? "stdin" : ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// One input's document.
    mutating func emit(_ rendered: String, for path: String, fileExtension: String, isJSON: Bool) throws {
        if let folder {
            let target = URL(fileURLWithPath: folder).appendingPathComponent("\(Self.name(of: path)).\(fileExtension)")
            try Data(rendered.utf8).write(to: target, options: .atomic)
            StandardError.write("wrote \(target.path)\n")
        } else if isJSON {
            json.append(rendered.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            if inputs > 1 { print("==> \(path) <==") }
            print(rendered, terminator: "")
        }
    }

    /// Prints the JSON documents gathered (after the last input).
    func finish() {
        guard !json.isEmpty else { return }
        print(inputs > 1 ? "[\n" + json.joined(separator: ",\n") + "\n]" : json[0])
    }
}
