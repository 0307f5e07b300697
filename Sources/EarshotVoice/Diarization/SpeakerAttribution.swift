import EarshotSpeech
import Foundation

extension Transcript {
    /// The transcript with every word and segment given its speaker from `diarization` (the speaker who talks
    /// most while the word is said). A segment whose words change speaker is split there, each part timed by
    /// its own words; a segment without word times gets the speaker of its whole span.
    public func labelled(by diarization: Diarization) -> Transcript {
        var copy = self
        copy.segments = segments.flatMap { segment -> [TranscriptSegment] in
            guard let words = segment.words, !words.isEmpty else {
                var labelled = segment
                labelled.speaker = diarization.speaker(from: segment.start, to: segment.end)
                return [labelled]
            }
            let spoken = words.map { word -> TranscriptWord in
                var w = word
                w.speaker = diarization.speaker(from: word.start, to: word.end)
                return w
            }
            var parts: [[TranscriptWord]] = []
            for word in spoken {
                // a word nobody's turn reaches stays with the words around it
                if let last = parts.last?.last, word.speaker == nil || last.speaker == word.speaker || last.speaker == nil {
                    parts[parts.count - 1].append(word)
                } else {
                    parts.append([word])
                }
            }
            guard parts.count > 1 else {
                var labelled = segment
                labelled.words = spoken
                labelled.speaker = spoken.compactMap(\.speaker).first
                return [labelled]
            }
            return parts.map { part in
                var piece = segment
                piece.start = part[0].start
                piece.end = part[part.count - 1].end
                piece.text = part.map(\.word).joined().trimmingCharacters(in: .whitespaces)
                piece.words = part
                piece.speaker = part.compactMap(\.speaker).first
                piece.tokens = nil  // the segment's tokens belong to the whole of it
                return piece
            }
        }
        return copy
    }
}
