import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given a model file that is not the one setup installed, expect it refused with an error naming it.
final class ModelCatalogueTests: XCTestCase {
    let vad = "models/silero-vad/silero_vad.onnx"

    /// A home holding the installed catalogue and a copy of the VAD model (a fresh copy: a new modification time).
    func homeWithCopiedModel() throws -> URL {
        let installed = ModelStore.defaultHome
        guard FileManager.default.fileExists(atPath: installed.appendingPathComponent(ModelCatalogue.relativePath).path) else {
            throw XCTSkip("no model catalogue installed: run make setup")
        }
        let home = TestAudio.temporaryDirectory()
        try FileManager.default.createDirectory(at: home.appendingPathComponent("models/silero-vad"), withIntermediateDirectories: true)
        for file in [ModelCatalogue.relativePath, vad] {
            try FileManager.default.copyItem(at: installed.appendingPathComponent(file), to: home.appendingPathComponent(file))
        }
        return home
    }

    func testCatalogueListsEveryCapabilitysModelsWithHashesAndLicences() throws {
        _ = try homeWithCopiedModel()
        let catalogue = try ModelCatalogue.installed()
        let capabilities = Set(catalogue.models.flatMap(\.capabilities))
        XCTAssertTrue(capabilities.isSuperset(of: ["transcription", "sounds", "voice", "notes"]), "\(capabilities)")
        for model in catalogue.models {
            XCTAssertFalse(model.licence.isEmpty, model.id)
            XCTAssertFalse(model.files.isEmpty, model.id)
            for file in model.files { XCTAssertEqual(file.sha256.count, 64, file.path) }
        }
    }

    func testAnIntactCopyIsAcceptedAndAChangedOrTruncatedFileIsRefused() throws {
        let home = try homeWithCopiedModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let url = home.appendingPathComponent(vad)
        XCTAssertEqual(try ModelStore(home: home).file(vad, of: "silero VAD"), url.path, "same bytes, new date: the hash decides")

        var bytes = try Data(contentsOf: url)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: url)
        XCTAssertThrowsError(try ModelStore(home: home).file(vad, of: "silero VAD")) {
            XCTAssertEqual($0 as? ModelError, .modified(model: "silero VAD", path: url.path))
            XCTAssertTrue($0.localizedDescription.contains("not the file setup installed"), $0.localizedDescription)
            XCTAssertTrue(($0 as? LocalizedError)?.recoverySuggestion?.contains("make setup") ?? false)
        }
        try bytes.prefix(1000).write(to: url)
        XCTAssertThrowsError(try ModelStore(home: home).file(vad, of: "silero VAD")) {
            XCTAssertEqual($0 as? ModelError, .modified(model: "silero VAD", path: url.path))
        }
    }

    func testAMissingCatalogueIsReportedWithTheInstallCommand() throws {
        let home = try homeWithCopiedModel()
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.removeItem(at: home.appendingPathComponent(ModelCatalogue.relativePath))
        XCTAssertThrowsError(try ModelStore(home: home).file(vad, of: "silero VAD")) {
            XCTAssertEqual($0 as? ModelError, .missing(model: "model catalogue", path: home.appendingPathComponent(ModelCatalogue.relativePath).path))
        }
    }
}
