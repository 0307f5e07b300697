import EarshotCore
import EarshotLanguage
import EarshotSound
import EarshotSpeech
import Foundation

/// `earshot doctor`: does every native runtime run correctly on this CPU? Each network runs once in a child
/// process, so an instruction the CPU faults on is reported (with its signal) instead of ending the check.
/// Setup runs it right after building (scripts/check-runtimes.sh) and rebuilds llama.cpp in its portable form
/// when a language check crashes.
enum DoctorCommand {
    static let command = Command(
        name: "doctor",
        abstract: "Check that every runtime and model runs on this CPU; name the CPU features in use.",
        usage: "[--accuracy] [--json]",
        discussion: """
        Prints the CPU, the instruction-set extensions Earshot's native code can use here (AVX2, AVX-512, VNNI, AMX),
        the ones llama.cpp was built with, then runs each network once in a process of its own: Whisper, the
        voice-activity detector, YAMNet, the speaker encoder, the diarization network (ONNX Runtime), each installed
        language model and the text embedder (llama.cpp). A check that crashes says how (e.g. illegal instruction, signal 4).
        Exit code 1 when a check fails; `make setup` runs this after building.

        --accuracy also compares each language model with the float copy setup keeps of it (reference/llm): llama.cpp
        picks its 4-bit kernels by the CPU's extensions, and a kernel that computes wrongly here shows as next tokens
        that part from the copy's (16 s for the default model the first time, 6 s once the copy's reading is kept
        in reference/llm-readings).
        """,
        options: [
            Option(name: "accuracy", value: nil, help: "Also compare each language model with its float copy on this CPU."),
            Option(name: "json", value: nil, help: "Print JSON."),
            Option(name: "check", value: "NAME", help: "Run one network or float-copy check in this process (what doctor runs in its children)."),
        ],
        examples: ["earshot doctor", "earshot doctor --accuracy", "earshot doctor --json"],
        run: run)

    struct Report: Encodable {
        let cpu: String
        let features: [String]
        let llamaBuild: String
        let checks: [Check]
    }

    struct Check: Encodable {
        let name: String
        /// "onnxruntime" or "llama.cpp": which native runtime the check exercises (setup rebuilds llama.cpp only).
        var runtime = "llama.cpp"
        let ok: Bool
        let seconds: Double
        /// What went wrong, or what the check produced.
        let detail: String
        /// The signal that ended it, when it crashed.
        let signal: Int32?
    }

    /// The extensions that decide which kernels run (flag names as /proc/cpuinfo writes them).
    static let watched = ["avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
                          "avx512_fp16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let name = args.value("check") { return try runCheck(name) }
        let store = ModelStore()
        let (cpu, flags) = (CPUInfo.model, CPUInfo.flags)
        let build = (try? String(contentsOf: store.home.appendingPathComponent("runtime/llama/instruction-sets.txt"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown (no runtime/llama/instruction-sets.txt: run `\(ModelStore.installCommand)`)"
        if !args.flag("json") {
            print("CPU: \(cpu)")
            print("features: \(watched.filter(flags.contains).joined(separator: " "))")
            print("llama.cpp built for: \(build)\n")
        }
        var checks: [Check] = []
        func record(_ check: Check) {
            checks.append(check)
            if !args.flag("json") {
                print("\(check.ok ? "ok  " : "FAIL") \(check.name.padding(toLength: 26, withPad: " ", startingAt: 0)) "
                      + String(format: "%5.1f s  ", check.seconds) + check.detail)
            }
        }
        for name in onnxChecks {
            var check = try child(name)
            check.runtime = "onnxruntime"
            record(check)
        }
        for choice in LanguageModelChoice.allCases where choice.path(in: store) != nil {
            record(timed("language model \(choice.rawValue)") {
                let model = try RunnerChatModel(choice, store: store)
                let reply = try model.reply(to: [ChatMessage("user", "Reply with the word ready.")], maxTokens: 4)
                return "replied \"\(reply)\"" + (choice.measuredSteps(in: store).map { "; \($0)" } ?? "")
            })
        }
        for choice in LanguageModelChoice.allCases where args.flag("accuracy") && choice.path(in: store) != nil {
            record(try child("float copy \(choice.rawValue)"))  // llama.cpp's kernels, in a process of its own
        }
        record(timed("text embedding") {
            let vector = try RunnerTextEmbedder(store: store).embed("a quick check of the embedding runtime")
            guard vector.allSatisfy(\.isFinite), vector.contains(where: { $0 != 0 }) else { throw LanguageError.failed("the embedding is not a finite vector") }
            return "\(vector.count) dimensions"
        })
        if args.flag("json") { try JSONOutput.document(Report(cpu: cpu, features: watched.filter(flags.contains), llamaBuild: build, checks: checks)) }
        let failed = checks.filter { !$0.ok }
        if !failed.isEmpty {
            StandardError.write("\(failed.count) check(s) failed: \(failed.map(\.name).joined(separator: ", ")). Run `\(ModelStore.installCommand)` "
                                + "in the Earshot source folder to reinstall; it rebuilds llama.cpp without AVX-512 when a language check crashes.\n")
            return 1
        }
        return 0
    }

    /// A language check: the runners are child processes already, and say how they ended.
    static func timed(_ name: String, _ body: () throws -> String) -> Check {
        let started = Date()
        do {
            let detail = try body()
            return Check(name: name, ok: true, seconds: Date().timeIntervalSince(started), detail: detail, signal: nil)
        } catch {
            var signal: Int32?
            if case let .runnerCrashed(s, _, _) = error as? LanguageError { signal = s }
            return Check(name: name, ok: false, seconds: Date().timeIntervalSince(started),
                         detail: (error as? LocalizedError)?.errorDescription ?? "\(error)", signal: signal)
        }
    }

    // MARK: the ONNX checks, each in a child process

    static let onnxChecks = ["whisper tiny.en", "whisper base", "voice activity", "yamnet", "speaker encoder",
                             "diarization network"]

    /// Runs `earshot doctor --check NAME` and reports how it ended.
    static func child(_ name: String) throws -> Check {
        let started = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessStatus.programPath)
        process.arguments = ["doctor", "--check", name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            return Check(name: name, ok: false, seconds: seconds,
                         detail: "crashed: \(ProcessStatus.describe(signal: signal))", signal: signal)
        }
        return Check(name: name, ok: process.terminationStatus == 0, seconds: seconds, detail: last, signal: nil)
    }

    /// One network once, on two seconds of a chirp with noise (enough for every front end; nothing to download).
    static func runCheck(_ name: String) throws -> Int32 {
        let rate = 16_000
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<(2 * rate)).map { i -> Float in
            let t = Float(i) / Float(rate)
            return 0.3 * sin(2 * .pi * (200 + 300 * t) * t) + Float.random(in: -0.02...0.02, using: &generator)
        }
        let store = ModelStore()
        switch name {
        case "whisper tiny.en", "whisper base":
            let model = try WhisperModel(named: String(name.dropFirst("whisper ".count)))
            // one greedy pass: on a chirp the temperature fallback read base's window six times (20 s)
            let text = try SpeechRecognizer(model: model, threads: 2, store: store)
                .recognize(samples[...], as: SpeechRecognizer.Decoding(temperatures: [0]))
            print("ran (\(text.split(separator: " ").count) words on a chirp)")
        case "voice activity":
            let detector = try VoiceActivityDetector(store: store)
            let regions = detector.accept(samples[...]) + detector.flush()
            print("ran (\(regions.count) regions)")
        case "yamnet":
            let result = try SoundClassifier.builtIn(store: store).classify(AudioBuffer(samples: samples, sampleRate: rate), top: 1)
            guard let top = result.overall.top.first, top.confidence.isFinite else { throw LanguageError.failed("no finite score") }
            print("ran (top label: \(top.label))")
        case "speaker encoder":
            let vector = try SpeakerEncoder(store: store).embedding(samples[...])
            guard vector.allSatisfy(\.isFinite) else { throw LanguageError.failed("the embedding is not finite") }
            print("ran (\(vector.count) dimensions)")
        case "diarization network":
            let encoder = try DiarizationEncoder(store: store)
            let features = encoder.frontEnd.compute(samples[...])
            let vectors = try encoder.embeddings(features: features, windows: [0..<(features.count / encoder.frontEnd.bands)])
            guard let vector = vectors.first, vector.allSatisfy(\.isFinite) else { throw LanguageError.failed("the embedding is not finite") }
            print("ran (\(vector.count) dimensions)")
        case let name where name.hasPrefix("float copy "):
            // in a child process of its own, as the runners are: a kernel that faults here ends only this check
            let choice = try LanguageModelChoice(named: String(name.dropFirst("float copy ".count)))
            let agreement = try FloatCopy.compare(choice, store: store)
            let bound = FloatCopy.bounds(of: choice)
            print(String(format: "next token as its float copy's at %.3f of %d positions (≥ %.2f), mean KL %.3f nats (≤ %.2f)",
                         agreement.sameNextToken, agreement.positions, bound.sameNextToken, agreement.divergence, bound.divergence))
            return FloatCopy.passes(agreement, for: choice) ? 0 : 1
        default:
            throw UsageError(message: "unknown check '\(name)'; one of: \((onnxChecks + LanguageModelChoice.allCases.map { "float copy \($0.rawValue)" }).joined(separator: ", "))",
                             path: ["earshot", "doctor"])
        }
        return 0
    }
}
