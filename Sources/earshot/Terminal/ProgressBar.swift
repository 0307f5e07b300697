import Foundation

/// A one-line progress bar on standard error, redrawn in place; silent when stderr is not a terminal
/// unless forced, so logs and pipes stay clean.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let total: Double
    private let enabled: Bool
    private let started = Date()
    private var lastDraw = Date.distantPast
    private let lock = NSLock()
    /// Seconds of work before the bar is first drawn.
    private let delay: Double

    init(label: String, total: Double, enabled: Bool = StandardError.isTerminal, after delay: Double = 0) {
        self.label = label
        self.total = max(total, 1e-9)
        self.enabled = enabled
        self.delay = delay
    }

    func update(_ done: Double, detail: String = "") {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(started) >= delay, now.timeIntervalSince(lastDraw) > 0.1 || done >= total else { return }
        lastDraw = now
        let fraction = min(1, max(0, done / total))
        let width = 28
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let elapsed = now.timeIntervalSince(started)
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
        let line = String(format: "\r%@ %@ %3.0f%%  %@ elapsed, ~%@ left %@",
                          label, bar, fraction * 100, Self.clock(elapsed), Self.clock(eta), detail)
        StandardError.write(line + "\u{1B}[K")
    }

    func finish() {
        guard enabled else { return }
        StandardError.write("\r\u{1B}[K")
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
