import EarshotCore
import EarshotLanguage
@testable import EarshotNotes
import EarshotTestSupport
import Foundation
import XCTest

/// Summary templates: kept and chosen per note, each section's points checked against what the note says, and a real
/// meeting written with the meeting template by the default model.
final class TemplateTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    static let meeting = """
    Let's start with the spring launch. We decided to move the launch to the second week of March, because the \
    printer cannot deliver the brochures before then. Priya will update the budget by Friday. We also talked about \
    hiring a second designer, but nobody has decided anything yet; we will come back to it next month. Tom books the \
    venue for the launch party.
    """

    func testAPointStaysOnlyWhenTheNoteSaysIt() {
        XCTAssertTrue(NoteWriter.supported("The launch moves to the second week of March", by: Self.meeting))
        XCTAssertTrue(NoteWriter.supported("Hiring a second designer was discussed", by: Self.meeting), "the model's own verbs may join")
        XCTAssertFalse(NoteWriter.supported("The budget was cut by twenty percent", by: Self.meeting), "a fact the note does not say")
        XCTAssertFalse(NoteWriter.supported("None", by: Self.meeting))
        XCTAssertEqual(NoteWriter.readPoints(#"["Move the launch to March", "move the launch to march", "Cancel the party", "x"]"#, said: Self.meeting),
                       ["Move the launch to March"], "repeats, inventions and empty points go")
        XCTAssertEqual(NoteWriter.readPoints("not json", said: Self.meeting), [])
        XCTAssertEqual(NoteWriter.laidOut("The launch moves.", [("Decisions", ["Move the launch to March"]), ("Discussed", [])]),
                       "The launch moves.\n\nDecisions:\n- Move the launch to March", "a section with no point is left out")
        XCTAssertEqual(NoteWriter.laidOut("Only this.", [("Decisions", [])]), "Only this.", "nothing kept: the plain summary")
        XCTAssertTrue(NoteWriter.listGrammar(items: 5).contains("{0,4}"))
        let lecture = "The green pigment that captures the light is called chlorophyll."
        XCTAssertEqual(NoteWriter.readPoints(#"["Chlorophyll: the green pigment that captures light", "chlorophyll", "light"]"#, said: lecture,
                                             heading: "Terms"), ["Chlorophyll: the green pigment that captures light"], "a term needs its meaning")
        XCTAssertEqual(SummaryTemplate.builtIns[1].question(for: "Decisions"), "What was decided?")
        XCTAssertTrue(try SummaryTemplate.custom(name: "recipe", instructions: "Ingredients and steps.", sections: ["Steps"]).question(for: "Steps")
            .contains("Steps"))
    }

    func testTemplatesAreKeptChosenPerNoteAndRemoved() throws {
        let store = try fixture.store()
        XCTAssertEqual(try store.templates().map(\.name), ["memo", "meeting", "one-to-one", "lecture", "call"])
        let standup = try store.saveTemplate(name: " standup ", instructions: "A team's daily standup.", sections: ["Done", " Next ", "", "Blocked"])
        XCTAssertEqual(standup, SummaryTemplate(name: "standup", instructions: "A team's daily standup.", sections: ["Done", "Next", "Blocked"]))
        XCTAssertEqual(try store.saveTemplate(name: "recipe", instructions: "Ingredients and steps.", sections: []).sections, ["Recipe"])
        XCTAssertEqual(try store.template(named: "STANDUP").name, "standup")
        for (name, instructions, sections) in [("Meeting", "mine", [String]()), ("", "x", []), ("bad/name", "x", []), ("ok", "", []),
                                               ("ok", "x", Array(repeating: "h", count: 6)), ("ok", "x", ["two\nlines"])] {
            XCTAssertThrowsError(try store.saveTemplate(name: name, instructions: instructions, sections: sections), name) { error in
                guard case NotesError.badTemplate = error else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try store.removeTemplate(named: "lecture"))
        XCTAssertThrowsError(try store.template(named: "nothing")) { error in
            XCTAssertTrue("\(error.localizedDescription)".contains("memo, meeting"), error.localizedDescription)
        }

        let id = try fixture.note(store, title: "Standup", transcript: "I finished the login page.")
        try store.db.query("UPDATE stages SET state = 'done' WHERE note_id = ?", [.integer(Int64(id))])
        XCTAssertEqual(try store.note(id).template, "memo")
        try store.setTemplate(of: id, to: "Standup")
        XCTAssertEqual(try store.note(id).template, "standup")
        XCTAssertEqual(try store.note(id).stages.filter { $0.state == .pending }.map(\.stage), [.summarise, .embed], "written again")
        XCTAssertThrowsError(try store.setTemplate(of: id, to: "nothing"))
        XCTAssertThrowsError(try store.setTemplate(of: 999, to: "memo"))
        XCTAssertEqual(try store.removeTemplate(named: "standup"), [id])
        XCTAssertEqual(try store.note(id).template, "memo", "a removed template's notes are written as memos")
        try store.setTemplate(of: id, to: "lecture", rewrite: false)
        XCTAssertEqual(NotesExporter.document(try store.note(id)).template, "lecture")
        try store.db.query("UPDATE notes SET summary = ? WHERE id = ?", [.text("A lesson.\n\nKey points:\n- Login first"), .integer(Int64(id))])
        XCTAssertTrue(try NotesExporter.render(try store.note(id), format: .md).contains("## Summary (lecture)\n\nA lesson.\n\nKey points:\n- Login first"))
        try store.setTemplate(of: id, to: "memo")
        XCTAssertEqual(try store.db.query("SELECT count(*) FROM note_templates").first?.first?.int, 0, "the default is not stored")
    }

    func testAMeetingWrittenWithTheMeetingTemplateKeepsOnlyWhatWasSaid() throws {
        guard LanguageModelChoice.standard.path(in: fixture.modelStore) != nil else {
            throw XCTSkip("the default language model is not installed (make setup)")
        }
        let writer = NoteWriter(model: try LanguageModel(.standard, store: fixture.modelStore))
        let template = try fixture.store().template(named: "meeting")
        let text = try writer.write(transcript: Self.meeting, template: template)
        let parts = text.summary.components(separatedBy: "\n\n")
        XCTAssertFalse(parts[0].isEmpty)
        XCTAssertFalse(parts[0].contains("\n"), "the short summary comes first: \(text.summary)")
        XCTAssertTrue(parts.dropFirst().contains { $0.hasPrefix("Decisions:\n- ") }, text.summary)
        for part in parts.dropFirst() {
            let lines = part.split(separator: "\n")
            XCTAssertTrue(["Decisions:", "Discussed:"].contains(String(lines[0])), part)
            for point in lines.dropFirst() {
                XCTAssertTrue(point.hasPrefix("- "))
                XCTAssertTrue(NoteWriter.supported(String(point.dropFirst(2)), by: Self.meeting), String(point))
            }
        }
        // a story has no decisions: whatever the model lists, nothing the note does not say is kept
        let story = "Yesterday I walked along the river and counted eleven herons near the old mill. The water was very low."
        let plain = try writer.write(transcript: story, template: template)
        for point in plain.summary.split(separator: "\n").filter({ $0.hasPrefix("- ") }) {
            XCTAssertTrue(NoteWriter.supported(String(point.dropFirst(2)), by: story), String(point))
        }
    }
}
