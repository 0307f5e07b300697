// Enrols a person from a few clips (a small head trained on the device over a frozen speaker network),
// then checks whether another recording is them and who of everyone enrolled is speaking.
// usage: verify-voice PROFILES-FOLDER NAME TEST-RECORDING CLIP CLIP CLIP...
import EarshotVoice
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 6 else {
    print("usage: verify-voice PROFILES-FOLDER NAME TEST-RECORDING CLIP CLIP CLIP...")
    exit(2)
}
let (folder, name, test, clips) = (arguments[0], arguments[1], arguments[2], Array(arguments[3...]))

let voices = try VoiceID(profiles: VoiceProfileStore(directory: URL(fileURLWithPath: folder)))
let enrolled = try await voices.enroll(name, clips: clips)
print("enrolled \(enrolled.name) from \(enrolled.speechSeconds) s of speech")

let score = try await voices.verify(name, file: test)
print("\(name)? \(score.accepted ? "yes" : "no") (probability \(score.probability))")

let identification = try await voices.identify(file: test)
print("speaking: \(identification.speaker ?? "someone not enrolled")")
