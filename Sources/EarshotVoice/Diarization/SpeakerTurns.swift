import Foundation

/// Turns from labelled windows: inside a stretch of speech the voice changes halfway between two windows that
/// disagree; a change shorter than `minTurn` is a stray window and is given to its neighbours; turns of one
/// voice closer than `fillGap` are joined (people pause inside a turn more than the detector keeps).
struct SpeakerTurns {
    /// Just over one window step (0.75 s): a voice that one window alone hears is a stray, not a turn. (0.5 s let
    /// single windows through: two espeak-ng voices taking turns came out with a 0.75 s flip in the first
    /// sentence; 0.8 s removed it, DER on the seed-11 conversations 1.35% → 1.54%, the seed-7 set and pyannote's
    /// sample unchanged.)
    var minTurn = 0.8
    var fillGap = 0.75

    struct Turn: Equatable { var start: Double; var end: Double; var voice: Int }

    func turns(regions: [SpeechWindowTrack.Region], windows: [SpeechWindowTrack.Window], labels: [Int]) -> [Turn] {
        var all: [Turn] = []
        var w = 0
        for (r, region) in regions.enumerated() {
            var inRegion: [Int] = []
            while w < windows.count, windows[w].region == r { inRegion.append(w); w += 1 }
            guard !inRegion.isEmpty else { continue }
            var runs: [Turn] = []
            for (k, index) in inRegion.enumerated() {
                let voice = labels[index]
                if let last = runs.last, last.voice == voice { continue }
                let start = k == 0 ? region.start : (windows[inRegion[k - 1]].center + windows[index].center) / 2
                if !runs.isEmpty { runs[runs.count - 1].end = start }
                runs.append(Turn(start: start, end: region.end, voice: voice))
            }
            all += absorbShort(runs)
        }
        return joined(all)
    }

    /// Runs shorter than `minTurn` go to the longer neighbour, shortest first, until none is left.
    private func absorbShort(_ runs: [Turn]) -> [Turn] {
        var runs = runs
        while runs.count > 1, let i = runs.indices.filter({ runs[$0].end - runs[$0].start < minTurn })
            .min(by: { runs[$0].end - runs[$0].start < runs[$1].end - runs[$1].start }) {
            let left = i > 0 ? runs[i - 1].end - runs[i - 1].start : -1
            let right = i + 1 < runs.count ? runs[i + 1].end - runs[i + 1].start : -1
            if left >= right { runs[i - 1].end = runs[i].end } else { runs[i + 1].start = runs[i].start }
            runs.remove(at: i)
            // neighbours of one voice become one run
            var merged: [Turn] = []
            for run in runs {
                if let last = merged.last, last.voice == run.voice { merged[merged.count - 1].end = run.end } else { merged.append(run) }
            }
            runs = merged
        }
        return runs
    }

    private func joined(_ turns: [Turn]) -> [Turn] {
        var out: [Turn] = []
        for turn in turns {
            if let last = out.last, last.voice == turn.voice, turn.start - last.end <= fillGap {
                out[out.count - 1].end = max(last.end, turn.end)
            } else {
                out.append(turn)
            }
        }
        return out
    }
}
