import Foundation

/// The power spectrum of real frames whose length is not a power of two (Whisper's 400-point frames), by an FFT
/// planned once per size: the frame's even and odd samples as one complex sequence of half the length, transformed
/// by a Stockham FFT in radix-4, 2, 3 and 5 stages (no reordering pass), then split into the real frame's bins.
/// `RealFFT` serves the power-of-two sizes.
///
/// Plain Swift on purpose: the same instructions run on every x86-64 CPU, where a BLAS picks its kernels by CPU model
/// (OpenBLAS 0.3.21 ran SSE3 kernels on one Xeon, AVX-512 ones elsewhere, and the last bits it left in Whisper's
/// features changed transcripts between CPUs). Only the plan's tables come from the C library's `cos` and `sin`, in
/// double precision, rounded to float.
public struct MixedRadixFFT: Sendable {
    public let size: Int
    private let half: Int
    /// Radices of the half-length transform, first stage first.
    private let radices: [Int]
    /// Each stage's twiddles ω_n^(p·k), p < n/r, 0 < k < r, as (re, im) pairs: [stage][p][k - 1].
    private let twiddles: [[Float]]
    /// e^(-2πik/size) for the split, k in 0...half, (re, im) pairs.
    private let split: [Float]

    /// `size`: even, and half of it a product of 2, 3 and 5.
    public init(size: Int) {
        precondition(size >= 2 && size % 2 == 0, "MixedRadixFFT needs an even size")
        self.size = size
        half = size / 2
        var left = half, radices: [Int] = []
        for r in [4, 2, 3, 5] {
            while left % r == 0 && left > 1 { radices.append(r); left /= r }
        }
        precondition(left == 1, "MixedRadixFFT: \(size) / 2 has a prime factor other than 2, 3 and 5")
        self.radices = radices
        func root(_ numerator: Int, _ denominator: Int) -> (Float, Float) {
            let angle = -2 * Double.pi * Double(numerator) / Double(denominator)
            return (Float(cos(angle)), Float(sin(angle)))
        }
        var n = half, twiddles: [[Float]] = []
        for r in radices {
            let m = n / r
            var stage: [Float] = []
            for p in 0..<m {
                for k in 1..<r {
                    let (c, s) = root(p * k, n)
                    stage += [c, s]
                }
            }
            twiddles.append(stage)
            n = m
        }
        self.twiddles = twiddles
        split = (0...half).flatMap { k -> [Float] in let (c, s) = root(k, size); return [c, s] }
    }

    /// |X[k]|² for k in 0...size/2 of `frame` (`size` samples) into `power`; `work` is scratch, grown to 2 × size
    /// floats (keep it between calls).
    public func powerSpectrum(_ frame: UnsafeBufferPointer<Float>, into power: inout [Float], work: inout [Float]) {
        precondition(frame.count >= size)
        if power.count <= half { power = [Float](repeating: 0, count: half + 1) }
        if work.count < 2 * size { work = [Float](repeating: 0, count: 2 * size) }
        work.withUnsafeMutableBufferPointer { scratch in
            power.withUnsafeMutableBufferPointer { transform(frame, scratch.baseAddress!, into: $0) }
        }
    }

    private func transform(_ frame: UnsafeBufferPointer<Float>, _ a: UnsafeMutablePointer<Float>,
                           into power: UnsafeMutableBufferPointer<Float>) {
        // z[m] = x[2m] + i·x[2m+1], interleaved (re, im): exactly the frame's samples in order
        let b = a + size
        for i in 0..<size { a[i] = frame[i] }
        var x = a, y = b, n = half, stride = 1
        for (stage, r) in radices.enumerated() {
            twiddles[stage].withUnsafeBufferPointer { w in
                switch r {
                case 4: radix4(x, y, n: n, stride: stride, w: w.baseAddress!)
                case 2: radix2(x, y, n: n, stride: stride, w: w.baseAddress!)
                case 3: radix3(x, y, n: n, stride: stride, w: w.baseAddress!)
                default: radix5(x, y, n: n, stride: stride, w: w.baseAddress!)
                }
            }
            swap(&x, &y)
            n /= r
            stride *= r
        }
        // X[k] = E[k] + e^(-2πik/size)·O[k], E and O the spectra of the even and odd samples:
        // E = (Z[k] + conj Z[half−k]) / 2, O = (Z[k] − conj Z[half−k]) / 2i
        split.withUnsafeBufferPointer { e in
            for k in 0...half {
                let i = (k % half) * 2, j = ((half - k) % half) * 2
                let zr = x[i], zi = x[i + 1], cr = x[j], ci = -x[j + 1]
                let er = (zr + cr) * 0.5, ei = (zi + ci) * 0.5
                let or = (zi - ci) * 0.5, oi = -(zr - cr) * 0.5
                let wr = e[2 * k], wi = e[2 * k + 1]
                let re = er + (wr * or - wi * oi), im = ei + (wr * oi + wi * or)
                power[k] = re * re + im * im
            }
        }
    }

    // Stockham stages, decimation in frequency: for p < m = n/r and q < stride, the r inputs x[q + stride·(p + j·m)]
    // go through an r-point DFT, output k is multiplied by ω_n^(p·k) and written to y[q + stride·(r·p + k)].
    // Complex numbers are (re, im) pairs, so every index below is doubled.

    private func radix2(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, n: Int, stride s: Int,
                        w: UnsafePointer<Float>) {
        let m = n / 2
        for p in 0..<m {
            let wr = w[2 * p], wi = w[2 * p + 1]
            for q in 0..<s {
                let i0 = 2 * (q + s * p), i1 = 2 * (q + s * (p + m))
                let ar = x[i0], ai = x[i0 + 1], br = x[i1], bi = x[i1 + 1]
                let o0 = 2 * (q + s * 2 * p), o1 = o0 + 2 * s
                y[o0] = ar + br; y[o0 + 1] = ai + bi
                let dr = ar - br, di = ai - bi
                y[o1] = dr * wr - di * wi; y[o1 + 1] = dr * wi + di * wr
            }
        }
    }

    private func radix4(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, n: Int, stride s: Int,
                        w: UnsafePointer<Float>) {
        let m = n / 4
        for p in 0..<m {
            let t = w + 6 * p
            for q in 0..<s {
                let i0 = 2 * (q + s * p), step = 2 * s * m
                let ar = x[i0], ai = x[i0 + 1], br = x[i0 + step], bi = x[i0 + step + 1]
                let cr = x[i0 + 2 * step], ci = x[i0 + 2 * step + 1], dr = x[i0 + 3 * step], di = x[i0 + 3 * step + 1]
                // the 4-point DFT: ω_4 = −i
                let sacr = ar + cr, saci = ai + ci, dacr = ar - cr, daci = ai - ci
                let sbdr = br + dr, sbdi = bi + di, dbdr = br - dr, dbdi = bi - di
                let y0r = sacr + sbdr, y0i = saci + sbdi
                let y1r = dacr + dbdi, y1i = daci - dbdr
                let y2r = sacr - sbdr, y2i = saci - sbdi
                let y3r = dacr - dbdi, y3i = daci + dbdr
                let o = 2 * (q + s * 4 * p), os = 2 * s
                y[o] = y0r; y[o + 1] = y0i
                y[o + os] = y1r * t[0] - y1i * t[1]; y[o + os + 1] = y1r * t[1] + y1i * t[0]
                y[o + 2 * os] = y2r * t[2] - y2i * t[3]; y[o + 2 * os + 1] = y2r * t[3] + y2i * t[2]
                y[o + 3 * os] = y3r * t[4] - y3i * t[5]; y[o + 3 * os + 1] = y3r * t[5] + y3i * t[4]
            }
        }
    }

    private func radix3(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, n: Int, stride s: Int,
                        w: UnsafePointer<Float>) {
        let m = n / 3, sine = Float(sin(2 * Double.pi / 3))
        for p in 0..<m {
            let t = w + 4 * p
            for q in 0..<s {
                let i0 = 2 * (q + s * p), step = 2 * s * m
                let ar = x[i0], ai = x[i0 + 1], br = x[i0 + step], bi = x[i0 + step + 1]
                let cr = x[i0 + 2 * step], ci = x[i0 + 2 * step + 1]
                // Y1 = a − (b + c)/2 − i·sin(2π/3)·(b − c), Y2 its partner
                let sr = br + cr, si = bi + ci, dr = (br - cr) * sine, di = (bi - ci) * sine
                let mr = ar - 0.5 * sr, mi = ai - 0.5 * si
                let y1r = mr + di, y1i = mi - dr, y2r = mr - di, y2i = mi + dr
                let o = 2 * (q + s * 3 * p), os = 2 * s
                y[o] = ar + sr; y[o + 1] = ai + si
                y[o + os] = y1r * t[0] - y1i * t[1]; y[o + os + 1] = y1r * t[1] + y1i * t[0]
                y[o + 2 * os] = y2r * t[2] - y2i * t[3]; y[o + 2 * os + 1] = y2r * t[3] + y2i * t[2]
            }
        }
    }

    private func radix5(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, n: Int, stride s: Int,
                        w: UnsafePointer<Float>) {
        let m = n / 5
        let c1 = Float(cos(2 * Double.pi / 5)), c2 = Float(cos(4 * Double.pi / 5))
        let s1 = Float(sin(2 * Double.pi / 5)), s2 = Float(sin(4 * Double.pi / 5))
        for p in 0..<m {
            let t = w + 8 * p
            for q in 0..<s {
                let i0 = 2 * (q + s * p), step = 2 * s * m
                let x0r = x[i0], x0i = x[i0 + 1]
                let x1r = x[i0 + step], x1i = x[i0 + step + 1], x2r = x[i0 + 2 * step], x2i = x[i0 + 2 * step + 1]
                let x3r = x[i0 + 3 * step], x3i = x[i0 + 3 * step + 1], x4r = x[i0 + 4 * step], x4i = x[i0 + 4 * step + 1]
                // with ω = e^(−2πi/5): Y1, Y4 = a1 ∓ i·b1 and Y2, Y3 = a2 ∓ i·b2, where
                // a1 = x0 + c1(x1 + x4) + c2(x2 + x3), b1 = s1(x1 − x4) + s2(x2 − x3),
                // a2 = x0 + c2(x1 + x4) + c1(x2 + x3), b2 = s2(x1 − x4) − s1(x2 − x3)
                let t1r = x1r + x4r, t1i = x1i + x4i, t2r = x2r + x3r, t2i = x2i + x3i
                let t3r = x1r - x4r, t3i = x1i - x4i, t4r = x2r - x3r, t4i = x2i - x3i
                let a1r = x0r + c1 * t1r + c2 * t2r, a1i = x0i + c1 * t1i + c2 * t2i
                let a2r = x0r + c2 * t1r + c1 * t2r, a2i = x0i + c2 * t1i + c1 * t2i
                let b1r = s1 * t3r + s2 * t4r, b1i = s1 * t3i + s2 * t4i
                let b2r = s2 * t3r - s1 * t4r, b2i = s2 * t3i - s1 * t4i
                // −i·b = (b.im, −b.re)
                let y1r = a1r + b1i, y1i = a1i - b1r, y4r = a1r - b1i, y4i = a1i + b1r
                let y2r = a2r + b2i, y2i = a2i - b2r, y3r = a2r - b2i, y3i = a2i + b2r
                let o = 2 * (q + s * 5 * p), os = 2 * s
                y[o] = x0r + t1r + t2r; y[o + 1] = x0i + t1i + t2i
                y[o + os] = y1r * t[0] - y1i * t[1]; y[o + os + 1] = y1r * t[1] + y1i * t[0]
                y[o + 2 * os] = y2r * t[2] - y2i * t[3]; y[o + 2 * os + 1] = y2r * t[3] + y2i * t[2]
                y[o + 3 * os] = y3r * t[4] - y3i * t[5]; y[o + 3 * os + 1] = y3r * t[5] + y3i * t[4]
                y[o + 4 * os] = y4r * t[6] - y4i * t[7]; y[o + 4 * os + 1] = y4r * t[7] + y4i * t[6]
            }
        }
    }
}
