import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Sounds and voices through the API: classify, train from recorded clips, enrol, verify, identify, export.
final class SoundVoiceAPITests: XCTestCase {
    func testClassifyTrainAndUseASoundModel() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        let speech = try fixture.speech("Good evening everybody, welcome to the show.", name: "speech.wav")
        let builtIn = try client.request("POST", "/api/sounds/classify", form: [("top", "3")], files: [("file", speech)])
        XCTAssertEqual(builtIn.status, 200, builtIn.text)
        XCTAssertEqual((builtIn.json["top"] as? [[String: Any]])?.first?["label"] as? String, "Speech")

        // a two-label model from clips, as the trainer page sends them
        var files: [(String, URL)] = []
        for i in 0..<6 {
            let samples = TestAudio.tone(frequency: 300 + Double(i) * 40, seconds: 1.5, rate: 16_000)
            files.append(("clips[tone]", try fixture.file("tone\(i).wav", TestAudio.wav16(samples, rate: 16_000))))
            files.append(("clips[voice]", try fixture.speech("Sample number \(i) is spoken here.", name: "voice\(i).wav")))
        }
        let events = try client.events("/api/sounds/train", method: "POST", form: [("name", "tones")], files: files)
        XCTAssertTrue(events.contains { $0.event == "progress" }, "\(events.map(\.event))")
        XCTAssertTrue(events.contains { $0.event == "epoch" })
        XCTAssertEqual(events.last?.event, "done", "\(events.last ?? ("", ""))")
        let models = try client.get("/api/sounds/models").jsonArray
        XCTAssertEqual(models.first?["name"] as? String, "tones")
        XCTAssertEqual(models.first?["labels"] as? [String], ["tone", "voice"])

        let tone = try fixture.file("probe.wav", TestAudio.wav16(TestAudio.tone(frequency: 350, seconds: 1.5, rate: 16_000), rate: 16_000))
        let trained = try client.request("POST", "/api/sounds/classify", form: [("model", "tones")], files: [("file", tone)])
        XCTAssertEqual((trained.json["top"] as? [[String: Any]])?.first?["label"] as? String, "tone", trained.text)
        XCTAssertEqual(try client.get("/api/sounds/models/tones").status, 200)
        let onnx = try client.get("/api/sounds/models/tones/onnx")
        XCTAssertEqual(onnx.status, 200, onnx.text)
        XCTAssertGreaterThan(onnx.body.count, 1_000_000, "YAMNet and the head in one graph")

        // the same clips as a zip of label folders (one folder at the top), for evaluation and training
        let dataset = fixture.audio.appendingPathComponent("dataset")
        for (key, file) in files {
            let label = key == "clips[tone]" ? "tone" : "voice"
            try FileManager.default.createDirectory(at: dataset.appendingPathComponent(label), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: dataset.appendingPathComponent(label).appendingPathComponent(file.lastPathComponent))
        }
        let zip = fixture.audio.appendingPathComponent("dataset.zip")
        _ = try TestAudio.run("python3", ["-m", "zipfile", "-c", zip.path, dataset.path])
        let evaluation = try client.request("POST", "/api/sounds/models/tones/evaluate", files: [("dataset", zip)])
        XCTAssertEqual(evaluation.status, 200, evaluation.text)
        XCTAssertEqual(evaluation.json["accuracy"] as? Double, 1.0, evaluation.text)
        let fromZip = try client.request("POST", "/api/sounds/train", form: [("name", "tones-zip")], files: [("dataset", zip)])
        XCTAssertEqual(fromZip.status, 201, fromZip.text)
        XCTAssertEqual(fromZip.json["labels"] as? [String], ["tone", "voice"])
        XCTAssertEqual(try client.request("DELETE", "/api/sounds/models/tones-zip").status, 204)
        XCTAssertEqual(try client.request("POST", "/api/sounds/classify", form: [("model", "nope")], files: [("file", tone)]).status, 404)
        XCTAssertEqual(try client.request("DELETE", "/api/sounds/models/tones").status, 204)
        XCTAssertEqual(try client.get("/api/sounds/models").jsonArray.count, 0)

        let oneLabel = try client.request("POST", "/api/sounds/train", form: [("name", "bad")], files: Array(files.prefix(1)))
        XCTAssertEqual(oneLabel.status, 400)
        XCTAssertTrue(oneLabel.errorMessage.contains("two labels"), oneLabel.errorMessage)
        let notZip = try client.request("POST", "/api/sounds/train", form: [("name", "bad")], files: [("dataset", tone)])
        XCTAssertEqual(notZip.status, 400, notZip.text)
    }

    func testEnrolVerifyIdentifyExport() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        let prompts = try client.get("/api/voices/prompts").json["prompts"] as? [String] ?? []
        XCTAssertEqual(prompts.count, 5)
        // about 10 s of speech per clip, as the page asks: each prompt and the next one read in a row
        let clips = try prompts.indices.map { i in
            ("clips", try fixture.speech(prompts[i] + " " + prompts[(i + 1) % prompts.count], name: "alice\(i).wav", voice: "en-us+m5"))
        }
        let enrolled = try client.request("POST", "/api/voices/Alice/enroll", files: clips)
        XCTAssertEqual(enrolled.status, 201, enrolled.text)
        XCTAssertEqual(enrolled.json["clips"] as? Int, 5)

        let test = "Could you please pass me the salt and the pepper? The soup needs a little more of both before dinner."
        let same = try fixture.speech(test, name: "alice-test.wav", voice: "en-us+m5")
        let other = try fixture.speech(test, name: "other.wav", voice: "en-gb+f4")
        let accepted = try client.request("POST", "/api/voices/Alice/verify", files: [("file", same)])
        XCTAssertEqual(accepted.status, 200, accepted.text)
        XCTAssertEqual(accepted.json["accepted"] as? Bool, true, accepted.text)
        let rejected = try client.request("POST", "/api/voices/Alice/verify", files: [("file", other)])
        XCTAssertEqual(rejected.json["accepted"] as? Bool, false, rejected.text)
        let identified = try client.request("POST", "/api/voices/identify", files: [("file", same)])
        XCTAssertEqual(identified.json["speaker"] as? String, "Alice", identified.text)
        XCTAssertEqual(identified.json["source"] as? String, "alice-test.wav")

        // live: the microphone's audio in pieces, a score on the last 4 s every second
        let samples = try AudioFileLoader().load(path: same.path).samples
        let events = try fixture.live(#"{"kind": "voice", "name": "Alice"}"#, samples: samples)
        let scores = events.filter { $0.event == "voice" }
        XCTAssertFalse(scores.isEmpty, "\(events)")
        XCTAssertTrue(scores.last?.data.contains("\"accepted\":true") == true, "\(scores)")
        // live transcription with "who spoke": Alice's line by her name, another voice's as someone else
        let pause = TestAudio.silence(seconds: 1.5)
        let lines = try fixture.live(#"{"kind": "transcribe", "speakers": true}"#,
                                     samples: samples + pause + (try AudioFileLoader().load(path: other.path).samples) + pause)
        let speakers = lines.filter { $0.event == "final" }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any])?["speaker"] as? String
        }
        XCTAssertEqual(speakers.first, "Alice", "\(lines)")
        XCTAssertEqual(speakers.last, "someone else", "\(lines)")
        let unknown = try client.request("POST", "/api/live", headers: ["Content-Type": "application/json"],
                                         body: Data(#"{"kind": "voice", "name": "Nobody"}"#.utf8))
        XCTAssertEqual(unknown.status, 404, unknown.text)

        let export = try client.get("/api/voices/Alice/export")
        XCTAssertEqual(export.status, 200)
        XCTAssertGreaterThan(export.body.count, 1000)
        XCTAssertNotNil(export.headers["x-earshot-threshold"])
        XCTAssertEqual(try client.get("/api/voices").json["profiles"].map { ($0 as? [[String: Any]])?.count }, 1)
        XCTAssertEqual(try client.request("POST", "/api/voices/Bob/verify", files: [("file", same)]).status, 404)
        XCTAssertEqual(try client.request("POST", "/api/voices/Alice/verify", form: [("threshold", "5")], files: [("file", same)]).status, 400)
        XCTAssertEqual(try client.request("POST", "/api/voices/%20/enroll", files: clips).status, 400)
        XCTAssertEqual(try client.request("DELETE", "/api/voices/Alice").status, 204)
    }
}
