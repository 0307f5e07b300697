import Foundation

extension Error {
    /// The error's sentence and, when the library says, what to do about it (`LocalizedError.recoverySuggestion`):
    /// what is kept where no terminal shows the rest (a note's failed stage, a batch result's line).
    public var descriptionWithAdvice: String {
        let text = (self as? LocalizedError)?.errorDescription ?? "\(self)"
        guard let advice = (self as? LocalizedError)?.recoverySuggestion else { return text }
        return "\(text); \(advice)"
    }
}
