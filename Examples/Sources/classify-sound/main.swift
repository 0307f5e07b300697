// Classifies a sound with the built-in AudioSet classifier, then trains a classifier of your own from a
// folder with one sub-folder of recordings per label, and uses it.
// usage: classify-sound RECORDING [LABELLED-FOLDER]
import EarshotSound

let arguments = Array(CommandLine.arguments.dropFirst())
let path = arguments.first ?? "doorbell.wav"

let builtIn = try SoundClassifier.builtIn()
let result = try builtIn.classify(file: path, top: 3)
for score in result.top {
    print("\(score.label): \(score.confidence)")
}

if arguments.count > 1 {
    // The trainer picks the frozen network for the data (voice features when every label is speech).
    let trainer = try SoundClassifierTrainer(features: nil, for: arguments[1])
    let training = try trainer.train(folder: arguments[1])
    try training.model.save(to: "my-sounds.model")
    print("validation accuracy: \(training.validation?.accuracy ?? 0)")

    let mine = try SoundClassifier.load(from: "my-sounds.model")
    print("mine says: \(try mine.classify(file: path).top[0].label)")
}
