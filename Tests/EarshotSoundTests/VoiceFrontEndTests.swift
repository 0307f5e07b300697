import EarshotCore
@testable import EarshotSound
import EarshotTestSupport
import XCTest

/// What voice features do to a recording before and after the speaker network: one speech level, no steady
/// noise floor, and windows counted by the speech in them.
final class VoiceFrontEndTests: XCTestCase {
    func testSpeechLevelBringsQuietAndLoudCopiesToOneLevelAndLeavesSilenceAlone() throws {
        let speech = try TestAudio.speech("One speech level for every recording.").samples
        let quiet = SpeechLevel.normalised(speech.map { $0 * 0.01 })
        let loud = SpeechLevel.normalised(speech.map { $0 * 0.9 })
        XCTAssertEqual(SpeechLevel.level(quiet), SpeechLevel.target, accuracy: 1e-4)
        XCTAssertEqual(SpeechLevel.level(loud), SpeechLevel.target, accuracy: 1e-4)
        for i in stride(from: 0, to: speech.count, by: 997) { XCTAssertEqual(quiet[i], loud[i], accuracy: 1e-4) }
        let silence = [Float](repeating: 0, count: 16_000)
        XCTAssertEqual(SpeechLevel.normalised(silence), silence)
        // a near-silent recording is raised by at most the largest gain
        let hiss = SoundFixtures.noise(seconds: 1, seed: 3, amplitude: 1e-5)
        XCTAssertEqual(SpeechLevel.normalised(hiss)[5], hiss[5] * SpeechLevel.gains.upperBound, accuracy: 1e-9)
    }

    func testNoiseFloorLeavesSpeechInSilenceAndTakesSteadyNoiseOut() throws {
        let frontEnd = LogMelSpectrogram(.speakerEncoder)
        let bands = frontEnd.settings.melBands
        let speech = try TestAudio.speech("Speech with pauses around it.").samples
        let clean = frontEnd.compute(speech[...])
        let cleaned = NoiseFloor.removed(from: clean, bands: bands, offset: 1e-10)
        // the loudest frame of speech recorded in silence keeps its values
        let frames = clean.count / bands
        let level = { (f: Int) in clean[(f * bands)..<((f + 1) * bands)].reduce(0, +) / Float(bands) }
        let loudest = (0..<frames).max { level($0) < level($1) }!
        for b in 0..<bands { XCTAssertEqual(cleaned[loudest * bands + b], clean[loudest * bands + b], accuracy: 0.05) }
        // the same speech under steady noise comes out closer to the clean recording's spectrogram than it went in
        let noise = SoundFixtures.noise(seconds: Double(speech.count) / 16_000, seed: 5, amplitude: 0.02)
        let noisy = frontEnd.compute(zip(speech, noise).map { $0 + $1 }[...])
        // over the frames of speech (within 30 dB of the loudest)
        let spoken = (0..<frames).filter { level($0) > level(loudest) - 3 }
        let distance = { (x: [Float]) in
            spoken.map { f in (0..<bands).map { abs(x[f * bands + $0] - clean[f * bands + $0]) }.reduce(0, +) }
                .reduce(0, +)
                / Float(spoken.count * bands)
        }
        let before = distance(noisy), after = distance(NoiseFloor.removed(from: noisy, bands: bands, offset: 1e-10))
        XCTAssertLessThan(after, 0.8 * before,
                          "mean |log-mel difference| to the clean recording: \(before) → \(after)")
        // too short to hold a pause: as it was
        let short = Array(noisy.prefix(5 * bands))
        XCTAssertEqual(NoiseFloor.removed(from: short, bands: bands, offset: 1e-10), short)
    }

    func testWindowsCountByTheirSpeechAndTrainingReadsSpeechWindowsOnly() {
        func window(_ speech: Float?) -> SoundWindow {
            SoundWindow(start: 0, end: 1, embedding: [0], scores: [], speech: speech)
        }
        let windows = [window(0.9), window(0.1), window(0.6)]
        XCTAssertEqual(windows.weights, [0.9 / 1.6, 0.1 / 1.6, 0.6 / 1.6].map { Float($0) })
        XCTAssertEqual(windows.trainingWindows.map(\.speech), [0.9, 0.6])
        // a pause window voting for the wrong label barely moves the recording's scores
        let mean = windows.weightedMean(of: [[0.8, 0.2], [0.0, 1.0], [0.7, 0.3]], classes: 2)
        XCTAssertGreaterThan(mean[0], 0.65)
        // no window is speech: training keeps the one with the most; none holds any: every window counts alike
        XCTAssertEqual([window(0.0), window(0.2)].trainingWindows.map(\.speech), [0.2])
        XCTAssertEqual([window(0.0), window(0.0)].weights, [0.5, 0.5])
        // YAMNet's windows carry no speech share: all count, all train
        let plain = [window(nil), window(nil)]
        XCTAssertEqual(plain.weights, [0.5, 0.5])
        XCTAssertEqual(plain.trainingWindows.count, 2)
    }
}
