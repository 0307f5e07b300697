import EarshotCore
import EarshotSpeech
import Foundation

extension Transcriber {
    /// The label of a final line whose voice is none of the enrolled ones, or too short to tell.
    public static let someoneElse = "someone else"

    /// Live transcription (as `live(_:settings:)`) with each final line's `speaker` set to the enrolled person whose
    /// voice it is, or `Transcriber.someoneElse`. The stream's last minute is kept while it plays, so a line's audio
    /// is matched as soon as the line ends, without a second pass over the source. Partial lines are not labelled:
    /// they change about once a second and a voice needs the whole line. Throws `VoiceError.noProfiles` (as the
    /// stream's error) when nobody is enrolled. With `voices` nil, the plain live stream.
    public nonisolated func live(_ source: any AudioSource, speakers voices: VoiceID?,
                                 settings: LiveTranscription.Settings = .init()) -> AsyncThrowingStream<LiveEvent, Error> {
        guard let voices else { return live(source, settings: settings) }
        return producedStream { emit in
            try await voices.requireSomeoneEnrolled()
            let tap = TappedSource(source, keeping: 60)
            for try await event in self.live(tap, settings: settings) {
                guard case .final(var segment, let delay) = event else {
                    emit(event)
                    continue
                }
                segment.speaker = await Self.speaker(of: segment, in: tap, among: voices)
                emit(.final(segment: segment, delay: delay))
            }
        }
    }

    /// Whose voice a finished line is: the first accepted person of the identification, else "someone else".
    private static func speaker(of segment: TranscriptSegment, in tap: TappedSource, among voices: VoiceID) async -> String {
        guard let audio = tap.audio(from: segment.start, to: segment.end),
              let found = try? await voices.identify(audio: audio, source: "the line at \(segment.start) s") else { return someoneElse }
        return found.speaker ?? someoneElse
    }
}
