import Foundation

/// A handful of sample notes spoken by espeak-ng, so a new store shows what Earshot does (`notes seed`).
public enum SampleNotes {
    public struct Sample: Sendable {
        public var name: String
        public var voice: String
        public var text: String
        public var tags: [String]
    }

    public static let samples: [Sample] = [
        Sample(name: "team-meeting.wav", voice: "en-us+m3", text: """
            Notes from the Monday team meeting. The website launch moves to the twenty first of March because \
            the payment page still has bugs. Sarah will fix the checkout errors by Friday. Tom needs to send \
            the new price list to the marketing team, and I have to book the meeting room for the launch review.
            """, tags: ["work"]),
        Sample(name: "groceries.wav", voice: "en-gb+f2", text: """
            Shopping for the weekend. We are out of milk, eggs and bread. Buy tomatoes, basil and mozzarella \
            for the pizza on Saturday, and remember to pick up coffee beans from the café on the corner.
            """, tags: ["home"]),
        Sample(name: "book-idea.wav", voice: "en-us+f4", text: """
            An idea for a short story. A lighthouse keeper on a remote island starts receiving letters from \
            someone who claims to live in the lighthouse fifty years in the future. The letters warn about a \
            storm that never happened, or has not happened yet.
            """, tags: ["ideas"]),
        Sample(name: "trip-to-lisbon.wav", voice: "en-gb+m4", text: """
            Planning the trip to Lisbon in May. Flights are cheapest on Tuesday mornings. I would like to stay \
            in Alfama near the castle, visit the tile museum and take the tram to Belem for the custard tarts. \
            Check whether our passports are still valid.
            """, tags: ["travel"]),
        Sample(name: "running-progress.wav", voice: "en-us+m5", text: """
            Training log. Ran ten kilometres this morning in fifty two minutes, my best time this year. The left \
            knee felt fine. Next week the plan is three easy runs and one long run of fifteen kilometres.
            """, tags: ["health"]),
    ]

    /// Speaks a sample into a WAV file with espeak-ng.
    public static func synthesise(_ sample: Sample, to url: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "-v", sample.voice, "-s", "155", "-w", url.path, sample.text]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw NotesError.storage(path: url.path, problem: "espeak-ng is needed for sample notes (`make setup` installs it)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NotesError.storage(path: url.path, problem: "espeak-ng failed to speak the sample")
        }
    }
}
