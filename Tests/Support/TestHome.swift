import EarshotCore
import Foundation

/// A private EARSHOT_HOME for a test: its own notes and profiles, the real runtimes and models linked in.
public enum TestHome {
    public static func make(linking extra: [String] = []) throws -> URL {
        let home = TestAudio.temporaryDirectory()
        for name in ["runtime", "models"] + extra {
            let link = home.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: ModelStore.defaultHome.appendingPathComponent(name))
        }
        return home
    }
}
