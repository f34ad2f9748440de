#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Small synchronous reads and writes of kernel files (`/proc`, cgroupfs). These files answer from memory in
/// microseconds, so they are read on the loop thread; nothing here is used for ordinary disk files.
package enum SystemFiles {
    /// The whole file (up to `limitBytes`), or nil when it cannot be opened or read. A relative `path` is taken
    /// from the open directory `directory` (`openat`), else from the working directory.
    package static func read(
        _ path: String,
        relativeTo directory: Int32 = AT_FDCWD,
        limitBytes: Int = 65_536
    ) -> String? {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return self.read(descriptor: fd, limitBytes: limitBytes)
    }

    /// The whole of the open `fd` (up to `limitBytes`), or nil when it cannot be read. Closes `fd`.
    static func read(descriptor fd: Int32, limitBytes: Int) -> String? {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limitBytes {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes.prefix(limitBytes), as: UTF8.self)
    }

    /// Writes `text` to an existing file in one `write(2)` (cgroupfs and `/proc` take one value per write). A
    /// relative `path` is taken from the open directory `directory` (`openat`).
    ///
    /// - Returns: 0, or the errno of the failing call.
    @discardableResult
    static func write(_ text: String, to path: String, relativeTo directory: Int32 = AT_FDCWD) -> Int32 {
        let fd = openat(directory, path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        let count = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return count == bytes.count ? 0 : (count < 0 ? errno : EIO)
    }

    /// The names in a directory, without `.` and `..`; empty when it cannot be opened.
    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The message of an errno value, for logs and errors.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
