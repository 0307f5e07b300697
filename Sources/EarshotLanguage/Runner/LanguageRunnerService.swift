import EarshotCore
import Foundation

/// The runner program, `earshot-language-runner`: either a model's host (`host KIND …`, see `RunnerHost`), or its
/// worker, which loads one model and answers requests on its standard input until that closes (its host ended).
/// The worker exists so that a crash inside llama.cpp — an instruction the CPU faults on, a bad model — ends that
/// process only: the host sees the signal, fails that one piece of work with a readable error and starts a new
/// worker for the next (see `LanguageRunner`).
public enum LanguageRunnerService {
    /// The runner program's whole life. `arguments`: [host] KIND [MODEL] [--threads N] [--home DIR] …. Returns the
    /// exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        if arguments.first == "host" { return RunnerHost.main(arguments) }
        // answers go to the original standard output; anything else written to stdout (a library's print)
        // is sent to stderr instead, so it can never corrupt the protocol
        watchParent()
        let answers = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let output = FileHandle(fileDescriptor: answers, closeOnDealloc: true)
        func send(_ response: RunnerResponse) {
            var line = (try? JSONEncoder().encode(response)) ?? Data(#"{"error":"cannot encode the answer"}"#.utf8)
            line.append(0x0A)
            output.write(line)
        }
        func option(_ name: String) -> String? { Self.option(name, in: arguments) }
        let threads = option("--threads").flatMap(Int.init) ?? 2
        let store = ModelStore(home: option("--home").map { URL(fileURLWithPath: $0) })
        let handler: (RunnerRequest) throws -> RunnerResponse
        do {
            switch try LanguageRunner.Kind(arguments: arguments) {
            case let .chat(choice):
                let model = try LanguageModel(choice, store: store, threads: threads, remembersPrompts: true)
                handler = { request in try answer(request, model: model, partial: send) }
            case .embed:
                let embedder = try TextEmbedder(store: store, threads: threads)
                handler = { request in
                    guard request.op == .embed, let text = request.text else { throw LanguageError.failed("an embedding runner only embeds text") }
                    return RunnerResponse(vector: try embedder.embed(text))
                }
            }
        } catch {
            send(RunnerResponse(error: describe(error)))
            return 1
        }
        send(RunnerResponse(ready: true))
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            do {
                send(try handler(try JSONDecoder().decode(RunnerRequest.self, from: Data(line.utf8))))
            } catch {
                send(RunnerResponse(error: describe(error)))
            }
        }
        return 0
    }

    /// The value after `--name` among a runner's arguments (the worker's and the host's).
    static func option(_ name: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: name).flatMap { arguments[safe: $0 + 1] }
    }

    /// Ends the runner when the process that started it is gone (killed mid-request, it cannot close the socket
    /// for us while a generation is running, and that generation would hold the machine's model lock for nothing).
    /// Polled: PR_SET_PDEATHSIG follows the spawning *thread*, which a thread pool may retire at any time.
    static func watchParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { sleep(1) }
            _exit(0)
        }
    }

    /// `partial` sends the pieces of a streamed reply as they come.
    static func answer(_ request: RunnerRequest, model: LanguageModel, partial: @escaping (RunnerResponse) -> Void) throws -> RunnerResponse {
        switch request.op {
        case .reply:
            let asked = ReplyRequest(request.messages ?? [], maxTokens: request.maxTokens ?? 256, grammar: request.grammar, end: request.end)
            let text = request.stream == true ? try model.reply(to: asked, onText: { partial(RunnerResponse(partial: $0)) })
                : try model.reply(to: asked.messages, maxTokens: asked.maxTokens, grammar: asked.grammar, end: asked.end)
            return RunnerResponse(text: text, usage: model.usage)
        case .replies:
            return RunnerResponse(texts: try model.replies(to: request.requests ?? []), usage: model.usage)
        case .count:
            return RunnerResponse(count: model.tokenCount(request.text ?? ""))
        case .embed:
            throw LanguageError.failed("a chat runner does not embed text")
        }
    }

    static func describe(_ error: Error) -> String { (error as? LocalizedError)?.errorDescription ?? "\(error)" }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
