import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Given raw PCM on a pipe at another rate and channel count, expect 16 kHz mono chunks until the pipe closes.
final class RawPCMSourceTests: XCTestCase {
    func testStereo48kPipeBecomesMono16k() async throws {
        let tone = TestAudio.tone(frequency: 1000, seconds: 1, rate: 48000)
        var raw = Data()
        for s in tone {
            let v = Int16((s * 32767).rounded()).littleEndian
            withUnsafeBytes(of: v) { raw.append(contentsOf: $0); raw.append(contentsOf: $0) }
        }
        let source = RawPCMSource(handle: TestAudio.pipe(delivering: raw), rate: 48000, format: .s16le, channels: 2)
        var samples: [Float] = []
        for try await chunk in source.chunks(sampleRate: 16000) { samples += chunk }
        XCTAssertEqual(samples.count, 16000, accuracy: 20)
        XCTAssertEqual(samples.map(abs).max() ?? 0, 0.5, accuracy: 0.02)
    }
}
