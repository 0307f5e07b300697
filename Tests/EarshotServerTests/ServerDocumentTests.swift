import EarshotTestSupport
import Foundation
import XCTest

/// The pages and the OpenAPI document are served, and the document lists exactly the endpoints that answer.
final class ServerDocumentTests: XCTestCase {
    func testOpenAPIDocumentMatchesTheEndpoints() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let document = try fixture.client.get("/api/openapi.json").json
        XCTAssertEqual(document["openapi"] as? String, "3.1.0")
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        for (path, operations) in paths {
            let concrete = path.replacingOccurrences(of: "{id}", with: "1").replacingOccurrences(of: "{name}", with: "x")
            for method in operations.keys {
                // an endpoint that exists never answers 404-for-route or 405 (an event stream that stays open, the
                // notes' changes, is read for 2 s)
                let response = try fixture.client.request(method.uppercased(), concrete, maxSeconds: path.hasSuffix("/events") ? 2 : 600)
                XCTAssertNotEqual(response.status, 405, "\(method) \(path)")
                XCTAssertFalse(response.errorMessage.hasPrefix("no such endpoint"), "\(method) \(path)")
            }
        }
        XCTAssertEqual(paths.values.map(\.count).reduce(0, +), 50, "one entry per API route (pages and assets are not API)")
    }

    func testEveryPageIsServedWithItsPolicy() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        for page in ["/", "/notes", "/listen", "/sounds", "/voice", "/transcribe"] {
            let response = try fixture.client.get(page)
            XCTAssertEqual(response.status, 200, page)
            XCTAssertTrue(response.headers["content-type"]?.hasPrefix("text/html") == true, page)
            XCTAssertTrue(response.headers["content-security-policy"]?.contains("script-src 'self'") == true, page)
            XCTAssertTrue(response.text.contains("<nav"), page)
            XCTAssertFalse(response.text.contains("{{"), "\(page): the frame is filled in")
            let name = page == "/" ? "notes" : String(page.dropFirst())
            XCTAssertTrue(response.text.contains("<title>\(name.prefix(1).uppercased() + name.dropFirst()) · Earshot</title>"), page)
            XCTAssertTrue(response.text.contains("/assets/\(name).js"), page)
        }
        XCTAssertEqual(try fixture.client.get("/assets/app.js").status, 200)
        XCTAssertEqual(try fixture.client.get("/assets/nope.js").status, 404)
        XCTAssertEqual(try fixture.client.get("/admin").status, 404)
    }
}
