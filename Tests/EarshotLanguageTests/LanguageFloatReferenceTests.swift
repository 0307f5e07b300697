import EarshotCore
import EarshotLanguage
import XCTest

/// The shipped 4-bit language models against their float copies (`FloatCopy`), on whichever CPU runs the tests:
/// llama.cpp picks its quantised kernels by the CPU's extensions, so a kernel that computes wrongly on some CPU shows
/// here, on that CPU, as next-token choices that part from the copy's.
final class LanguageFloatReferenceTests: XCTestCase {
    func testTheShippedModelsChooseTheirFloatCopiesNextTokens() throws {
        for choice in LanguageModelChoice.allCases {
            let agreement = try FloatCopy.compare(choice)
            let bound = FloatCopy.bounds(of: choice)
            print("\(choice.rawValue): \(agreement.positions) positions, next token agrees at \(String(format: "%.3f", agreement.sameNextToken)), "
                  + "mean KL \(String(format: "%.4f", agreement.divergence)) nats (bounds ≥ \(bound.sameNextToken), ≤ \(bound.divergence))")
            XCTAssertGreaterThan(agreement.positions, 300, "too little text to judge \(choice.rawValue)")
            XCTAssertGreaterThanOrEqual(agreement.sameNextToken, bound.sameNextToken, "\(choice.rawValue): next tokens part from the float copy's")
            XCTAssertLessThanOrEqual(agreement.divergence, bound.divergence, "\(choice.rawValue): next-token distributions part from the float copy's")
            XCTAssertTrue(FloatCopy.passes(agreement, for: choice))
        }
    }
}
