import Foundation

/// What `earshot sound classify --windows --json` says about a file's first window, for comparing a
/// trained model with its ONNX export.
public enum SoundCLI {
    /// The first window's top `k` labels and their probabilities (printed to 4 decimals).
    public static func firstWindow(model: String, file: String, top k: Int) throws -> [(label: String, probability: Double)] {
        let r = try CLI.run(["sound", "classify", "--model", model, "--windows", "--json", "--top", String(k), file])
        guard r.status == 0, let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let windows = doc["windows"] as? [[String: Any]], let top = windows.first?["top"] as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "sound classify failed: \(r.stderr)"])
        }
        return top.map { ($0["label"] as! String, $0["confidence"] as! Double) }
    }
}
