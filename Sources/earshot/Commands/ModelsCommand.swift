import EarshotCore
import Foundation

/// `earshot models`: what setup installed, from the model catalogue.
enum ModelsCommand {
    static let command = Command(
        name: "models",
        abstract: "List the installed models and runtimes: what each is for, size, licence, and whether it is intact.",
        usage: "[--verify] [--json]",
        discussion: """
        Reads the model catalogue setup writes (EARSHOT_HOME/models/catalogue.json). A file is 'installed' when
        its size and modification time are as setup recorded them (with --verify, when its SHA-256 is), 'missing'
        when it is gone and 'modified' when it changed: Earshot refuses to load a modified file.
        Exit code 1 when anything is missing or modified.
        """,
        options: [
            Option(name: "verify", value: nil, help: "Check every file's SHA-256, not only its size and date."),
            Option(name: "json", value: nil, help: "Print JSON."),
        ],
        examples: ["earshot models", "earshot models --verify"],
        run: run)

    /// One catalogue entry as it stands on this machine.
    struct Entry: Encodable {
        let id: String, name: String, kind: String, capabilities: [String], licence: String, origin: String
        let bytes: Int
        let state: ModelCatalogue.FileState
        let problems: [String]
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let store = ModelStore()
        let catalogue = try ModelCatalogue.installed(in: store)
        let entries = catalogue.models.map { model in
            let states = model.files.map { ($0, ModelCatalogue.state(of: $0, home: store.home, thorough: args.flag("verify"))) }
            let problems = states.filter { $0.1 != .installed }.map { "\($0.0.path): \($0.1.rawValue)" }
            let state: ModelCatalogue.FileState = states.contains { $0.1 == .missing } ? .missing
                : states.contains { $0.1 == .modified } ? .modified : .installed
            return Entry(id: model.id, name: model.name, kind: model.kind, capabilities: model.capabilities, licence: model.licence,
                         origin: model.origin, bytes: model.files.reduce(0) { $0 + $1.bytes }, state: state, problems: problems)
        }
        let broken = entries.filter { $0.state != .installed }
        if args.flag("json") {
            try JSONOutput.document(entries)
        } else {
            print("installed in \(store.home.path)\n")
            for e in entries {
                let size = ByteCountFormatter.string(fromByteCount: Int64(e.bytes), countStyle: .file)
                print("\(e.id.padding(toLength: 26, withPad: " ", startingAt: 0)) \(e.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) "
                      + "\(size.padding(toLength: 9, withPad: " ", startingAt: 0)) \(e.capabilities.joined(separator: ", "))")
                print("    \(e.name); \(e.licence)")
                for p in e.problems { print("    \(p)") }
            }
            let total = ByteCountFormatter.string(fromByteCount: Int64(entries.reduce(0) { $0 + $1.bytes }), countStyle: .file)
            print("\n\(entries.count) entries, \(total)")
        }
        if !broken.isEmpty {
            StandardError.write("\(broken.count) not intact (\(broken.map(\.id).joined(separator: ", "))): run `\(ModelStore.installCommand)` "
                                + "in the Earshot source folder to reinstall\n")
            return 1
        }
        return 0
    }
}
