import Foundation

/// Radix-2 FFT of real frames, planned once per size (twiddles and bit reversal precomputed).
public struct RealFFT: Sendable {
    public let size: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    public init(size: Int) {
        precondition(size > 1 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        cosines = (0..<size / 2).map { Float(cos(2 * Double.pi * Double($0) / Double(size))) }
        sines = (0..<size / 2).map { Float(-sin(2 * Double.pi * Double($0) / Double(size))) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    /// |X[k]|² for k in 0...size/2 of a real frame zero-padded to `size`.
    public func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, into power: inout [Float], re: inout [Float], im: inout [Float]) {
        for i in 0..<size {
            let j = reversed[i]
            re[i] = j < frame.count ? frame[j] : 0
            im[i] = 0
        }
        var half = 1
        while half < size {
            let step = size / (2 * half)
            var start = 0
            while start < size {
                for k in 0..<half {
                    let wr = cosines[k * step], wi = sines[k * step]
                    let a = start + k, b = a + half
                    let tr = wr * re[b] - wi * im[b]
                    let ti = wr * im[b] + wi * re[b]
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
                start += 2 * half
            }
            half *= 2
        }
        for k in 0...(size / 2) { power[k] = re[k] * re[k] + im[k] * im[k] }
    }
}
