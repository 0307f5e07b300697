import EarshotCore
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// Runs batch jobs with every model loaded once for the worker's life: Whisper through the process's shared
/// transcribers, the diarizer and the sound classifier on first use. A file that cannot be used gives a
/// failed result; nothing a job holds can stop the worker.
public final class BatchWorker: Sendable {
    public let threads: Int
    public let defaultModel: WhisperModel
    /// Jobs run at once (`run(_:lane:)`), the threads shared between them: each lane transcribes on its share of the
    /// threads, all on one loaded Whisper (`Transcriber.lanes`).
    public let lanes: Int
    private let store: ModelStore
    /// People known by voice who name a voice as enrolled people do (the notes' named people).
    private let voices: [Diarizer.NamedVoice]
    private let diarizer = Locked<Diarizer?>(nil)
    private let classifier = Locked<SoundClassifier?>(nil)
    /// Each configuration's lanes (light: they share the loaded Whisper), the 16 most recently used kept, as
    /// `Transcriber.shared` keeps its: a manifest whose jobs each give their own prompt makes a configuration a job.
    private let laneTranscribers = SharedInstances<Transcriber.Configuration, [Transcriber]>(capacity: 16)

    public init(threads: Int = SpeechRecognizer.defaultThreadCount, model: WhisperModel = .default, store: ModelStore = ModelStore(),
                lanes: Int = 1, voices: [Diarizer.NamedVoice] = []) {
        self.threads = threads
        self.voices = voices
        self.defaultModel = model
        self.store = store
        self.lanes = max(1, lanes)
    }

    /// - Parameter lane: which of the `lanes` runs it (`0..<lanes`); two jobs at once must be on different lanes.
    public func run(_ job: BatchJob, lane: Int = 0) async -> BatchResult {
        let started = Date()
        var result: BatchResult
        do {
            result = try await outcome(of: job, lane: min(max(0, lane), lanes - 1))
        } catch {
            result = .failure(job, error)
        }
        result.seconds = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        return result
    }

    private func outcome(of job: BatchJob, lane: Int) async throws -> BatchResult {
        guard !job.tasks.isEmpty else { throw BatchError.badOption("\(job.path): the job asks for no task") }
        var result = BatchResult(id: job.id, path: job.path, ok: true)
        var transcript: Transcript?
        if job.needsTranscript {
            let configuration = try job.transcription(threads: threads, defaultModel: defaultModel)
            transcript = try await transcriber(for: configuration, lane: lane).transcribe(file: job.path)
        }
        if job.needsVoices {
            var options = Diarizer.Options(numSpeakers: job.options.numSpeakers)
            options.voices = self.voices
            let voices = try loadedDiarizer().diarize(file: job.path, options: options)
            result.speakers = voices.speakers
            result.turns = voices.turns
            result.duration = voices.duration
            if let labelled = transcript?.labelled(by: voices) {
                transcript = labelled
                if !job.tasks.contains(.words) { for i in labelled.segments.indices { transcript!.segments[i].words = nil } }
            }
        }
        if let transcript {
            result.duration = transcript.duration
            result.text = transcript.text
            result.language = transcript.language
            result.model = transcript.model
            result.segments = JSONTranscriptWriter.segments(of: transcript)
        }
        if job.tasks.contains(.sounds) {
            let top = job.options.top ?? 5
            guard (1...50).contains(top) else { throw BatchError.badOption("top must be 1-50, not \(top)") }
            let sounds = try loadedClassifier().classify(file: job.path, top: top)
            result.sounds = sounds.top
            result.duration = result.duration ?? sounds.duration
        }
        result.duration = result.duration.map { ($0 * 1000).rounded() / 1000 }
        return result
    }

    /// The process's shared transcriber with one lane; with more, this lane's, made for every lane on first use.
    private func transcriber(for configuration: Transcriber.Configuration, lane: Int) throws -> Transcriber {
        guard lanes > 1 else { return try Transcriber.shared(configuration, store: store) }
        return try laneTranscribers.instance(for: configuration) { try Transcriber.lanes(configuration, count: lanes, store: store) }[lane]
    }

    private func loadedDiarizer() throws -> Diarizer {
        try diarizer.withLock { held in
            if let held { return held }
            let made = try Diarizer(store: store)
            held = made
            return made
        }
    }

    private func loadedClassifier() throws -> SoundClassifier {
        try classifier.withLock { held in
            if let held { return held }
            let made = try SoundClassifier.builtIn(store: store)
            held = made
            return made
        }
    }
}
