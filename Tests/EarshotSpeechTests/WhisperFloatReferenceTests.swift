import EarshotCore
@testable import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Whisper as Earshot ships it (MatMul weights as uint8) transcribes like the float conversion of the same
/// weights that setup keeps as a reference: the word error rates on real speech stay within 0.3 points.
/// With int8 weights ONNX Runtime's AVX2 kernels saturate and transcripts depended on the CPU.
final class WhisperFloatReferenceTests: XCTestCase {
    /// espeak-ng sentences, and every 6th utterance of `../shared/data/speech` when it is here.
    func utterances() throws -> [(audio: AudioBuffer, text: String)] {
        var items = try Sentences.all.prefix(4).map { (try TestAudio.speech($0), $0) }
        if let dir = SharedData.folder("speech") {
            let rows = try SharedData.table(dir.appendingPathComponent("transcripts.tsv"), separator: "\t")
            for row in rows.enumerated().filter({ $0.offset % 6 == 0 }).map(\.element) {
                items.append((try AudioFileLoader().load(path: dir.appendingPathComponent(row["path"]!).path), row["transcript"]!))
            }
        }
        return items
    }

    func compare(_ model: WhisperModel) throws {
        _ = try FloatReference.installed("whisper-\(model.rawValue)/model-encoder.onnx")
        let items = try utterances()
        var wer: [Bool: Double] = [:], texts: [Bool: [String]] = [:]
        for floatReference in [false, true] {
            let transcriber = try FileTranscriber(model: model, threads: SpeechRecognizer.defaultThreadCount, language: "en",
                                                  store: ModelStore(), floatReference: floatReference)
            var errors = 0, words = 0
            for item in items {
                let text = try transcriber.transcribe(item.audio, source: "").text
                texts[floatReference, default: []].append(text)
                let c = WordErrorRate.counts(reference: item.text, hypothesis: text)
                errors += c.errors
                words += c.words
            }
            wer[floatReference] = Double(errors) / Double(words)
        }
        let same = zip(texts[false]!, texts[true]!).filter { $0 == $1 }.count
        print(String(format: "whisper %@ vs float reference: WER %.2f%% vs %.2f%%, %d of %d transcripts identical",
                     model.rawValue, wer[false]! * 100, wer[true]! * 100, same, items.count))
        XCTAssertLessThanOrEqual(abs(wer[false]! - wer[true]!), 0.003)
    }

    func testTinyEnTranscribesLikeItsFloatReference() throws { try compare(.tinyEn) }
    func testBaseTranscribesLikeItsFloatReference() throws { try compare(.base) }
}
