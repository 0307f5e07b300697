import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// The same speech through lossy codecs is the same audio; other speech of the same length is not.
final class AudioFingerprintTests: XCTestCase {
    var dir: URL!

    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func encoded(_ wav: URL, as ext: String, _ codec: [String]) throws -> URL {
        let out = dir.appendingPathComponent(wav.deletingPathExtension().lastPathComponent + "." + ext)
        try TestAudio.run("ffmpeg", ["-v", "error", "-y", "-i", wav.path] + codec + [out.path])
        return out
    }

    func testTheSameSpeechInAnotherCodecMatchesAndOtherSpeechDoesNot() throws {
        var originals: [URL] = []
        for (i, sentence) in Sentences.all.prefix(4).enumerated() {
            let url = dir.appendingPathComponent("s\(i).wav")
            try TestAudio.speak(sentence, to: url)
            originals.append(url)
        }
        // real speech too, when the shared data is beside the project: noisier and longer than espeak's
        if let speech = SharedData.folder("librispeech-speakers") {
            for name in (try FileManager.default.contentsOfDirectory(atPath: speech.path)).filter({ $0.hasSuffix(".flac") }).sorted().prefix(2) {
                originals.append(speech.appendingPathComponent(name))
            }
        }
        let prints = try originals.map { try AudioFingerprint(path: $0.path) }
        var same: [Double] = [], other: [Double] = []
        for (url, print) in zip(originals, prints) {
            XCTAssertGreaterThan(print.moments.count, Int(print.duration * 20) - 6, url.lastPathComponent)
            let source = url.pathExtension == "wav" ? url : try encoded(url, as: "wav", [])
            for (ext, codec) in [("m4a", ["-c:a", "aac", "-b:a", "64k"]), ("mp3", ["-c:a", "libmp3lame", "-b:a", "48k"]),
                                 ("opus", ["-c:a", "libopus", "-b:a", "24k"]), ("ogg", ["-c:a", "libvorbis", "-ar", "44100", "-ac", "2"])] {
                let copy = try AudioFingerprint(path: try encoded(source, as: ext, codec).path)
                let difference = print.difference(from: copy)
                same.append(difference)
                XCTAssertTrue(print.matches(copy), "\(url.lastPathComponent) as \(ext): \(difference) of the bits differ")
                XCTAssertLessThan(difference, 0.2, "\(url.lastPathComponent) as \(ext)")
            }
        }
        for i in prints.indices {
            for j in prints.indices where j != i {
                // as long as each other, so only the sound can tell them apart
                let a = prints[i], b = AudioFingerprint(moments: prints[j].moments, duration: a.duration)
                XCTAssertFalse(a.matches(b), "\(originals[i].lastPathComponent) against \(originals[j].lastPathComponent)")
                XCTAssertGreaterThan(a.difference(from: b), 0.4)
                other.append(a.difference(from: b))
            }
        }
        // the figures BENCHMARKS.md quotes ("Importing recordings")
        Swift.print(String(format: "fingerprint bits differing: the same speech through codecs %.2f–%.2f (%d pairs), different speech %.2f–%.2f (%d pairs)",
                           same.min() ?? 0, same.max() ?? 0, same.count, other.min() ?? 0, other.max() ?? 0, other.count))
        let stored = AudioFingerprint(data: prints[0].data, duration: prints[0].duration)
        XCTAssertEqual(stored, prints[0])
    }

    func testSilenceMatchesSilenceAndLengthDecides() {
        let quiet = AudioFingerprint(samples: TestAudio.silence(seconds: 3))
        XCTAssertTrue(quiet.matches(AudioFingerprint(samples: TestAudio.silence(seconds: 3.1))))
        XCTAssertFalse(quiet.matches(AudioFingerprint(samples: TestAudio.silence(seconds: 5))))
        XCTAssertTrue(AudioFingerprint(samples: []).moments.isEmpty)
    }
}
