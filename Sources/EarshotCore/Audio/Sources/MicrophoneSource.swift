internal import CPortAudio
import Foundation

/// The default input device through PortAudio in blocking mode (no C callback, no audio-thread code).
public struct MicrophoneSource: AudioSource {
    public let name = "microphone"

    public init() {}

    public func chunks(sampleRate: Int) -> AsyncThrowingStream<[Float], Error> {
        threadedStream { yield, keepGoing in
            try withSilencedStandardError { try check(Pa_Initialize(), "initialise PortAudio") }
            defer { Pa_Terminate() }
            let device = Pa_GetDefaultInputDevice()
            guard device != paNoDevice, let info = Pa_GetDeviceInfo(device) else {
                throw AudioSourceError.noMicrophone(detail: "PortAudio finds no input device")
            }
            var params = PaStreamParameters(device: device, channelCount: 1, sampleFormat: PaSampleFormat(paFloat32),
                                            suggestedLatency: info.pointee.defaultLowInputLatency,
                                            hostApiSpecificStreamInfo: nil)
            // Ask for the model's rate; fall back to the device's own rate and resample.
            var rate = Double(sampleRate)
            if Pa_IsFormatSupported(&params, nil, rate) != paFormatIsSupported { rate = info.pointee.defaultSampleRate }
            var stream: UnsafeMutableRawPointer?
            let frames = UInt(rate / 10)
            try check(Pa_OpenStream(&stream, &params, nil, rate, frames, PaStreamFlags(paClipOff), nil, nil), "open the microphone")
            defer { Pa_CloseStream(stream) }
            try check(Pa_StartStream(stream), "start the microphone")
            defer { Pa_StopStream(stream) }
            let resampler = Int(rate) == sampleRate ? nil : try StreamingResampler(from: Int(rate), to: sampleRate)
            var buffer = [Float](repeating: 0, count: Int(frames))
            while keepGoing() {
                let err = buffer.withUnsafeMutableBufferPointer { Pa_ReadStream(stream, $0.baseAddress, frames) }
                // an overflow only means we were late: keep the audio and carry on
                if err != paNoError.rawValue && err != paInputOverflowed.rawValue { try check(err, "read the microphone") }
                yield(resampler?.process(buffer) ?? buffer)
            }
        }
    }
}

private func check(_ code: PaError, _ action: String) throws {
    guard code != paNoError.rawValue else { return }
    throw AudioSourceError.noMicrophone(detail: "could not \(action): \(String(cString: Pa_GetErrorText(code)))")
}

/// PortAudio's ALSA/JACK probing prints dozens of lines to stderr; hide them during initialisation.
private func withSilencedStandardError<T>(_ body: () throws -> T) rethrows -> T {
    let saved = dup(2)
    let null = open("/dev/null", O_WRONLY)
    dup2(null, 2)
    close(null)
    defer { dup2(saved, 2); close(saved) }
    return try body()
}
