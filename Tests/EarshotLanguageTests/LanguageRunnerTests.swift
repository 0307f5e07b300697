@testable import EarshotLanguage
import EarshotCore
import EarshotTestSupport
import Foundation
import XCTest

/// Language models in a process of their own: the runner answers exactly as the model in this process does,
/// a runner that crashes or hangs fails only the request it was on (with a readable reason) and is replaced,
/// and the llama.cpp that setup built holds no instruction a CPU might fault on.
final class LanguageRunnerTests: XCTestCase {
    func smallModelOrSkip() throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
    }

    static let question = [ChatMessage("system", "Answer briefly."), ChatMessage("user", "Name three colours of the rainbow.")]

    func testTheRunnerAnswersExactlyAsTheModelInThisProcess() throws {
        try smallModelOrSkip()
        let local = try LanguageModel(.small)
        let isolated = try RunnerChatModel(.small)
        XCTAssertEqual(try isolated.reply(to: Self.question, maxTokens: 40), try local.reply(to: Self.question, maxTokens: 40))
        let text = "The marketing budget for next quarter is cut by ten percent."
        XCTAssertEqual(try isolated.tokenCount(text), local.tokenCount(text))
        XCTAssertGreaterThan(isolated.usage.generatedTokens, 0)

        // streamed: the same reply, told piece by piece as it is written, through the host and its worker
        let pieces = Locked<[String]>([])
        let streamed = try isolated.reply(to: ReplyRequest(Self.question, maxTokens: 40)) { piece in pieces.withLock { $0.append(piece) } }
        XCTAssertEqual(streamed, try local.reply(to: Self.question, maxTokens: 40))
        XCTAssertGreaterThan(pieces.withLock { $0.count }, 3, "told as it is written, not at the end")
        XCTAssertEqual(pieces.withLock { $0.joined() }.trimmingCharacters(in: .whitespacesAndNewlines), streamed)

        let sentence = "Anna will send the revised plan to finance by Thursday."
        let a = try TextEmbedder().embed(sentence), b = try RunnerTextEmbedder().embed(sentence)
        XCTAssertEqual(a.count, 384)
        XCTAssertEqual(a, b)
    }

    /// A request sent while the worker is stopped (so it is surely in flight), then `meanwhile` (which signals
    /// the worker or its host, and lets the worker go on); the request's outcome.
    static func reply(_ model: RunnerChatModel, maxTokens: Int, whileStopped worker: pid_t, meanwhile: () -> Void) -> Result<String, Error> {
        kill(worker, SIGSTOP)
        let outcome = Locked<Result<String, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { try model.reply(to: question, maxTokens: maxTokens) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        meanwhile()
        done.wait()
        return outcome.withLock { $0 }!
    }

    func testACrashedRunnerFailsOnlyItsRequestWithTheSignalAndIsReplaced() throws {
        try smallModelOrSkip()
        let model = try RunnerChatModel(.small)
        _ = try model.reply(to: Self.question, maxTokens: 4)
        let first = try XCTUnwrap(model.runner.processID)
        for (signal, name) in [(SIGILL, "illegal instruction (signal 4)"), (SIGSEGV, "segmentation fault (signal 11)"), (SIGKILL, "killed (signal 9)")] {
            _ = try model.reply(to: Self.question, maxTokens: 4)  // a runner (a new one after each crash)
            // stopped, so the request is surely in flight when the signal lands: delivered as the runner resumes
            let pid = try XCTUnwrap(model.runner.processID)
            let outcome = Self.reply(model, maxTokens: 40, whileStopped: pid) {
                kill(pid, signal)
                kill(pid, SIGCONT)
            }
            XCTAssertThrowsError(try outcome.get(), "signal \(signal)") { error in
                guard case let .runnerCrashed(got, _, _)? = error as? LanguageError else { return XCTFail("\(error)") }
                XCTAssertEqual(got, signal)
                let message = (error as? LocalizedError)?.errorDescription ?? ""
                XCTAssertTrue(message.contains(name), message)
                XCTAssertTrue(message.contains("earshot doctor"), message)
            }
            XCTAssertNil(model.runner.processID, "a crashed runner is forgotten")
            XCTAssertEqual(kill(pid, 0), -1, "the crashed runner was reaped")
        }
        // the next request starts a new runner and gets the same answer as before the crashes
        let again = try model.reply(to: Self.question, maxTokens: 4)
        XCTAssertFalse(again.isEmpty)
        XCTAssertNotEqual(model.runner.processID, first)
    }

    /// One host per model for the machine (per EARSHOT_HOME): every client in this process and in others reaches the
    /// same worker, the host logs each request with the process it came from, and it leaves once no client has been
    /// connected for its keep-alive (its socket gone with it).
    func testOneHostServesEveryProcessAndLeavesAfterItsKeepAlive() throws {
        let home = try TestHome.make()
        defer { try? FileManager.default.removeItem(at: home) }
        setenv("EARSHOT_LANGUAGE_KEEP_ALIVE", "1", 1)
        defer { unsetenv("EARSHOT_LANGUAGE_KEEP_ALIVE") }
        var first: RunnerTextEmbedder? = try RunnerTextEmbedder(store: ModelStore(home: home))
        var second: RunnerTextEmbedder? = try RunnerTextEmbedder(store: ModelStore(home: home))
        let vector = try first!.embed("the budget meeting moved to Thursday")
        let worker = try XCTUnwrap(first!.runner.processID)
        XCTAssertEqual(try second!.embed("the budget meeting moved to Thursday"), vector)
        XCTAssertEqual(second!.runner.processID, worker, "two clients of this process, one worker")

        // another process: the CLI's search by meaning embeds its query through the same host
        let search = try CLI.run(["notes", "search", "--semantic", "budget"], environment: ["EARSHOT_HOME": home.path])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertEqual(ChildProcesses.running(["earshot-language-runner host embed", home.path]).count, 1, "one host")
        XCTAssertEqual(ChildProcesses.running(["earshot-language-runner embed", home.path]), [worker], "one worker")
        let run = home.appendingPathComponent("run")
        let logName = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: run.path).first { $0.hasPrefix("language-embed") && $0.hasSuffix(".log") })
        let log = try String(contentsOf: run.appendingPathComponent(logName), encoding: .utf8)
        let clients = Set(log.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("embed for process"), line.hasSuffix("ok") else { return nil }
            return line.components(separatedBy: "for process ").last?.split(separator: " ").first.map(String.init)
        })
        XCTAssertEqual(clients.count, 2, "requests from this process and the CLI's:\n\(log)")
        XCTAssertTrue(clients.contains(String(getpid())), log)

        // no client left: the host goes after its keep-alive (1 s here), taking its worker and socket with it
        first = nil
        second = nil
        var left = false
        for _ in 0..<300 where !left {
            Thread.sleep(forTimeInterval: 0.1)
            left = ChildProcesses.running(["earshot-language-runner", home.path]).isEmpty
        }
        XCTAssertTrue(left, "the host and its worker left")
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: run.path).contains { $0.hasSuffix(".sock") })
    }

    /// The host itself killed while a request is out (the worker held stopped, so the request is surely in flight):
    /// the client sends it again through a new host, and the old worker leaves once it sees its host gone.
    func testAKilledHostIsReplacedAndTheRequestStillAnswered() throws {
        try smallModelOrSkip()
        let home = try TestHome.make()
        defer { try? FileManager.default.removeItem(at: home) }
        let model = try RunnerChatModel(.small, store: ModelStore(home: home))
        let expected = try model.reply(to: Self.question, maxTokens: 8)
        let worker = try XCTUnwrap(model.runner.processID)
        let host = try XCTUnwrap(ProcessStatus.parent(of: worker))
        let outcome = Self.reply(model, maxTokens: 8, whileStopped: worker) {
            kill(host, SIGKILL)
            kill(worker, SIGCONT)
        }
        XCTAssertEqual(try outcome.get(), expected)
        XCTAssertNotEqual(model.runner.processID, worker)
        var gone = false
        for _ in 0..<100 where !gone {
            Thread.sleep(forTimeInterval: 0.1)
            gone = !ProcessStatus.isRunning(worker)
        }
        XCTAssertTrue(gone, "the old host's worker left")
    }

    /// A runner lives as long as its owner, so it must hold nothing of the process that started it but the socket
    /// and stderr: a pipe another thread had open at the time (Foundation's are not close-on-exec) would never
    /// reach its end for whoever reads it.
    func testTheRunnerInheritsNoOtherDescriptor() throws {
        try smallModelOrSkip()
        let open = Pipe()
        defer { try? open.fileHandleForWriting.close() }
        let model = try RunnerChatModel(.small)
        _ = try model.reply(to: Self.question, maxTokens: 4)
        let pid = try XCTUnwrap(model.runner.processID)
        let mine = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(open.fileHandleForWriting.fileDescriptor)")
        let theirs = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        XCTAssertFalse(theirs.contains(mine), "\(mine) stayed in this process")
    }

    func testAHungRunnerIsStoppedAtTheTimeLimit() throws {
        try smallModelOrSkip()
        let model = try RunnerChatModel(.small)
        _ = try model.reply(to: Self.question, maxTokens: 4)
        let pid = try XCTUnwrap(model.runner.processID)
        kill(pid, SIGSTOP)  // alive, but answers nothing
        setenv("EARSHOT_LANGUAGE_TIMEOUT", "2", 1)
        defer { unsetenv("EARSHOT_LANGUAGE_TIMEOUT") }
        XCTAssertThrowsError(try model.reply(to: Self.question, maxTokens: 4)) { error in
            guard case .runnerTimedOut? = error as? LanguageError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(kill(pid, 0), -1, "the hung runner was stopped")
        unsetenv("EARSHOT_LANGUAGE_TIMEOUT")
        XCTAssertFalse(try model.reply(to: Self.question, maxTokens: 4).isEmpty)
    }

    func testAMissingRunnerIsNamedWithHowToBuildIt() throws {
        try smallModelOrSkip()
        setenv("EARSHOT_LANGUAGE_RUNNER", "/nonexistent/earshot-language-runner", 1)
        defer { unsetenv("EARSHOT_LANGUAGE_RUNNER") }
        XCTAssertThrowsError(try RunnerChatModel(.small).reply(to: Self.question, maxTokens: 4)) { error in
            let message = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(message.contains("/nonexistent/earshot-language-runner") && message.contains("swift build --product earshot-language-runner"), message)
        }
    }

    /// ggml's AMX kernels fault on Intel Xeons that have AMX (SIGILL in ggml_backend_amx_mul_mat): setup builds
    /// without them. The machines that build may lack AMX altogether, so this reads the built code itself.
    func testTheBuiltLlamaCppHoldsNoAMXInstruction() throws {
        let lib = ModelStore().home.appendingPathComponent("runtime/llama/lib")
        let libraries = try FileManager.default.contentsOfDirectory(atPath: lib.path).filter { $0.hasSuffix(".so") }
        XCTAssertTrue(libraries.contains("libggml-cpu.so"), "\(libraries)")
        XCTAssertEqual(Self.mnemonics(in: Array("0000000000001000 <f>:\n  1a2b3:\ttilezero %tmm0\n  1a2b8:\tret\n".utf8)), ["tilezero", "ret"])
        for name in libraries {
            let objdump = Process()
            objdump.executableURL = URL(fileURLWithPath: "/usr/bin/objdump")
            objdump.arguments = ["-d", "--no-show-raw-insn", lib.appendingPathComponent(name).path]
            let out = Pipe()
            objdump.standardOutput = out
            try objdump.run()
            let listing = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
            objdump.waitUntilExit()
            XCTAssertEqual(objdump.terminationStatus, 0)
            XCTAssertGreaterThan(listing.count, 1000, "objdump printed no code for \(name)")
            let amx: Set<String> = ["tilezero", "tileloadd", "tileloaddt1", "tilestored", "tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud",
                                    "tdpbf16ps", "tdpfp16ps", "ldtilecfg", "sttilecfg", "tilerelease"]
            let words = Self.mnemonics(in: listing)
            XCTAssertTrue(words.contains("ret"), "no instruction read from objdump's listing of \(name)")
            let found = words.filter { amx.contains($0) }
            XCTAssertTrue(found.isEmpty, "\(name) holds AMX instructions: \(found.prefix(3))")
        }
    }

    /// The mnemonics of an `objdump -d --no-show-raw-insn` listing: on each instruction's line ("  1a2b3:\ttilezero
    /// %tmm0") the first word after the address's tab. Read as bytes: libllama's 28 MB listing split into Swift strings
    /// line by line took 7 s of the suite, this pass a fraction of a second.
    static func mnemonics(in listing: [UInt8]) -> [String] {
        let (tab, newline, space, colon) = (UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: " "), UInt8(ascii: ":"))
        var words: [String] = []
        var i = 0
        while i < listing.count {
            var j = i
            while j < listing.count, listing[j] != newline, listing[j] != tab { j += 1 }
            if j < listing.count, listing[j] == tab, j > i, listing[j - 1] == colon {
                var end = j + 1
                while end < listing.count, listing[end] != space, listing[end] != newline, listing[end] != tab { end += 1 }
                words.append(String(decoding: listing[(j + 1)..<end], as: UTF8.self))
                j = end
            }
            while j < listing.count, listing[j] != newline { j += 1 }
            i = j + 1
        }
        return words
    }
}
