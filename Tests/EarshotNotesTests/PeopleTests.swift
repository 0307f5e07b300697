import EarshotCore
import EarshotLanguage
@testable import EarshotNotes
import EarshotSpeech
import EarshotTestSupport
import EarshotVoice
import Foundation
import XCTest

/// People: each note's voices linked to the person they are (cautiously), a name given once carried into every note
/// of that person, past and future, merges and their labels, and what deleting a note leaves. The voices here are
/// made-up voiceprints, so what is tested is the linking and the store, exactly; how well real voices link is
/// bench/people.py's measure (BENCHMARKS.md "People").
final class PeopleTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    /// A voice: its diarization label, seconds and voiceprint.
    struct Voice {
        var label: String
        var seconds = 10.0
        var print: [Float]
        var enrolled = false
    }

    private var generator = SplitMix64(seed: 7)  // the made-up voices are the same on every run

    /// A unit vector in the CAM++ voiceprint's 192 dimensions, far from any other this makes.
    func newVoice() -> [Float] { SpeakerEncoder.normalised((0..<192).map { _ in generator.nextGaussian() }) }

    /// Another recording of the voice `print`: the same direction with some noise (cosine about 0.95).
    func again(_ print: [Float]) -> [Float] {
        SpeakerEncoder.normalised(print.map { $0 + 0.025 * generator.nextGaussian() })
    }

    /// A transcribed note in which `voices` speak in turn (one segment each), stored as the pipeline stores one.
    @discardableResult
    func note(_ store: NotesStore, _ voices: [Voice]) throws -> Int {
        let id = try fixture.note(store, title: "note", transcript: voices.map(\.label).joined(separator: " "))
        let segments = voices.enumerated().map { i, v in
            TranscriptSegment(start: Double(i) * 5, end: Double(i) * 5 + 4, text: "words of \(v.label)",
                              words: [TranscriptWord(word: " words", start: Double(i) * 5, end: Double(i) * 5 + 1, probability: 1)])
        }
        let transcript = Transcript(source: "n", model: "test", duration: Double(voices.count) * 5, segments: segments)
        let diarization = Diarization(
            source: "n", duration: transcript.duration,
            turns: voices.enumerated().map { SpeakerTurn(start: Double($0) * 5, end: Double($0) * 5 + 4, speaker: $1.label) },
            speakers: voices.map { DiarizedSpeaker(label: $0.label, enrolled: $0.enrolled, seconds: $0.seconds, voiceprint: $0.print) })
        try store.db.transaction {
            let names = try store.linkVoices(of: id, speakers: diarization.speakers)
            let stored = try NotesPipeline.storedSegments(transcript, voices: diarization, names: names)
            try store.db.query("UPDATE notes SET segments = ? WHERE id = ?", [.text(stored), .integer(Int64(id))])
        }
        return id
    }

    func testAVoiceHeardInSeveralNotesIsOnePersonAndANameGivenOnceHoldsInEveryNote() throws {
        let store = try fixture.store()
        let ruth = newVoice(), tom = newVoice(), ann = newVoice()
        let a = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", print: again(tom))])
        let b = try note(store, [Voice(label: "SPEAKER_01", print: again(ann)), Voice(label: "SPEAKER_02", print: again(ruth))])
        let alone = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth))])  // one voice: segments unlabelled
        let d = try note(store, [Voice(label: "SPEAKER_01", print: again(tom)), Voice(label: "SPEAKER_02", print: again(ann))])
        XCTAssertEqual(try store.note(alone).speakers, [])

        let people = try store.people()
        XCTAssertEqual(people.count, 3, "\(people)")
        XCTAssertTrue(people.allSatisfy { $0.name == nil })
        let hers = try XCTUnwrap(try store.person(inNote: b, label: "SPEAKER_02"))
        XCTAssertEqual(try store.person(hers).notes, [a, b, alone])
        XCTAssertEqual(try store.person(hers).displayName, "Voice \(hers)")
        XCTAssertEqual(try store.person(inNote: a, label: "SPEAKER_01"), hers)
        XCTAssertEqual(try store.person(inNote: alone, label: "SPEAKER_01"), hers)

        // named in one note: named in all three, the one-voice note labelled too; each summary queued again
        XCTAssertEqual(try store.renameSpeaker(b, from: "SPEAKER_02", to: "Ruth"), 1)
        XCTAssertEqual(try store.note(a).speakers, ["Ruth", "SPEAKER_02"])
        XCTAssertEqual(try store.note(b).speakers, ["SPEAKER_01", "Ruth"])
        XCTAssertEqual(try store.note(alone).speakers, ["Ruth"])
        XCTAssertTrue(try store.note(alone).segments.flatMap { $0.words ?? [] }.allSatisfy { $0.speaker == "Ruth" })
        XCTAssertEqual(try store.note(d).speakers, ["SPEAKER_01", "SPEAKER_02"], "nobody else is renamed")
        for id in [a, b, alone] {
            XCTAssertEqual(try store.note(id).stages.filter { $0.state == .pending }.map(\.stage), [.summarise, .embed])
        }
        XCTAssertEqual(try store.note(d).stages.filter { $0.state == .pending }.map(\.stage), [.embed])
        XCTAssertEqual(try store.list(speaker: "Ruth").map(\.id).sorted(), [a, b, alone])
        XCTAssertEqual(try store.person(hers).appearances.map(\.label), ["Ruth", "Ruth", "Ruth"])

        // a later note of hers carries the name at once
        let later = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", print: again(ann))])
        XCTAssertEqual(try store.note(later).speakers, ["Ruth", "SPEAKER_02"])
        XCTAssertEqual(try store.person(hers).notes, [a, b, alone, later])

        // renamed through the person: every note follows; the JSON says who, with null for the unnamed
        XCTAssertEqual(try store.renamePerson(hers, to: " Ruth Jones "), [a, b, alone, later])
        XCTAssertEqual(try store.list(speaker: "Ruth").map(\.id), [])
        XCTAssertEqual(try store.list(speaker: "Ruth Jones").count, 4)
        let json = try JSONSerialization.jsonObject(with: try EarshotJSON.encoder().encode(try store.people())) as? [[String: Any]]
        let first = try XCTUnwrap(json?.first)
        XCTAssertEqual(first["name"] as? String, "Ruth Jones")
        XCTAssertEqual(first["notes"] as? [Int], [a, b, alone, later])
        XCTAssertTrue(json!.dropFirst().allSatisfy { $0["name"] is NSNull }, "\(json!)")
        for bad in ["", "SPEAKER_03", "two\nlines", "Ru\u{1B}[31mth"] {
            XCTAssertThrowsError(try store.renamePerson(hers, to: bad))
        }
        XCTAssertThrowsError(try store.renamePerson(999, to: "Nobody")) { XCTAssertEqual($0 as? NotesError, .unknownPerson(999)) }
    }

    func testLinkingIsCautiousAndAnEnrolledNameIsItsPerson() throws {
        let store = try fixture.store()
        let ruth = newVoice()
        try note(store, [Voice(label: "SPEAKER_01", print: again(ruth))])
        // someone else, and Ruth heard for too little to compare: both new people
        try note(store, [Voice(label: "SPEAKER_01", print: newVoice()), Voice(label: "SPEAKER_02", seconds: 2, print: again(ruth))])
        // halfway between Ruth and a stranger: below the threshold, so not Ruth
        let between = SpeakerEncoder.normalised(zip(ruth, newVoice()).map { $0 + 2 * $1 })
        XCTAssertLessThan(SpeakerEncoder.cosine(between, ruth), VoiceLinking.sameVoice)
        try note(store, [Voice(label: "SPEAKER_01", print: between)])
        XCTAssertEqual(try store.people().count, 4)
        XCTAssertEqual(try store.people().first?.notes.count, 1)

        // two voices of one note that both sound like Ruth: only the closer one is her
        let close = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)),
                                     Voice(label: "SPEAKER_02", print: SpeakerEncoder.normalised(ruth.map { $0 + 0.06 * generator.nextGaussian() }))])
        let first = try store.person(inNote: 1, label: "SPEAKER_01")
        XCTAssertEqual(try store.person(inNote: close, label: "SPEAKER_01"), first)
        XCTAssertNotEqual(try store.person(inNote: close, label: "SPEAKER_02"), first)

        // a voice an enrolled profile named is the person of that name, whatever its voiceprint
        let ann = try note(store, [Voice(label: "Ann", print: newVoice(), enrolled: true), Voice(label: "SPEAKER_01", print: newVoice())])
        let annAgain = try note(store, [Voice(label: "Ann", print: newVoice(), enrolled: true)])
        let person = try XCTUnwrap(try store.person(inNote: ann, label: "Ann"))
        XCTAssertEqual(try store.person(person).name, "Ann")
        XCTAssertEqual(try store.person(inNote: annAgain, label: "Ann"), person)
        XCTAssertEqual(try store.note(annAgain).speakers, ["Ann"])
    }

    func testMergingJoinsTwoPeopleUnderOneNameAndDeletingNotesLeavesNoEmptyPerson() throws {
        let store = try fixture.store()
        let a = try note(store, [Voice(label: "SPEAKER_01", print: newVoice()), Voice(label: "SPEAKER_02", print: newVoice())])
        let b = try note(store, [Voice(label: "SPEAKER_01", print: newVoice())])
        let one = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_01"))
        let two = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_02"))
        let three = try XCTUnwrap(try store.person(inNote: b, label: "SPEAKER_01"))
        try store.renamePerson(three, to: "Maria")

        // an unnamed person merged into nobody named: no label changes, one person in two notes
        XCTAssertEqual(try store.mergePeople(one, with: two), [])
        XCTAssertEqual(try store.person(one).notes, [a])
        XCTAssertThrowsError(try store.person(two)) { XCTAssertEqual($0 as? NotesError, .unknownPerson(two)) }
        // naming them with Maria's name says they are Maria: one voice of that name in note a, times added
        XCTAssertEqual(try store.renamePerson(one, to: "Maria"), [a])
        XCTAssertThrowsError(try store.person(one))
        let maria = try store.person(three)
        XCTAssertEqual(maria.notes, [a, b])
        XCTAssertEqual(maria.appearances.first { $0.note == a }?.seconds, 20)
        XCTAssertEqual(try store.note(a).speakers, ["Maria"])
        XCTAssertThrowsError(try store.mergePeople(three, with: three)) { XCTAssertTrue($0 is NotesError) }

        // deleting a person's last note leaves them only while named; ids are never given again
        try store.delete(a)
        XCTAssertEqual(try store.person(three).notes, [b])
        let c = try note(store, [Voice(label: "SPEAKER_01", print: newVoice())])
        let stranger = try XCTUnwrap(try store.person(inNote: c, label: "SPEAKER_01"))
        try store.delete(c)
        XCTAssertEqual(try store.people().map(\.id), [three])
        try store.delete(b)
        XCTAssertEqual(try store.people().map(\.name), ["Maria"], "a named person stays, to name their next note")
        let d = try note(store, [Voice(label: "SPEAKER_01", print: newVoice())])
        XCTAssertGreaterThan(try XCTUnwrap(try store.person(inNote: d, label: "SPEAKER_01")), stranger)
    }

    func testSplittingAVoiceOffMakesItSomeoneElseInThatNoteOnly() throws {
        let store = try fixture.store()
        let ruth = newVoice(), tom = newVoice()
        let a = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", print: again(tom))])
        let b = try note(store, [Voice(label: "SPEAKER_01", print: again(tom)), Voice(label: "SPEAKER_02", print: again(ruth))])
        let alone = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth))])
        let hers = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_01"))
        let his = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_02"))
        try store.renamePerson(hers, to: "Ruth")
        let items = [ActionItem(text: "Send the plan", owner: "Ruth", person: hers), ActionItem(text: "Book the room", owner: "SPEAKER_01")]
        try store.db.query("UPDATE notes SET actions = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(items), as: UTF8.self)), .integer(Int64(b))])
        try store.db.query("UPDATE stages SET state = 'done'")

        // "that is not Ruth in note b": a new unnamed person there, numbered again, her item there without an owner
        let other = try store.splitPerson(hers, note: b)
        XCTAssertNotEqual(other, hers)
        XCTAssertEqual(try store.person(other).name, nil)
        XCTAssertEqual(try store.person(other).notes, [b])
        XCTAssertEqual(try store.person(hers).notes, [a, alone])
        XCTAssertEqual(try store.note(b).speakers, ["SPEAKER_01", "SPEAKER_02"])
        let label = try XCTUnwrap(try store.person(other).appearances.first?.label)
        XCTAssertEqual(try store.person(inNote: b, label: label), other)
        XCTAssertEqual(try store.note(b).actions.map(\.line), ["Send the plan", "SPEAKER_01: Book the room"])
        XCTAssertEqual(try store.note(b).stages.filter { $0.state == .pending }.map(\.stage), [.summarise, .embed])
        XCTAssertEqual(try store.note(a).speakers, ["Ruth", "SPEAKER_02"], "her other notes keep her name")
        XCTAssertEqual(try store.note(a).stages.filter { $0.state == .pending }.map(\.stage), [])

        // her one-voice note split off: unlabelled again, as a note nobody named is stored
        let third = try store.splitPerson(hers, note: alone)
        XCTAssertEqual(try store.note(alone).speakers, [])
        XCTAssertEqual(try store.person(third).notes, [alone])
        // an unnamed person: only the link moves, the labels stay
        let tomInB = try store.splitPerson(his, note: b)
        XCTAssertEqual(try store.person(inNote: b, label: "SPEAKER_01"), tomInB)
        XCTAssertEqual(try store.person(his).notes, [a])

        XCTAssertThrowsError(try store.splitPerson(his, note: a), "the only voice of an unnamed person") { XCTAssertTrue($0 is NotesError) }
        XCTAssertThrowsError(try store.splitPerson(hers, note: b), "not heard there any more") { XCTAssertTrue($0 is NotesError) }
        XCTAssertThrowsError(try store.splitPerson(999, note: a)) { XCTAssertEqual($0 as? NotesError, .unknownPerson(999)) }
    }

    func testNamedPeopleAreKnownByVoiceOutsideTheNotes() throws {
        // no notes store yet: nobody, and none is made by asking
        let empty = fixture.notesDirectory.appendingPathComponent("never-made")
        XCTAssertEqual(NotesLibrary.namedVoices(directory: empty), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: empty.appendingPathComponent(NotesStore.databaseName).path))

        let store = try fixture.store()
        let ruth = newVoice()
        let a = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", print: newVoice())])
        try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", seconds: 1, print: newVoice())])
        XCTAssertEqual(try store.namedVoices(), [], "nobody is named yet")
        let hers = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_01"))
        try store.renamePerson(hers, to: "Ruth")
        let known = NotesLibrary.namedVoices(directory: fixture.notesDirectory)
        XCTAssertEqual(known.map(\.name), ["Ruth"])
        XCTAssertEqual(known.first?.voiceprints.count, 2, "each note's voice of hers")
        // a named voice heard too briefly to compare gives no voiceprint, so no one to name by voice
        let brief = try XCTUnwrap(try store.person(inNote: 2, label: "SPEAKER_02"))
        try store.renamePerson(brief, to: "Tom")
        XCTAssertEqual(NotesLibrary.namedVoices(directory: fixture.notesDirectory).map(\.name), ["Ruth"])
    }

    /// Real voices through the pipeline: two notes of one voice are one person, a third voice another; naming the
    /// person labels both of their notes (each of one voice, so unlabelled until then) and nothing else.
    func testAForgottenPersonIsNoLongerNamedAnywhere() throws {
        let store = try fixture.store()
        let ruth = newVoice(), tom = newVoice()
        let a = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth)), Voice(label: "SPEAKER_02", print: again(tom))])
        let alone = try note(store, [Voice(label: "SPEAKER_01", print: again(ruth))])
        let hers = try XCTUnwrap(try store.person(inNote: a, label: "SPEAKER_01"))
        try store.renamePerson(hers, to: "Ruth")
        let items = [ActionItem(text: "Send the plan", owner: "Ruth", person: hers), ActionItem(text: "Book the room", owner: "SPEAKER_02")]
        try store.db.query("UPDATE notes SET actions = ? WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(items), as: UTF8.self)), .integer(Int64(a))])

        let forgotten = try store.forgetPerson(hers, redact: false)
        XCTAssertEqual(forgotten, NotesStore.Forgotten(name: "Ruth", notes: [a, alone], silencedSeconds: 0))
        XCTAssertThrowsError(try store.person(hers)) { XCTAssertEqual($0 as? NotesError, .unknownPerson(hers)) }
        XCTAssertEqual(try store.people().count, 1, "Tom stays")
        // her voice is a numbered voice again, her item has no owner, her words stay (no redaction)
        XCTAssertEqual(try store.note(a).speakers, ["SPEAKER_01", "SPEAKER_02"])
        XCTAssertEqual(try store.note(a).actions.map(\.line), ["Send the plan", "SPEAKER_02: Book the room"])
        XCTAssertEqual(try store.note(alone).speakers, [], "a note of one voice is unlabelled again")
        XCTAssertTrue(try store.note(alone).segments.allSatisfy { $0.text == "words of SPEAKER_01" })
        XCTAssertEqual(try store.list(speaker: "Ruth").count, 0)
        XCTAssertEqual(try store.note(a).stages.filter { $0.state == .pending }.map(\.stage), [.summarise, .embed])
        XCTAssertThrowsError(try store.forgetPerson(hers, redact: true)) { XCTAssertEqual($0 as? NotesError, .unknownPerson(hers)) }
    }

    func testRealNotesOfOneVoiceAreOnePersonNamedInBoth() async throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        let store = try fixture.store()
        let first = try store.add(path: try fixture.speech(Sentences.all[0] + " " + Sentences.all[1], name: "a.wav", voice: "en-us+m5"))
        let other = try store.add(path: try fixture.speech(Sentences.all[2] + " " + Sentences.all[3], name: "b.wav", voice: "en-gb+f4"))
        let second = try store.add(path: try fixture.speech(Sentences.all[4] + " " + Sentences.all[5], name: "c.wav", voice: "en-us+m5"))
        var options = NotesPipeline.Options()
        options.languageModel = .small
        _ = try await NotesPipeline(store: store, options: options, modelStore: fixture.modelStore).run()
        let people = try store.people()
        XCTAssertEqual(people.map(\.notes), [[first, second], [other]], "\(people)")
        let named = try store.renamePerson(people[0].id, to: "Ruth")
        XCTAssertEqual(named, [first, second])
        XCTAssertEqual(try store.note(first).speakers, ["Ruth"])
        XCTAssertEqual(try store.note(second).speakers, ["Ruth"])
        XCTAssertEqual(try store.note(other).speakers, [])
        XCTAssertEqual(try store.list(speaker: "Ruth").map(\.id).sorted(), [first, second])

        // enrolled from her notes: known wherever an enrolled voice is (live lines, verify, identify)
        let library = try NotesLibrary(directory: fixture.notesDirectory, modelStore: fixture.modelStore)
        let profiles = VoiceProfileStore(store: fixture.modelStore)
        let voices = try VoiceID(profiles: profiles, background: BackgroundSpeakers(), store: fixture.modelStore)
        do {
            _ = try await library.enrollPerson(people[1].id, voices: voices)
            XCTFail("an unnamed person is not enrolled")
        } catch { XCTAssertTrue(error is NotesError, "\(error)") }
        let enrolled = try await library.enrollPerson(people[0].id, voices: voices)
        XCTAssertEqual(enrolled.name, "Ruth")
        XCTAssertEqual(profiles.names(), ["Ruth"])
        let heard = try await voices.identify(file: try fixture.speech(Sentences.all[6], name: "d.wav", voice: "en-us+m5"))
        XCTAssertEqual(heard.speaker, "Ruth")
    }

    func testVoiceLinkingAloneWithoutAStore() {
        let ruth = newVoice(), tom = newVoice()
        let known = [VoiceLinking.Known(person: 1, name: "Ruth", voiceprints: [again(ruth), again(ruth)]),
                     VoiceLinking.Known(person: 2, name: nil, voiceprints: [again(tom)]),
                     VoiceLinking.Known(person: 3, name: "Ann", voiceprints: [])]
        let heard = [VoiceLinking.Heard(label: "SPEAKER_01", seconds: 8, voiceprint: again(tom), enrolled: false),
                     VoiceLinking.Heard(label: "Ann", seconds: 8, voiceprint: newVoice(), enrolled: true),
                     VoiceLinking.Heard(label: "SPEAKER_02", seconds: 8, voiceprint: newVoice(), enrolled: false),
                     VoiceLinking.Heard(label: "SPEAKER_03", seconds: 8, voiceprint: again(ruth), enrolled: false),
                     VoiceLinking.Heard(label: "SPEAKER_04", seconds: 8, voiceprint: nil, enrolled: false)]
        XCTAssertEqual(VoiceLinking.link(heard, to: known), [1, 2, nil, 0, nil])
        XCTAssertEqual(VoiceLinking.link(heard, to: []), [nil, nil, nil, nil, nil])
    }
}
