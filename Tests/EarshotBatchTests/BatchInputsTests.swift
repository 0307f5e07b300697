import EarshotBatch
import EarshotTestSupport
import Foundation
import XCTest

/// What a batch works through: folders, manifests and shards, without running a model.
final class BatchInputsTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = TestAudio.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func touch(_ relative: String) throws -> String {
        let url = dir.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: url)
        return url.path
    }

    func testFoldersAtAllDepthsManifestsOfPathsAndOfJobs() throws {
        let a = try touch("archive/2024/a.flac"), b = try touch("archive/b.WAV")
        _ = try touch("archive/notes.txt")
        _ = try touch("archive/.hidden/c.wav")
        let folderJobs = try BatchInputs.jobs(from: [dir.appendingPathComponent("archive").path], tasks: [.transcribe], options: BatchOptions())
        XCTAssertEqual(folderJobs.map(\.path), [a, b], "recordings only, hidden folders skipped, sorted")
        XCTAssertEqual(folderJobs.map(\.id), [a, b])

        let manifest = dir.appendingPathComponent("list.txt")
        try Data("""
        # archive of 2024
        archive/2024/a.flac

        \(b)
        {"id": "third", "path": "/x/c.ogg", "tasks": ["sounds"]}
        """.utf8).write(to: manifest)
        let listed = try BatchInputs.jobs(from: [manifest.path], tasks: [.transcribe, .words], options: BatchOptions(model: "base"))
        XCTAssertEqual(listed.map(\.path), [a, b, "/x/c.ogg"], "relative paths are the manifest's folder's")
        XCTAssertEqual(listed.map(\.id), [a, b, "third"])
        XCTAssertEqual(listed[0].tasks, [.transcribe, .words])
        XCTAssertEqual(listed[2].tasks, [.sounds], "a job line's own tasks stand")
        XCTAssertEqual(listed[1].options.model, "base")

        XCTAssertThrowsError(try BatchInputs.jobs(from: [manifest.path, a], tasks: [.transcribe], options: BatchOptions())) {
            XCTAssertTrue($0.localizedDescription.contains("listed twice"), $0.localizedDescription)
        }
        XCTAssertThrowsError(try BatchInputs.jobs(from: [dir.appendingPathComponent("nowhere").path], tasks: [.transcribe], options: BatchOptions()))
        let broken = dir.appendingPathComponent("broken.txt")
        try Data("a.wav\n{\"id\": 3}\n".utf8).write(to: broken)
        XCTAssertThrowsError(try BatchInputs.jobs(from: [broken.path], tasks: [.transcribe], options: BatchOptions())) {
            XCTAssertTrue($0.localizedDescription.contains("\(broken.path): input line 2 is not a job"), $0.localizedDescription)
        }
    }

    func testShardsHoldEveryJobOnceAndAJobKeepsItsShardWhenOthersAreAdded() throws {
        let jobs = (0..<200).map { BatchJob(path: "/archive/file\($0).wav") }
        let shards = (0..<4).map { BatchInputs.jobs(jobs, inShard: $0, of: 4) }
        XCTAssertEqual(shards.map(\.count).reduce(0, +), 200)
        XCTAssertEqual(Set(shards.flatMap { $0.map(\.id) }).count, 200)
        XCTAssertTrue(shards.allSatisfy { $0.count > 25 }, "roughly even: \(shards.map(\.count))")
        let more = jobs + (200..<260).map { BatchJob(path: "/archive/file\($0).wav") }
        XCTAssertEqual(BatchInputs.jobs(more, inShard: 2, of: 4).filter { jobs.contains($0) }, shards[2])
        XCTAssertEqual(try BatchInputs.shard("3/4").index, 3)
        for bad in ["4/4", "-1/2", "1", "a/b", "0/0"] { XCTAssertThrowsError(try BatchInputs.shard(bad), bad) }
    }

    func testJobLinesAndTheirMistakes() throws {
        let job = try BatchJob.parse(line: #"{"path": "a.wav", "options": {"beam_size": 5, "num_speakers": 2}}"#, number: 1)
        XCTAssertEqual(job.id, "a.wav")
        XCTAssertEqual(job.tasks, [.transcribe])
        XCTAssertEqual(job.options.beamSize, 5)
        XCTAssertEqual(job.options.numSpeakers, 2)
        for (line, problem) in [("nonsense", "not JSON"), (#"{"id": "x"}"#, #"no "path""#), (#"{"path": 3}"#, #""path" has the wrong type"#),
                                (#"{"path": "a", "tasks": ["dance"]}"#, "tasks are transcribe")] {
            XCTAssertThrowsError(try BatchJob.parse(line: line, number: 7), line) {
                XCTAssertTrue($0.localizedDescription.hasPrefix("input line 7 is not a job"), $0.localizedDescription)
                XCTAssertTrue($0.localizedDescription.contains(problem), "\(line): \($0.localizedDescription)")
            }
        }
        XCTAssertEqual(BatchJob.id(inBadLine: #"{"id": "x"}"#), "x")
        XCTAssertNil(BatchJob.id(inBadLine: "nonsense"))
    }
}
