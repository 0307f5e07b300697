/// The sizes Earshot accepts from outside, the same at every door: an HTTP form field, a Realtime event's field, a
/// line of `earshot batch`. Past them a request is refused before any work, and what is refused is quoted only in
/// part (`ShownText.echoed`).
public enum InputLimits {
    /// A prompt for Whisper, which reads only its last 223 tokens: more than this cannot be meant for it.
    public static let promptBytes = 16_384
    /// One job line of `earshot batch` (a path and its options as JSON), read up to this many bytes.
    public static let batchLineBytes = 65_536
}
