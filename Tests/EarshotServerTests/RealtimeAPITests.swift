import EarshotCore
import EarshotServer
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// OpenAI's Realtime transcription over a WebSocket (`/v1/realtime?intent=transcription`), spoken to by a raw
/// client: events in both dialects, turns found by the server's VAD or committed by the client, several sessions
/// at once, and clients that break the protocol, send nonsense, leave mid-sentence or stop reading.
final class RealtimeAPITests: XCTestCase {
    static let path = "/v1/realtime?intent=transcription"

    /// 16 kHz speech as base64 PCM16 at 24 kHz in 100 ms pieces, as OpenAI's clients send it.
    private func pieces(_ samples: [Float]) throws -> [String] {
        let upsampled = try Resampler.resample(AudioBuffer(samples: samples, sampleRate: 16_000), to: 24_000).samples
        let pcm = TestAudio.rawS16(upsampled)
        return stride(from: 0, to: pcm.count, by: 4_800).map { pcm[$0..<min(pcm.count, $0 + 4_800)].base64EncodedString() }
    }

    private func append(_ client: WebSocketTestClient, _ pieces: [String]) {
        for piece in pieces { XCTAssertTrue(client.send(event: ["type": "input_audio_buffer.append", "audio": piece])) }
    }

    private func types(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["type"] as? String } }

    func testASentenceGivesDeltasThenItsTranscriptAsTheFileEndpointReadsIt() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = try WebSocketTestClient(port: fixture.server.port, path: Self.path, headers: ["Sec-WebSocket-Protocol": "realtime"])
        XCTAssertEqual(client.status, 101, client.answer)
        XCTAssertTrue(client.answer.lowercased().contains("sec-websocket-protocol: realtime"), client.answer)
        let created = client.nextEvent()
        XCTAssertEqual(created?["type"] as? String, "session.created")
        XCTAssertEqual((created?["session"] as? [String: Any])?["type"] as? String, "transcription")

        client.send(event: ["type": "session.update", "event_id": "mine", "session": [
            "type": "transcription", "audio": ["input": [
                "format": ["type": "audio/pcm", "rate": 24_000], "transcription": ["model": "gpt-4o-transcribe", "language": "en"],
                "turn_detection": ["type": "server_vad", "threshold": 0.4, "prefix_padding_ms": 250, "silence_duration_ms": 600]]]]])
        let updated = client.nextEvent()
        XCTAssertEqual(updated?["type"] as? String, "session.updated", "\(String(describing: updated))")
        let detection = ((((updated?["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any])?["turn_detection"]) as? [String: Any]
        XCTAssertEqual(detection?["silence_duration_ms"] as? Int, 600)
        XCTAssertEqual(detection?["prefix_padding_ms"] as? Int, 250)
        XCTAssertEqual((detection?["threshold"] as? Double) ?? 0, 0.4, accuracy: 1e-6)

        var speech = TestAudio.silence(seconds: 0.5)
        for sentence in Sentences.all[0..<2] { speech += try TestAudio.speech(sentence).samples }
        speech += TestAudio.silence(seconds: 1.5)
        append(client, try pieces(speech))
        let events = client.events(until: "conversation.item.input_audio_transcription.completed")
        let seen = types(events)
        let order = ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed",
                     "conversation.item.created", "conversation.item.input_audio_transcription.completed"]
        XCTAssertEqual(seen.filter(order.contains), order, "\(seen)")
        XCTAssertTrue(seen.contains("conversation.item.input_audio_transcription.delta"), "partial text came as deltas: \(seen)")
        let ids = Set(events.compactMap { $0["item_id"] as? String ?? ($0["item"] as? [String: Any])?["id"] as? String })
        XCTAssertEqual(ids.count, 1, "one item throughout: \(ids)")
        let eventIDs = events.compactMap { $0["event_id"] as? String }
        XCTAssertEqual(Set(eventIDs).count, events.count, "every event has its own id")

        // the same words as OpenAI's file endpoint gives for the same audio
        let transcript = events.last?["transcript"] as? String ?? ""
        let file = try fixture.file("speech.wav", TestAudio.wav16(speech, rate: 16_000))
        let read = try fixture.client.request("POST", "/v1/audio/transcriptions", form: [("model", "whisper-1")], files: [("file", file)])
        XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: read.json["text"] as? String ?? "", hypothesis: transcript), 0.1,
                                 "\(transcript) / \(read.text)")
        XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: Sentences.all[0..<2].joined(separator: " "), hypothesis: transcript), 0.3, transcript)
        let usage = events.last?["usage"] as? [String: Any]
        XCTAssertEqual(usage?["type"] as? String, "duration")
    }

    func testTheBetaDialectWithCommitsInsteadOfDetection() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = try WebSocketTestClient(port: fixture.server.port, path: Self.path, headers: ["OpenAI-Beta": "realtime=v1"])
        XCTAssertEqual(client.nextEvent()?["type"] as? String, "transcription_session.created")
        client.send(event: ["type": "transcription_session.update", "session": [
            "input_audio_format": "pcm16", "input_audio_transcription": ["model": "whisper-1"], "turn_detection": NSNull()]])
        let updated = client.nextEvent()
        XCTAssertEqual(updated?["type"] as? String, "transcription_session.updated")
        XCTAssertTrue((updated?["session"] as? [String: Any])?["turn_detection"] is NSNull, "\(String(describing: updated))")

        client.send(event: ["type": "input_audio_buffer.commit", "event_id": "too-soon"])
        let empty = client.nextEvent()
        XCTAssertEqual((empty?["error"] as? [String: Any])?["code"] as? String, "input_audio_buffer_commit_empty")
        XCTAssertEqual((empty?["error"] as? [String: Any])?["event_id"] as? String, "too-soon", "the error names the client's event")

        let sentence = Sentences.all[3]
        append(client, try pieces(try TestAudio.speech(sentence).samples + TestAudio.silence(seconds: 0.3)))
        client.send(event: ["type": "input_audio_buffer.commit"])
        let events = client.events(until: "conversation.item.input_audio_transcription.completed")
        XCTAssertEqual(types(events).first, "input_audio_buffer.committed", "no VAD events without detection: \(types(events))")
        XCTAssertFalse(types(events).contains("input_audio_buffer.speech_started"))
        XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentence, hypothesis: events.last?["transcript"] as? String ?? ""), 0.3)

        append(client, try pieces(TestAudio.silence(seconds: 0.5)))
        client.send(event: ["type": "input_audio_buffer.clear"])
        XCTAssertEqual(client.nextEvent()?["type"] as? String, "input_audio_buffer.cleared")
        client.send(event: ["type": "input_audio_buffer.commit"])
        XCTAssertEqual(((client.nextEvent()?["error"]) as? [String: Any])?["code"] as? String, "input_audio_buffer_commit_empty", "cleared")
    }

    /// Two sessions at once on one Whisper: each transcript is the one its audio gives when read alone, to the
    /// character (a turn's reading depends on its audio only), and nearer its own sentence than the other's. Equality
    /// with the lone reading is what shows the sessions apart; a word bound would only measure the model (tiny.en reads
    /// the first sentence with one error or four, as the last bits of its arithmetic fall), which
    /// testASentenceGivesDeltasThenItsTranscriptAsTheFileEndpointReadsIt does.
    func testTwoSessionsAtOnceEachHearItsOwnSpeaker() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let sentences = [Sentences.all[5], Sentences.all[8]]
        let audio = try sentences.map { try pieces(TestAudio.silence(seconds: 0.3) + TestAudio.speech($0).samples + TestAudio.silence(seconds: 1.5)) }
        func transcript(_ client: WebSocketTestClient) -> String {
            client.events(until: "conversation.item.input_audio_transcription.completed").last?["transcript"] as? String ?? ""
        }
        let alone = try audio.map { pieces -> String in
            let client = try WebSocketTestClient(port: fixture.server.port, path: Self.path)
            XCTAssertEqual(client.nextEvent()?["type"] as? String, "session.created")
            append(client, pieces)
            return transcript(client)
        }
        let clients = try sentences.map { _ in try WebSocketTestClient(port: fixture.server.port, path: Self.path) }
        for client in clients { XCTAssertEqual(client.nextEvent()?["type"] as? String, "session.created") }
        for index in 0..<max(audio[0].count, audio[1].count) {
            for (client, pieces) in zip(clients, audio) where index < pieces.count {
                client.send(event: ["type": "input_audio_buffer.append", "audio": pieces[index]])
            }
        }
        for (i, client) in clients.enumerated() {
            let text = transcript(client)
            XCTAssertEqual(text, alone[i], "session \(i) read beside another reads as it does alone")
            XCTAssertLessThan(WordErrorRate.rate(reference: sentences[i], hypothesis: text),
                              WordErrorRate.rate(reference: sentences[1 - i], hypothesis: text), "session \(i): \(text)")
            XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentences[i], hypothesis: text), 0.5, "session \(i): \(text)")
        }
    }

    func testNonsenseEventsGetErrorsAndTheSessionGoesOn() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = try WebSocketTestClient(port: fixture.server.port, path: Self.path)
        _ = client.nextEvent()
        func code(_ send: () -> Void) -> (code: String?, param: String?) {
            send()
            let error = client.nextEvent()?["error"] as? [String: Any]
            return (error?["code"] as? String, error?["param"] as? String)
        }
        XCTAssertEqual(code { client.send(text: "{not json") }.code, "invalid_json")
        XCTAssertEqual(code { client.send(text: "[1, 2]") }.code, "invalid_json")
        XCTAssertEqual(code { client.send(opcode: 2, [1, 2, 3]) }.code, "invalid_event")
        XCTAssertEqual(code { client.send(event: ["type": "response.create"]) }.code, "unknown_event")
        XCTAssertEqual(code { client.send(event: ["type": "input_audio_buffer.append"]) }.code, "missing_required_parameter")
        XCTAssertEqual(code { client.send(event: ["type": "input_audio_buffer.append", "audio": "!!!"]) }.code, "invalid_value")
        XCTAssertEqual(code { client.send(event: ["type": "input_audio_buffer.append", "audio": Data([1, 2, 3]).base64EncodedString()]) }.code,
                       "invalid_value", "an odd number of bytes is not 16-bit samples")
        XCTAssertEqual(code { client.send(event: ["type": "session.update", "session": ["type": "realtime"]]) }.param, "session.type")
        XCTAssertEqual(code { client.send(event: ["type": "session.update", "session": ["audio": ["input": ["format": ["type": "audio/pcm", "rate": 16_000]]]]]) }.param,
                       "session.audio.input.format.rate")
        XCTAssertEqual(code { client.send(event: ["type": "session.update", "session": ["audio": ["input": ["turn_detection": ["threshold": 7]]]]]) }.param,
                       "session.audio.input.turn_detection.threshold")
        XCTAssertEqual(code { client.send(event: ["type": "session.update", "session": ["audio": ["input": ["transcription": ["model": "nonsense"]]]]]) }.param,
                       "session.audio.input.transcription")
        XCTAssertEqual(code { client.send(event: ["type": "session.update", "session": ["audio": ["input": ["transcription": ["language": "de"]]]]]) }.code,
                       nil, "German switches to the multilingual model")
        // still working after all that
        client.send(event: ["type": "session.update", "session": ["audio": ["input": ["turn_detection": NSNull(), "transcription": ["language": "en"]]]]])
        XCTAssertEqual(client.nextEvent()?["type"] as? String, "session.updated")
        append(client, try pieces(try TestAudio.speech(Sentences.all[6]).samples))
        client.send(event: ["type": "input_audio_buffer.commit"])
        let events = client.events(until: "conversation.item.input_audio_transcription.completed")
        XCTAssertTrue((events.last?["transcript"] as? String ?? "").lowercased().contains("football"), "\(events.last ?? [:])")
    }

    func testBrokenFramesCloseWithTheirCodesAndTheServerStaysUp() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let port = fixture.server.port
        func closeCode(_ bytes: [UInt8]) throws -> UInt16? {
            let client = try WebSocketTestClient(port: port, path: Self.path)
            _ = client.nextEvent()
            client.connection.sendBytes(bytes)
            return client.closeFrame()?.closeCode
        }
        XCTAssertEqual(try closeCode(WebSocketTestClient.frame(opcode: 1, Array(#"{"type":"x"}"#.utf8), mask: false)), 1002, "unmasked")
        XCTAssertEqual(try closeCode(WebSocketTestClient.frame(opcode: 2, [], declaredLength: 1 << 40)), 1009, "a terabyte announced")
        XCTAssertEqual(try closeCode(WebSocketTestClient.frame(opcode: 1, Array(repeating: 0x41, count: 9 << 20))), 1009, "9 MB sent")
        XCTAssertEqual(try closeCode(Array("GET / HTTP/1.1\r\n\r\n".utf8)), 1002, "junk")
        XCTAssertEqual(try closeCode(WebSocketTestClient.frame(opcode: 1, [0xFF, 0xFE])), 1007, "not UTF-8")

        // a ping is answered with its payload; a close is answered with the same code
        let client = try WebSocketTestClient(port: port, path: Self.path)
        _ = client.nextEvent()
        client.send(opcode: 9, Array("hello".utf8))
        XCTAssertEqual(client.next(), WebSocketTestClient.Frame(opcode: 10, payload: Array("hello".utf8)))
        client.send(opcode: 8, [0x0F, 0xA0])  // 4000
        XCTAssertEqual(client.closeFrame()?.closeCode, 4000)
        XCTAssertTrue(client.connection.read(seconds: 5).closed, "then the server closes the connection")
        XCTAssertEqual(try fixture.client.get("/api/health").status, 200)
    }

    func testTheHandshakeIsRefusedWhenItShouldBe() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let port = fixture.server.port
        XCTAssertEqual(try WebSocketTestClient(port: port, path: Self.path, key: "c2hvcnQ=").status, 400, "a short key")
        XCTAssertEqual(try WebSocketTestClient(port: port, path: "/v1/realtime?intent=conversation").status, 400)
        XCTAssertEqual(try WebSocketTestClient(port: port, path: Self.path, headers: ["Origin": "http://evil.example"]).status, 403,
                       "another site's page may not open one")
        XCTAssertEqual(try WebSocketTestClient(port: port, path: Self.path, headers: ["Origin": "http://127.0.0.1:\(port)"]).status, 101,
                       "this server's own pages may")
        let plain = try fixture.client.get(Self.path)
        XCTAssertEqual(plain.status, 426, "a plain GET is told to upgrade")

        let token = "0123456789abcdef0123"
        let guarded = try ServerFixture(token: token)
        defer { guarded.stop() }
        XCTAssertEqual(try WebSocketTestClient(port: guarded.server.port, path: Self.path).status, 401)
        XCTAssertEqual(try WebSocketTestClient(port: guarded.server.port, path: Self.path, headers: ["Authorization": "Bearer \(token)"]).status, 101)
        let browser = try WebSocketTestClient(port: guarded.server.port, path: Self.path,
                                              headers: ["Sec-WebSocket-Protocol": "realtime, openai-insecure-api-key.\(token)"])
        XCTAssertEqual(browser.status, 101, "a browser's token comes as a subprotocol")
        XCTAssertFalse(browser.answer.contains(token), "and is never echoed")
        XCTAssertEqual(try WebSocketTestClient(port: guarded.server.port, path: Self.path,
                                               headers: ["Sec-WebSocket-Protocol": "realtime, openai-insecure-api-key.wrong"]).status, 401)
    }

    func testClientsThatLeaveMidSentenceOrStopReadingHarmNobody() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let port = fixture.server.port
        let speech = try pieces(try TestAudio.speech(Sentences.all[9]).samples)
        for _ in 0..<3 {
            let leaving = try WebSocketTestClient(port: port, path: Self.path)
            _ = leaving.nextEvent()
            append(leaving, Array(speech.prefix(speech.count / 2)))
        }  // each closes its socket mid-sentence, without a close frame

        // a client that sends and never reads: its answers pile up until the server lets it go
        let deaf = try WebSocketTestClient(port: port, path: Self.path)
        var frames: [UInt8] = []
        for _ in 0..<100_000 { frames += WebSocketTestClient.frame(opcode: 1, Array(#"{"type":"nonsense"}"#.utf8)) }
        deaf.connection.sendBytes(frames)
        let deadline = Date().addingTimeInterval(60)
        var closed = false
        while !closed, Date() < deadline {  // without reading a byte: until sending fails on the closed socket
            Thread.sleep(forTimeInterval: 1)
            closed = !deaf.connection.sendBytes(WebSocketTestClient.frame(opcode: 9, []))
        }
        XCTAssertTrue(closed, "a client that does not read is disconnected")

        // everyone else is fine, and new sessions open (the places of those that left are free again)
        XCTAssertEqual(try fixture.client.get("/api/health").status, 200)
        let next = try WebSocketTestClient(port: port, path: Self.path)
        XCTAssertEqual(next.nextEvent()?["type"] as? String, "session.created")
        append(next, speech + (try pieces(TestAudio.silence(seconds: 1.5))))
        let events = next.events(until: "conversation.item.input_audio_transcription.completed")
        XCTAssertTrue((events.last?["transcript"] as? String ?? "").lowercased().contains("museum"), "\(events.last ?? [:])")
    }

    func testStoppingTheServerClosesItsWebSocketsAsGoingAway() throws {
        let fixture = try ServerFixture()
        let port = fixture.server.port
        let clients = try (0..<3).map { _ in try WebSocketTestClient(port: port, path: Self.path) }
        for client in clients { XCTAssertEqual(client.nextEvent()?["type"] as? String, "session.created") }
        append(clients[0], try pieces(try TestAudio.speech(Sentences.all[2]).samples))  // a turn going on
        // and a turn being read (two sentences, no pause detection: Whisper reads them as one commit)
        XCTAssertTrue(clients[1].send(event: ["type": "session.update", "session": ["type": "transcription", "audio": ["input": ["turn_detection": NSNull()]]]]))
        append(clients[1], try pieces(try TestAudio.speech(Sentences.all[3...4].joined(separator: " ")).samples))
        XCTAssertTrue(clients[1].send(event: ["type": "input_audio_buffer.commit"]))
        XCTAssertEqual(clients[1].events(until: "input_audio_buffer.committed").last?["type"] as? String, "input_audio_buffer.committed")
        // stop, while the clients answer the server's close at once (then the sockets end long before the turn is read)
        let stopped = DispatchSemaphore(value: 0)
        let server = fixture.server
        DispatchQueue.global().async { server.stop(); stopped.signal() }
        for client in clients {
            XCTAssertEqual(client.closeFrame()?.closeCode, 1001)
            _ = client.send(opcode: 8, [0x03, 0xE9])
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 120), .success, "stop returns")
        // nothing of the sessions runs on after stop: the one reading its turn has finished it
        XCTAssertEqual(server.realtimeSessionsOpen, 0)
        fixture.stop()  // and its files
        XCTAssertThrowsError(try RawHTTPConnection(port: port), "nothing listens any more")
    }
}
