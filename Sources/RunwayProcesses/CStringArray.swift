#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A NULL-terminated array of C strings that lives as long as this value.
final class CStringArray {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        self.pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { self.pointer[index] = strdup(string) }
        self.pointer[strings.count] = nil
        self.count = strings.count
    }

    private let count: Int

    deinit {
        for index in 0..<self.count { free(self.pointer[index]) }
        self.pointer.deallocate()
    }
}
