import EarshotTestSupport
import Foundation
import XCTest

/// `earshot serve`'s own refusals: they say what to do next, or what there is to choose from.
final class ServeCommandTests: XCTestCase {
    func testAPortInUseAndAShortTokenAreRefusedWithWhatToDo() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let busy = try CLI.run(["serve", "--port", String(fixture.server.port), "--no-notes-worker"],
                               environment: ["EARSHOT_HOME": fixture.home.path])
        XCTAssertEqual(busy.status, 1)
        XCTAssertTrue(busy.stderr.contains("cannot listen on 127.0.0.1 port \(fixture.server.port)"), busy.stderr)
        XCTAssertTrue(busy.stderr.contains("choose a free port with --port"), busy.stderr)
        let short = try CLI.run(["serve", "--host", "0.0.0.0", "--token", "short"])
        XCTAssertEqual(short.status, 2)
        XCTAssertTrue(short.stderr.contains("--token must have at least 16 characters"), short.stderr)
        let model = try CLI.run(["serve", "--llm", "huge"])
        XCTAssertEqual(model.status, 2)
        XCTAssertTrue(model.stderr.contains("huge") && model.stderr.contains("small"), model.stderr)
    }
}
