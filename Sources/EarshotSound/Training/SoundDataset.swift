import EarshotCore
import Foundation

/// Labelled recordings: a folder with one sub-folder per label (like Create ML). An optional meta CSV
/// (`path`, and `fold` and/or a source column such as `freesound_id` or `source`) says which files belong
/// to the same fold or come from the same source recording, so splits never separate them.
public struct SoundDataset: Sendable {
    public struct Item: Sendable, Equatable {
        public var path: String
        public var label: Int
        /// Files of one group stay on one side of any split.
        public var group: String
        public var fold: Int?
    }

    public var root: String
    public var labels: [String]
    public var items: [Item]

    /// Scans `directory`; `meta` defaults to `DIR/meta.csv` when present. Label folders without audio are
    /// reported, and fewer than two labels is an error.
    public static func scan(_ directory: String, meta: String? = nil, labels fixedLabels: [String]? = nil) throws -> SoundDataset {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw SoundError.badDataset(path: directory, problem: "not a folder (expected one sub-folder of audio per label)")
        }
        let folders = labelFolders(directory)
        var found: [String: [String]] = [:]
        for (folder, files) in folders where !files.isEmpty { found[folder] = files }
        let empty = folders.filter { $0.files.isEmpty }.map(\.name)
        let labels = fixedLabels ?? found.keys.sorted()
        if fixedLabels == nil {
            guard labels.count >= 2 else {
                let detail = empty.isEmpty ? "" : " (no audio in: \(empty.joined(separator: ", ")))"
                throw SoundError.badDataset(path: directory, problem: "needs at least two label folders with audio, found \(labels.count)\(detail)")
            }
        }
        var dataset = SoundDataset(root: directory, labels: labels, items: [])
        for (label, name) in labels.enumerated() {
            for path in found[name] ?? [] {
                dataset.items.append(Item(path: path, label: label, group: path, fold: nil))
            }
        }
        if let unknown = found.keys.first(where: { !labels.contains($0) }) {
            throw SoundError.badDataset(path: "\(directory)/\(unknown)", problem: "label '\(unknown)' is not one the model knows (\(labels.joined(separator: ", ")))")
        }
        let metaPath = meta ?? "\(directory)/meta.csv"
        if fm.fileExists(atPath: metaPath) { try dataset.apply(meta: metaPath) } else if meta != nil {
            throw SoundError.badDataset(path: metaPath, problem: "no such file")
        }
        return dataset
    }

    /// Label folders that held no audio (for a warning).
    public static func emptyLabelFolders(_ directory: String) -> [String] {
        labelFolders(directory).filter { $0.files.isEmpty }.map(\.name)
    }

    /// Each sub-folder (a label) with the audio files below it, followed through links, sorted.
    static func labelFolders(_ directory: String) -> [(name: String, files: [String])] {
        let fm = FileManager.default
        return ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).sorted().compactMap { name in
            var isDir: ObjCBool = false
            guard !name.hasPrefix("."), fm.fileExists(atPath: "\(directory)/\(name)", isDirectory: &isDir), isDir.boolValue else { return nil }
            return (name, AudioFiles.list(under: "\(directory)/\(name)"))
        }
    }

    mutating func apply(meta path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SoundError.badDataset(path: path, problem: "cannot read the meta file")
        }
        let rows = text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = rows.first, let pathColumn = header.firstIndex(of: "path") else {
            throw SoundError.badDataset(path: path, problem: "the meta CSV needs a 'path' column")
        }
        let foldColumn = header.firstIndex(of: "fold")
        let sourceColumn = ["source", "freesound_id", "group", "speaker"].compactMap { header.firstIndex(of: $0) }.first
        var byName: [String: (fold: Int?, group: String?)] = [:]
        for row in rows.dropFirst() where row.count == header.count {
            let fold = foldColumn.flatMap { Int(row[$0]) }
            let group = sourceColumn.map { row[$0] } ?? fold.map { "fold-\($0)" }
            byName[row[pathColumn]] = (fold, group)
            byName[(row[pathColumn] as NSString).lastPathComponent] = byName[row[pathColumn]]
        }
        for i in items.indices {
            let relative = String(items[i].path.dropFirst(root.count + 1))
            if let m = byName[relative] ?? byName[(items[i].path as NSString).lastPathComponent] {
                items[i].fold = m.fold
                if let g = m.group { items[i].group = "\(items[i].label)/\(g)" }
            }
        }
    }

    /// The items at `indices`, in that order.
    public func selecting(_ indices: [Int]) -> SoundDataset {
        SoundDataset(root: root, labels: labels, items: indices.map { items[$0] })
    }

    public func subset(_ keep: (Item) -> Bool) -> SoundDataset {
        SoundDataset(root: root, labels: labels, items: items.filter(keep))
    }

    /// A stratified split by group: about `fraction` of each label's groups go to the second part.
    public func split(validationFraction fraction: Double, seed: UInt64 = 7) -> (train: SoundDataset, validation: SoundDataset) {
        var rng = SplitMix64(seed: seed)
        var validationGroups = Set<String>()
        for label in labels.indices {
            var groups = Array(Set(items.filter { $0.label == label }.map(\.group))).sorted()
            groups.shuffle(using: &rng)
            let n = groups.count >= 2 ? max(1, Int((Double(groups.count) * fraction).rounded())) : 0
            validationGroups.formUnion(groups.prefix(n))
        }
        return (subset { !validationGroups.contains($0.group) }, subset { validationGroups.contains($0.group) })
    }

    /// Folds for cross-validation: the meta file's folds when every file has one, else k stratified group folds.
    public func folds(k: Int, seed: UInt64 = 7) -> [Int] {
        if items.allSatisfy({ $0.fold != nil }) { return items.map { $0.fold! } }
        var rng = SplitMix64(seed: seed)
        var foldOfGroup: [String: Int] = [:]
        for label in labels.indices {
            var groups = Array(Set(items.filter { $0.label == label }.map(\.group))).sorted()
            groups.shuffle(using: &rng)
            for (i, g) in groups.enumerated() { foldOfGroup[g] = i % k + 1 }
        }
        return items.map { foldOfGroup[$0.group]! }
    }
}
