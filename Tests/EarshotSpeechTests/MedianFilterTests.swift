import EarshotCore
@testable import EarshotSpeech
import XCTest

/// The word aligner's median filter against the definition written out: each value's neighbourhood, reflected at
/// the ends (scipy's "reflect", as openai-whisper pads), sorted, its middle.
final class MedianFilterTests: XCTestCase {
    func testEachValueIsTheMedianOfItsReflectedNeighbourhood() {
        var rng = SplitMix64(seed: 7)
        for count in [1, 2, 3, 4, 7, 8, 30] {
            // few distinct values, so that ties are common
            let values = (0..<count).map { _ in Float(rng.next() % 5) - 2 }
            for width in [1, 3, 7] {
                let half = width / 2
                let expected = count <= half ? values : values.indices.map { i -> Float in
                    let neighbourhood = ((i - half)...(i + half)).map { j -> Float in
                        let k = j < 0 ? -j - 1 : j >= count ? 2 * count - j - 1 : j
                        return values[min(max(k, 0), count - 1)]
                    }
                    return neighbourhood.sorted()[half]
                }
                XCTAssertEqual(medianFilter(values, width: width), expected, "\(count) values, width \(width): \(values)")
            }
        }
    }
}
