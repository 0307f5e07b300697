import EarshotCore
@testable import EarshotSound
import EarshotTestSupport
import Foundation
import XCTest

/// Training on tones vs noise vs speech learns them perfectly; models round-trip and refuse damage.
final class TrainingTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func trainer() throws -> SoundClassifierTrainer {
        SoundClassifierTrainer(embedder: try SoundEmbedder(), cache: EmbeddingCache(store: ModelStore()))
    }

    func testSmallSyntheticSetIsLearnedPerfectly() throws {
        let trainDir = dir.appendingPathComponent("train"), testDir = dir.appendingPathComponent("test")
        try SoundFixtures.makeDataset(in: trainDir, perLabel: 6)
        try SoundFixtures.makeDataset(in: testDir, perLabel: 3, offset: 6)
        let t = try trainer()
        let train = try SoundDataset.scan(trainDir.path)
        XCTAssertEqual(train.labels, ["noise", "speech", "tone"])
        let (fit, validation) = train.split(validationFraction: 0.2)
        let model = try t.fit(train: fit, trainWindows: t.embeddings(of: fit).windows,
                              validation: validation, validationWindows: t.embeddings(of: validation).windows)
        let test = try SoundDataset.scan(testDir.path, labels: model.labels)
        let predictions = SoundClassifierTrainer.predict(model, t.embeddings(of: test).windows)
        let report = ClassificationReport(labels: model.labels, truth: test.items.map(\.label), predicted: predictions.map { $0! })
        XCTAssertEqual(report.accuracy, 1.0, report.text)

        // the model file round-trips exactly
        let path = dir.appendingPathComponent("sounds.model").path
        try model.save(to: path)
        XCTAssertEqual(try SoundClassifierModel.load(from: path), model)
    }

    func testDamagedOrForeignModelFilesAreRefused() throws {
        let path = dir.appendingPathComponent("x.model").path
        let head = ClassifierHead(inputSize: 1024, classes: 2, hidden: nil, mean: [Float](repeating: 0, count: 1024),
                                  std: [Float](repeating: 1, count: 1024))
        let model = SoundClassifierModel(labels: ["a", "b"], window: WindowSettings(), frontEnd: .yamnet,
                                         embeddingModel: "some-other-network", embeddingModelHash: "abc", head: head, training: nil)
        try model.save(to: path)
        XCTAssertThrowsError(try model.checkCompatible(with: try SoundEmbedder(), path: path)) {
            XCTAssertTrue($0.localizedDescription.contains("trained on the embedding network some-other-network"), $0.localizedDescription)
        }
        let full = try Data(contentsOf: URL(fileURLWithPath: path))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try SoundClassifierModel.load(from: path)) {
            XCTAssertTrue($0.localizedDescription.contains("x.model:"), $0.localizedDescription)
        }
        try Data("{\"hello\": 1}".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try SoundClassifierModel.load(from: path)) {
            XCTAssertTrue($0.localizedDescription.contains("not an Earshot sound classifier"), $0.localizedDescription)
        }
    }

    /// Damage that still decodes is refused with what is wrong: never a crash, a huge allocation or a wrong answer.
    func testModelsWithBadShapesRangesOrNumbersAreRefused() throws {
        let path = dir.appendingPathComponent("bad.model").path
        let head = ClassifierHead(inputSize: 1024, classes: 2, hidden: 8, mean: [Float](repeating: 0, count: 1024),
                                  std: [Float](repeating: 1, count: 1024))
        let good = SoundClassifierModel(labels: ["a", "b"], window: WindowSettings(), frontEnd: .yamnet,
                                        embeddingModel: SoundEmbedder.modelIdentity, embeddingModelHash: "abc", head: head, training: nil)
        try good.save(to: path)
        XCTAssertEqual(try SoundClassifierModel.load(from: path), good)
        func damaged(_ change: (inout SoundClassifierModel) -> Void) -> SoundClassifierModel { var m = good; change(&m); return m }
        let cases: [(SoundClassifierModel, String)] = [
            (damaged { $0.head.mean.removeLast() }, "standardisation has 1023 means"),
            (damaged { $0.head.layers[1].bias.removeLast() }, "layer 2 is 8×2 with 1 biases"),
            (damaged { $0.labels = ["a", "b", "c"] }, "gives 2 outputs for 3 classes"),
            (damaged { $0.labels = ["a", "a"] }, "distinct"),
            (damaged { $0.window.duration = 1e9 }, "window of 1000000000.0 s"),
            (damaged { $0.window.duration = 0 }, "window of 0.0 s"),
            (damaged { $0.window.overlap = 1 }, "overlap 1.0"),
            (damaged { $0.frontEnd.fftSize = 0 }, "front-end settings are not those of the yamnet network"),
            (damaged { $0.frontEnd.melBands = 0 }, "front-end settings"),
            // finite but overflowing: every weight 3e38 makes the first layer's sums infinite
            (damaged { $0.head.layers[0].weights.values = $0.head.layers[0].weights.values.map { _ in 3e38 } }, "numbers overflow"),
            (damaged { $0.head.scale = $0.head.scale.map { _ in 3e38 } }, "numbers overflow"),
        ]
        for (bad, message) in cases {
            try bad.save(to: path)
            XCTAssertThrowsError(try SoundClassifierModel.load(from: path), message) {
                XCTAssertTrue($0.localizedDescription.contains("bad.model: ") && $0.localizedDescription.contains(message),
                              "\($0.localizedDescription) lacks \(message)")
            }
        }
        // JSON has no NaN or infinity: a number too large for a Float is refused while decoding
        try good.save(to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"bias\":[0", with: "\"bias\":[1e999")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SoundClassifierModel.load(from: path)) {
            XCTAssertTrue($0.localizedDescription.contains("bad.model: damaged contents"), $0.localizedDescription)
        }
    }

    func testBadDatasetsSayWhatIsWrong() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("only/dog"), withIntermediateDirectories: true)
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 1, rate: 16000), rate: 16000)
            .write(to: dir.appendingPathComponent("only/dog/a.wav"))
        try fm.createDirectory(at: dir.appendingPathComponent("only/cat"), withIntermediateDirectories: true)
        try Data("not audio".utf8).write(to: dir.appendingPathComponent("only/cat/readme.txt"))
        XCTAssertThrowsError(try SoundDataset.scan(dir.appendingPathComponent("only").path)) {
            XCTAssertTrue($0.localizedDescription.contains("needs at least two label folders with audio, found 1 (no audio in: cat)"),
                          $0.localizedDescription)
        }
        XCTAssertEqual(SoundDataset.emptyLabelFolders(dir.appendingPathComponent("only").path), ["cat"])
        XCTAssertThrowsError(try SoundDataset.scan(dir.appendingPathComponent("missing").path))
    }

    func testCorruptFilesAreSkippedAndTrainingGoesOn() throws {
        try SoundFixtures.makeDataset(in: dir, perLabel: 3)
        try Data("garbage".utf8).write(to: dir.appendingPathComponent("tone/broken.wav"))
        let t = try trainer()
        let data = try SoundDataset.scan(dir.path)
        let (windows, skipped) = t.embeddings(of: data)
        XCTAssertEqual(skipped.map { ($0.path as NSString).lastPathComponent }, ["broken.wav"])
        XCTAssertEqual(windows.compactMap { $0 }.count, 9)
        XCTAssertNoThrow(try t.fit(train: data, trainWindows: windows, validation: nil, validationWindows: nil))
    }

    /// A label folder whose every file is unreadable is refused by name, not trained into a class with no data.
    func testALabelWithNoReadableAudioIsRefused() throws {
        try SoundFixtures.makeDataset(in: dir, perLabel: 3)
        let bad = dir.appendingPathComponent("bad")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data().write(to: bad.appendingPathComponent("zero.wav"))
        try Data("garbage".utf8).write(to: bad.appendingPathComponent("junk.wav"))
        let t = try trainer()
        for run in [{ _ = try t.train(folder: self.dir.path) }, { _ = try t.crossValidate(folder: self.dir.path, k: 2) }] {
            XCTAssertThrowsError(try run()) { error in
                let message = error.localizedDescription
                XCTAssertTrue(message.hasPrefix(bad.path + ": no readable audio in label 'bad'"), message)
                XCTAssertTrue(message.contains("zero.wav"), message)
            }
        }
    }

    /// A folder named like audio ("x.wav") is skipped with its path and why, like every other skipped file.
    func testASkippedFolderNamedLikeAudioIsNamed() throws {
        try SoundFixtures.makeDataset(in: dir, perLabel: 3)
        let folder = dir.appendingPathComponent("tone/x.wav")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = try SoundDataset.scan(dir.path)
        let skipped = try trainer().embeddings(of: data).skipped
        XCTAssertTrue(skipped.contains { $0.reason == "\(folder.path): cannot read file (is a directory)" }, "\(skipped)")
    }

    func testEmbeddingCacheServesUnchangedFiles() throws {
        try SoundFixtures.makeDataset(in: dir, perLabel: 1)
        let t = try trainer()
        let data = try SoundDataset.scan(dir.path)
        let first = t.embeddings(of: data).windows
        let again = t.embeddings(of: data).windows
        XCTAssertEqual(first.map { $0?.map(\.embedding) }, again.map { $0?.map(\.embedding) })
        let data0 = try Data(contentsOf: URL(fileURLWithPath: data.items[0].path))
        let key = t.cache.key(contentHash: SHA256.hex(data0), window: t.window, modelHash: t.embedder.modelHash)
        XCTAssertNotNil(t.cache.load(key), "embeddings are cached by content")
    }
}
