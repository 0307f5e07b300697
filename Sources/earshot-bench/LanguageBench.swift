import EarshotLanguage
import EarshotNotes
import EarshotSpeech
import Foundation

/// `earshot-bench llm-speed MODEL`: prompt and generation tokens/s through the runner (as the notes pipeline runs
/// the model) and in this process, for bench/llm.py to set beside llama.cpp's own llama-bench.
/// `earshot-bench llm-notes MODEL FILE.json [DRAFT] [--one-at-a-time]`: the note writer over each transcript of a judged
/// set, a JSON line each; `--one-at-a-time` asks a note's questions one after the other instead of together, to compare.
enum LanguageBench {
    static func speed(_ choice: LanguageModelChoice) throws {
        // about 500 prompt tokens of plain prose, then a generation that does not stop on its own before 64 tokens
        let prose = String(repeating: "The committee met on Tuesday to discuss the budget, the hiring plan and the launch date. ", count: 28)
        let prompt = [ChatMessage("user", prose + "\nReply with OK.")]
        let count = [ChatMessage("user", "Count from one to two hundred in words, separated by commas.")]
        var result: [String: Any] = ["model": choice.rawValue]
        for (name, model) in [("runner", try RunnerChatModel(choice) as any ChatModel), ("in_process", try LanguageModel(choice) as any ChatModel)] {
            _ = try model.reply(to: [ChatMessage("user", "Hello")], maxTokens: 2, grammar: nil)  // loaded, runner started
            var prefill: [Double] = [], generation: [Double] = []
            for round in 0..<3 {
                // a different first word each round, so no round reuses the previous one's cached prompt
                let fresh = [ChatMessage("user", "Round \(round). " + prompt[0].content)]
                let before = model.usage, started = Date()
                _ = try model.reply(to: fresh, maxTokens: 1, grammar: nil)
                prefill.append(Double(model.usage.promptTokens - before.promptTokens) / Date().timeIntervalSince(started))
                // generation alone: the same short prompt (decoded again each time: it is under one prompt chunk)
                // answered with 1 and with 65 tokens; the difference is 64 tokens of generation
                let t1 = Date()
                _ = try model.reply(to: count, maxTokens: 1, grammar: nil)
                let one = Date().timeIntervalSince(t1), g0 = model.usage, t65 = Date()
                _ = try model.reply(to: count, maxTokens: 65, grammar: nil)
                let generated = model.usage.generatedTokens - g0.generatedTokens - 1
                generation.append(Double(generated) / (Date().timeIntervalSince(t65) - one))
            }
            result[name] = ["prompt_tokens_per_s": prefill.sorted()[1], "generation_tokens_per_s": generation.sorted()[1]]
        }
        let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// A judged note: a plain transcript, or a conversation's turns (speaker, text) as a labelled note holds them.
    struct JudgedNote: Decodable {
        struct Turn: Decodable { let speaker: String; let text: String }
        let kind: String
        let transcript: String?
        let turns: [Turn]?

        /// The note's segments, a turn each, a second apart (the times only order them).
        var segments: [TranscriptSegment] {
            (turns ?? []).enumerated().map { i, turn in
                var segment = TranscriptSegment(start: Double(i), end: Double(i) + 1, text: turn.text)
                segment.speaker = turn.speaker
                return segment
            }
        }
    }

    /// `draft`: nil runs the model as the notes pipeline does (its runner, prompt lookup as shipped); a number runs
    /// it in this process with guesses of up to that many tokens (0: plain greedy decoding), to compare the two.
    static func notes(_ choice: LanguageModelChoice, file: String, draft: Int? = nil, oneAtATime: Bool = false) throws {
        let notes = try JSONDecoder().decode([JudgedNote].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        let local = try draft.map { draft in
            let model = try LanguageModel(choice)
            model.draftTokens = draft
            return model
        }
        let model: any ChatModel = try local ?? RunnerChatModel(choice)
        let writer = NoteWriter(model: oneAtATime ? OneAtATime(model) : model)
        // loaded outside the timing, with a request that reads no prompt: a runner starts from the prompt it kept
        _ = try writer.model.tokenCount("Hello")
        for note in notes {
            let started = Date()
            let before = (local?.generatedTokens ?? 0, local?.acceptedTokens ?? 0, local?.promptTokens ?? 0, local?.draftedTokens ?? 0)
            let segments = note.segments
            let plain = note.transcript ?? segments.map(\.text).joined(separator: " ")
            let text = try writer.write(transcript: Note.reading(segments) ?? plain,
                                        sentences: segments.isEmpty ? nil : NoteSentence.sentences(of: segments))
            var line: [String: Any] = ["kind": note.kind, "title": text.title, "title_by_model": text.titleFromModel,
                                       "summary": text.summary, "actions": text.actions.map(\.line), "owners": text.actions.map { $0.owner ?? "" },
                                       "proposed": text.proposedActions, "seconds": Date().timeIntervalSince(started)]
            if let local {
                line["generated_tokens"] = local.generatedTokens - before.0
                line["guessed_tokens_kept"] = local.acceptedTokens - before.1
                line["guessed_tokens"] = local.draftedTokens - before.3
                line["prompt_tokens_decoded"] = local.promptTokens - before.2
            }
            FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) + Data("\n".utf8))
        }
    }

    /// `earshot-bench check-actions NOTES.json PROPOSED.jsonl`: the checks (`Commitments`) over items a model proposed
    /// before (the "proposed" of `llm-notes` lines), without running it again: a JSON line per note.
    static func checkActions(file: String, proposed: String) throws {
        let notes = try JSONDecoder().decode([JudgedNote].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        let lines = try String(contentsOfFile: proposed, encoding: .utf8).split(separator: "\n")
        for (note, line) in zip(notes, lines) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            let segments = note.segments
            let sentences = segments.isEmpty ? NoteSentence.sentences(of: note.transcript ?? "") : NoteSentence.sentences(of: segments)
            var result = object
            let actions = Commitments.check(object["proposed"] as? [String] ?? [], in: sentences)
            result["actions"] = actions.map(\.line)
            result["owners"] = actions.map { $0.owner ?? "" }
            FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]) + Data("\n".utf8))
        }
    }

    /// A chat model whose questions are answered one after the other (`ChatModel`'s own `replies`).
    final class OneAtATime: ChatModel {
        let model: any ChatModel
        init(_ model: any ChatModel) { self.model = model }
        var choice: LanguageModelChoice { model.choice }
        var usage: GenerationUsage { model.usage }
        func reply(to messages: [ChatMessage], maxTokens: Int, grammar: String?, end: ReplyEnd?) throws -> String {
            try model.reply(to: messages, maxTokens: maxTokens, grammar: grammar, end: end)
        }
        func tokenCount(_ text: String) throws -> Int { try model.tokenCount(text) }
    }
}
