import EarshotCore
import EarshotTestSupport
import Foundation

/// Labelled folders of real audio made on the spot: tones, noise and espeak-ng speech.
enum SoundFixtures {
    static func noise(seconds: Double, seed: UInt64, amplitude: Float = 0.3) -> [Float] {
        var rng = SplitMix64(seed: seed)
        return (0..<Int(seconds * 16000)).map { _ in (Float(rng.next() >> 40) / Float(1 << 24) - 0.5) * 2 * amplitude }
    }

    static let sentences = ["The quick brown fox jumps over the lazy dog.", "Please call me back tomorrow morning.",
                            "We are going to the market.", "It is raining again today.", "She reads a book every night.",
                            "Turn off the lights when you leave.", "The meeting starts at noon.", "My phone battery is low."]

    /// DIR/{tone,noise,speech}/…wav with `perLabel` files each; `offset` varies the content between sets.
    static func makeDataset(in dir: URL, perLabel: Int, offset: Int = 0) throws {
        let fm = FileManager.default
        for label in ["tone", "noise", "speech"] {
            try fm.createDirectory(at: dir.appendingPathComponent(label), withIntermediateDirectories: true)
        }
        for i in 0..<perLabel {
            let k = i + offset
            let tone = TestAudio.tone(frequency: 300 + 170 * Double(k), seconds: 1.5 + 0.1 * Double(k % 3), rate: 16000, amplitude: 0.4)
            try TestAudio.wav16(tone, rate: 16000).write(to: dir.appendingPathComponent("tone/t\(k).wav"))
            try TestAudio.wav16(noise(seconds: 1.5, seed: UInt64(k + 1)), rate: 16000).write(to: dir.appendingPathComponent("noise/n\(k).wav"))
            try TestAudio.speak(sentences[k % sentences.count], to: dir.appendingPathComponent("speech/s\(k).wav"),
                                voice: k % 2 == 0 ? "en-us" : "en-gb", wordsPerMinute: 140 + 10 * (k % 4))
        }
    }
}
