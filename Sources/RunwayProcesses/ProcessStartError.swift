#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A process app could not be started.
struct ProcessStartError: Error, CustomStringConvertible {
    var call: String
    var status: Int32

    /// `CALL failed: ` and the C library's text for the errno (libuv's has no text for some, ENOEXEC).
    var description: String { "\(self.call) failed: \(String(cString: strerror(-self.status)))" }
}
