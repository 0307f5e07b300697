import Foundation

/// Exact references that tests compare the library's fast kernels against. They live in this support module, which is
/// compiled optimised like the library, because the test targets are compiled without optimisation (quicker to build;
/// Package.swift): a loop over millions of values in a test body runs some 50 times slower there.
public enum ReferenceMath {
    /// Each row of `rows` (row-major, `width` values a row) times `vector`, summed in double precision.
    public static func rowProducts(_ rows: [Float], width: Int, _ vector: ArraySlice<Float>) -> [Double] {
        precondition(vector.count == width && rows.count % width == 0)
        let x = vector.map(Double.init)
        return rows.withUnsafeBufferPointer { rows in
            (0..<(rows.count / width)).map { row in
                var sum = 0.0
                for i in 0..<width { sum += Double(rows[row * width + i]) * x[i] }
                return sum
            }
        }
    }

    /// Each row's largest absolute value and the sum of its absolute values, in double precision.
    public static func absolutePeaksAndSums(_ rows: [Float], width: Int) -> (peaks: [Double], sums: [Double]) {
        precondition(rows.count % width == 0)
        var peaks = [Double](repeating: 0, count: rows.count / width), sums = peaks
        rows.withUnsafeBufferPointer { rows in
            for row in peaks.indices {
                for i in 0..<width {
                    let value = Double(abs(rows[row * width + i]))
                    peaks[row] = max(peaks[row], value)
                    sums[row] += value
                }
            }
        }
        return (peaks, sums)
    }

    /// Least-squares fit of a sinusoid at `frequency` to `x`: the SNR of the fit against the residual, and the strongest
    /// DFT bin between 500 and 1,500 Hz (10 Hz apart).
    public static func toneAnalysis(_ x: [Float], rate: Int, frequency: Double) -> (snr: Double, peak: Double) {
        let w = 2 * Double.pi * frequency / Double(rate)
        var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
        for (n, v) in x.enumerated() {
            let s = sin(w * Double(n)), c = cos(w * Double(n)), xv = Double(v)
            ss += s * s; cc += c * c; sc += s * c; xs += xv * s; xc += xv * c
        }
        let det = ss * cc - sc * sc
        let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
        var signal = 0.0, noise = 0.0
        for (n, v) in x.enumerated() {
            let fit = a * sin(w * Double(n)) + b * cos(w * Double(n))
            signal += fit * fit
            noise += (Double(v) - fit) * (Double(v) - fit)
        }
        var best = (power: 0.0, hz: 0.0)
        for hz in stride(from: 500.0, through: 1500, by: 10) {
            let wk = 2 * Double.pi * hz / Double(rate)
            var re = 0.0, im = 0.0
            for (n, v) in x.enumerated() { re += Double(v) * cos(wk * Double(n)); im += Double(v) * sin(wk * Double(n)) }
            if re * re + im * im > best.power { best = (re * re + im * im, hz) }
        }
        return (10 * log10(signal / max(noise, 1e-30)), best.hz)
    }

    /// The float values of `count` IEEE half-precision numbers stored little-endian from `offset` in `raw`.
    public static func halves(_ raw: UnsafeRawBufferPointer, offset: Int, count: Int) -> [Float] {
        (0..<count).map { Float(Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + $0 * 2, as: UInt16.self)))) }
    }
}
