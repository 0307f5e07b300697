import EarshotCore
import Foundation

extension SoundFeatures {
    /// AudioSet classes that mean someone is talking.
    static let speechLabels: Set<String> = ["Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Speech synthesizer"]

    /// The better network for `dataset`, judged by the built-in classifier on a few files per label:
    /// speaker features when every label's files are speech (a voice task: who, male or female, child or
    /// adult), YAMNet otherwise. Measured: male/female trained on one corpus scored 0.849 on speakers of
    /// other corpora with YAMNet features. Also returns how many sampled files per label were speech.
    public static func suggested(for dataset: SoundDataset, using yamnet: SoundEmbedder, filesPerLabel: Int = 4)
        -> (features: SoundFeatures, speechShare: [String: Double]) {
        let classifier = SoundClassifier(embedder: yamnet)
        let loader = AudioFileLoader(sampleRate: SoundEmbedder.sampleRate)
        var share: [String: Double] = [:]
        for (label, name) in dataset.labels.enumerated() {
            let sample = dataset.items.filter { $0.label == label }.prefix(filesPerLabel)
            let speech = sample.filter { item in
                guard let audio = try? loader.load(path: item.path),
                      let top = try? classifier.classify(audio, top: 1).overall.top.first else { return false }
                return speechLabels.contains(top.label)
            }
            share[name] = sample.isEmpty ? 0 : Double(speech.count) / Double(sample.count)
        }
        let allSpeech = !share.isEmpty && share.values.allSatisfy { $0 >= 0.75 }
        return (allSpeech ? .speaker : .yamnet, share)
    }
}
