import Foundation

/// Keeps C copies of Swift strings alive while a C config struct points at them.
final class CStringPool {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func callAsFunction(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        pointers.append(p)
        return UnsafePointer(p)
    }

    deinit { pointers.forEach { free($0) } }
}
