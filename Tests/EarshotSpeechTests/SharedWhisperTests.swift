import EarshotCore
@testable import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// What is loaded (model, threads) apart from what is decoded (language, task): a server asked for a new
/// language on every request keeps one loaded Whisper per model.
final class SharedWhisperTests: XCTestCase {
    func testLanguagesAndTasksShareOneLoadedWhisperAndSwitchingBackChangesNothing() async throws {
        let audio = try TestAudio.speech("Please send the revised budget to the finance team before Thursday.")
        let english = try Transcriber.shared(Transcriber.Configuration(model: .base, language: "en"))
        let first = try await english.transcribe(audio, source: "espeak").text
        XCTAssertTrue(first.lowercased().contains("budget"), first)
        let loaded = SpeechRecognizer.loadedCount
        var texts: [String: String] = [:]
        for (language, task) in [("de", WhisperTask.transcribe), ("fr", .transcribe), ("auto", .transcribe), ("de", .translate)] {
            texts["\(language) \(task.rawValue)"] = try await Transcriber.shared(Transcriber.Configuration(model: .base, language: language, task: task))
                .transcribe(audio, source: "espeak").text
        }
        XCTAssertEqual(SpeechRecognizer.loadedCount, loaded, "no language or task loaded Whisper again")
        let again = try await english.transcribe(audio, source: "espeak").text
        XCTAssertEqual(again, first, "English after other languages reads the same")
    }

    /// Switching a loaded Whisper to a language or task reads exactly as a Whisper loaded for it does.
    func testASwitchedWhisperReadsAsOneLoadedForThatDecoding() throws {
        let samples = try TestAudio.speech("Das ist ein kurzer Satz auf Deutsch, gesprochen von einer Maschine.", voice: "de").samples
        let shared = try SpeechRecognizer.shared(model: .base)
        for decoding in [SpeechRecognizer.Decoding(language: "de"), .init(language: "de", task: .translate), .init(language: "auto"),
                         .init(language: "en")] {
            let switched = try shared.recognize(samples[...], as: decoding)
            let fresh = try SpeechRecognizer(model: .base, language: decoding.language, task: decoding.task).recognize(samples[...])
            XCTAssertEqual(switched, fresh, "\(decoding)")
            print("\(decoding.language) \(decoding.task.rawValue): \(switched)")
        }
    }

    func testAnUnknownLanguageIsRefusedBeforeAnythingRuns() {
        XCTAssertThrowsError(try Transcriber(Transcriber.Configuration(model: .base, language: "klingon"))) { error in
            XCTAssertTrue(error.localizedDescription.contains("klingon"), error.localizedDescription)
        }
        XCTAssertThrowsError(try Transcriber(Transcriber.Configuration(model: .tinyEn, task: .translate)))
    }

    func testTheLeastRecentlyUsedInstanceGoesFirst() {
        let table = SharedInstances<String, Int>(capacity: 2)
        var made = 0
        func get(_ key: String) -> Int { table.instance(for: key) { made += 1; return made } }
        XCTAssertEqual(get("a"), 1)
        XCTAssertEqual(get("b"), 2)
        XCTAssertEqual(get("a"), 1)  // a is now the most recent
        XCTAssertEqual(get("c"), 3)  // b goes
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(get("a"), 1)
        XCTAssertEqual(get("b"), 4, "b was dropped and is made again")
    }
}
