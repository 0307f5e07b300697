import EarshotCore
import EarshotServer
import EarshotTestSupport
import Foundation
import XCTest

/// Who may talk to the server: loopback Host names only without a token, the token on every request with one,
/// state changes only from the server's own pages, uploads bounded while they stream.
final class AccessPolicyTests: XCTestCase {
    func testLoopbackServerRefusesForeignHostsAndCrossSiteWrites() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        let client = fixture.client
        XCTAssertEqual(try client.get("/api/health").status, 200)
        XCTAssertEqual(try client.get("/api/health", headers: ["Host": "localhost:\(fixture.server.port)"]).status, 200)
        let rebound = try client.get("/api/health", headers: ["Host": "attacker.example:\(fixture.server.port)"])
        XCTAssertEqual(rebound.status, 403, "a page on another name (DNS rebinding) is refused")
        XCTAssertTrue(rebound.errorMessage.contains("attacker.example"))

        let clip = try fixture.speech("A short note.", name: "note.wav")
        let crossSite = try client.request("POST", "/api/notes", headers: ["Origin": "http://attacker.example"], files: [("file", clip)])
        XCTAssertEqual(crossSite.status, 403)
        let fetchMetadata = try client.request("DELETE", "/api/notes/1", headers: ["Sec-Fetch-Site": "cross-site"])
        XCTAssertEqual(fetchMetadata.status, 403)
        XCTAssertEqual(try client.get("/api/notes").jsonArray.count, 0, "nothing was stored")
        let sameOrigin = try client.request("POST", "/api/notes", headers: ["Origin": fixture.server.address], files: [("file", clip)])
        XCTAssertEqual(sameOrigin.status, 201, sameOrigin.text)
        XCTAssertNil(sameOrigin.headers["access-control-allow-origin"], "no CORS")
        XCTAssertEqual(sameOrigin.headers["x-content-type-options"], "nosniff")
    }

    func testTokenIsNeededOnEveryRequest() throws {
        let token = "0123456789abcdef0123"
        let fixture = try ServerFixture(token: token)
        defer { fixture.stop() }
        let anonymous = HTTPClient(base: fixture.server.address)
        XCTAssertEqual(try anonymous.get("/api/health").status, 401)
        XCTAssertEqual(try anonymous.get("/").status, 401)
        XCTAssertEqual(try anonymous.get("/api/health", headers: ["Authorization": "Bearer wrong-token-wrong-token"]).status, 401)
        XCTAssertEqual(try fixture.client.get("/api/health").status, 200)
        XCTAssertEqual(try anonymous.get("/api/health", headers: ["Cookie": "earshot_token=\(token)"]).status, 200)
        // opening the printed address once sets the cookie and drops the token from the address bar
        let first = try anonymous.get("/?token=\(token)")
        XCTAssertEqual(first.status, 303)
        XCTAssertEqual(first.headers["location"], "/")
        XCTAssertTrue(first.headers["set-cookie"]?.contains("HttpOnly; SameSite=Strict") == true)
        XCTAssertEqual(try anonymous.get("/?token=nope").status, 401)
        // the redirect stays on this server: "//evil.com" would send the browser to another site
        for path in ["//evil.com", "///evil.com/x"] {
            let answer = try anonymous.get("\(path)?token=\(token)")
            XCTAssertEqual(answer.status, 303, path)
            let location = answer.headers["location"] ?? ""
            XCTAssertTrue(location.hasPrefix("/") && !location.hasPrefix("//") && !location.hasPrefix("/\\"), "\(path) → \(location)")
        }
    }

    func testListeningOffLoopbackNeedsAToken() throws {
        var configuration = AppServer.Configuration(models: ModelStore(home: try TestHome.make()))
        configuration.host = "0.0.0.0"
        configuration.port = 0
        XCTAssertThrowsError(try AppServer(configuration)) { error in
            XCTAssertTrue(error.localizedDescription.contains("--token"), error.localizedDescription)
        }
    }

    func testUploadsOverTheLimitAreRefusedAndNothingIsKept() throws {
        let fixture = try ServerFixture(maxUpload: 100_000)
        defer { fixture.stop() }
        let big = try fixture.file("big.wav", TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 5, rate: 16_000), rate: 16_000))
        let declared = try fixture.client.request("POST", "/api/notes", files: [("file", big)])
        XCTAssertEqual(declared.status, 413, declared.text)
        XCTAssertTrue(declared.errorMessage.contains("100000 bytes"), declared.errorMessage)
        // without a Content-Length the limit holds while the body streams in
        let chunked = try fixture.client.request("POST", "/api/notes", headers: ["Transfer-Encoding": "chunked"], files: [("file", big)])
        XCTAssertEqual(chunked.status, 413, chunked.text)
        XCTAssertEqual(try fixture.client.get("/api/notes").jsonArray.count, 0)
        let scratch = fixture.home.appendingPathComponent("server")
        let left = FileManager.default.enumerator(atPath: scratch.path)?.compactMap { $0 as? String }
            .filter { !$0.hasPrefix("run-") || $0.split(separator: "/").count > 2 } ?? []
        XCTAssertEqual(left, [], "temporary files removed")
    }

    /// A declared length past the limit (even one past Int's range) is refused from the headers, and a chunked
    /// body is cut off, the connection closed, the moment it passes the limit: an endless body is never read to
    /// its end. Content-Length with chunked encoding is refused.
    func testEndlessUploadsAreCutOff() throws {
        let fixture = try ServerFixture(maxUpload: 100_000)
        defer { fixture.stop() }
        for length in ["18446744073709551615", "9223372036854775808", "100001"] {
            let connection = try RawHTTPConnection(port: fixture.server.port)
            connection.send("POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                            + "Content-Length: \(length)\r\n\r\n")
            let answer = connection.read(seconds: 10)
            XCTAssertTrue(answer.text.hasPrefix("HTTP/1.1 413"), "\(length): \(answer.text)")
            XCTAssertTrue(answer.closed, "\(length): the connection is closed")
        }
        let endless = try RawHTTPConnection(port: fixture.server.port)
        endless.send("POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                     + "Transfer-Encoding: chunked\r\n\r\n")
        // libmicrohttpd cannot answer mid-body: past twice the limit the connection is closed under the sender
        let chunk = String(repeating: "x", count: 16_384)
        var sent = 0
        while sent < 50_000_000 && endless.send("4000\r\n\(chunk)\r\n") { sent += chunk.count }
        XCTAssertLessThan(sent, 5_000_000, "the server stopped reading an endless body")
        XCTAssertTrue(endless.read(seconds: 10).closed)
        let both = try RawHTTPConnection(port: fixture.server.port)
        both.send("POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        let refused = both.read(seconds: 10)
        XCTAssertTrue(refused.text.hasPrefix("HTTP/1.1 400"), refused.text)
        XCTAssertTrue(refused.closed)
        XCTAssertEqual(try fixture.client.get("/api/notes").jsonArray.count, 0)
    }

    func testNamesNeverBecomePaths() throws {
        let fixture = try ServerFixture()
        defer { fixture.stop() }
        for name in ["..", ".hidden", "a%2Fb", "%2E%2E"] {
            let response = try fixture.client.get("/api/sounds/models/\(name)")
            XCTAssertTrue([400, 404].contains(response.status), "\(name): \(response.status)")
        }
        XCTAssertEqual(try fixture.client.get("/assets/..%2Fopenapi.json").status, 404)
        XCTAssertEqual(try fixture.client.get("/api/notes/..%2F..%2Fnotes.db/audio").status, 404)
    }
}
