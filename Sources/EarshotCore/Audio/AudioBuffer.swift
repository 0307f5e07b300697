/// Mono audio as 32-bit float samples in [-1, 1], the form every model in Earshot consumes.
public struct AudioBuffer: Sendable, Equatable {
    public var samples: [Float]
    public var sampleRate: Int

    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }

    /// The samples `size` at a time, then nil: audio in memory read like `AudioFileStream.read`.
    public func blockReader(size: Int) -> () -> [Float]? {
        var position = 0
        return { [samples] in
            guard position < samples.count else { return nil }
            let end = min(samples.count, position + max(1, size))
            defer { position = end }
            return Array(samples[position..<end])
        }
    }
}

/// Interleaved multi-channel audio as a decoder produces it, before downmixing and resampling.
public struct DecodedAudio: Sendable {
    public var interleaved: [Float]
    public var channels: Int
    public var sampleRate: Int

    public init(interleaved: [Float], channels: Int, sampleRate: Int) {
        self.interleaved = interleaved
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frameCount: Int { channels > 0 ? interleaved.count / channels : 0 }

    /// Averages the channels into one.
    public func downmixed() -> AudioBuffer {
        AudioBuffer(samples: Self.downmix(interleaved, channels: channels), sampleRate: sampleRate)
    }

    /// Interleaved frames averaged into one channel.
    static func downmix(_ interleaved: [Float], channels: Int) -> [Float] {
        guard channels > 1 else { return interleaved }
        let frames = interleaved.count / channels
        var mono = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(channels)
        interleaved.withUnsafeBufferPointer { src in
            for frame in 0..<frames {
                var sum: Float = 0
                let base = frame * channels
                for c in 0..<channels { sum += src[base + c] }
                mono[frame] = sum * scale
            }
        }
        return mono
    }
}
