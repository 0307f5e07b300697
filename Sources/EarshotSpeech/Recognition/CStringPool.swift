import Foundation

/// Keeps C copies of Swift strings alive while a C config struct points at them.
final class CStringPool {
    // one copy per distinct string: a recognizer switching languages asks for the same few again and again
    private var pointers: [String: UnsafeMutablePointer<CChar>] = [:]

    func callAsFunction(_ s: String) -> UnsafePointer<CChar> {
        if let p = pointers[s] { return UnsafePointer(p) }
        let p = strdup(s)!
        pointers[s] = p
        return UnsafePointer(p)
    }

    deinit { pointers.values.forEach { free($0) } }
}
