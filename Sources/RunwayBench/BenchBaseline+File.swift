import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading a `--baseline` file, and the chance that a comparison calls noise a regression.
extension BenchBaseline {
    /// The largest `--baseline` file read: 16 MiB. A report of 100 runs is a few hundred KiB; a file past this is
    /// not a report, and is refused before it is read.
    package static var maximumFileBytes: Int { 16 << 20 }

    /// The bytes of the report at `path`: only a regular file of at most `maximumFileBytes`, so that a FIFO, a
    /// device such as /dev/zero or a directory is refused naming what it is, and an endless file is never read.
    /// Opened without blocking (a FIFO with no writer would block the open).
    static func readReport(_ path: String) throws(Refusal) -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Refusal(message: "--baseline \(path): cannot read the file (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Refusal(message: "--baseline \(path): cannot read the file (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(
                message: "--baseline \(path): \(Self.describe(fileType: status.st_mode & S_IFMT)); expected a "
                    + "regular file, a `runway bench --json` report"
            )
        }
        guard status.st_size <= Self.maximumFileBytes else {
            throw Refusal(message: Self.tooLarge(path, bytes: Int(status.st_size)))
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw Refusal(message: "--baseline \(path): cannot read the file (\(String(cString: strerror(errno))))")
            }
            data.append(contentsOf: buffer[0..<count])
            // The file grew while it was read.
            guard data.count <= Self.maximumFileBytes else { throw Refusal(message: Self.tooLarge(path, bytes: nil)) }
        }
    }

    /// The chance, in percent, that some judged figure of a rerun of the same binary regresses by chance, at most:
    /// one figure's runs all lie beyond all the baseline's, one way, with a chance of 1 / C(n + m, n) when both
    /// come from the same distribution; summed over the `figures` judged (a union bound), capped at 100.
    /// - Parameters:
    ///   - baselineRuns: n, the baseline's runs.
    ///   - currentRuns: m, this run's.
    ///   - figures: how many figures were judged.
    package static func falseAlarmPercent(baselineRuns: Int, currentRuns: Int, figures: Int) -> Double {
        min(100, Double(figures) * 100 / Self.arrangements(baselineRuns, currentRuns))
    }

    /// C(n + m, n), as a double (exact for the at most 100 + 100 runs a comparison has, to 15 digits).
    static func arrangements(_ n: Int, _ m: Int) -> Double {
        var result = 1.0
        for index in 0..<min(n, m) { result = result * Double(n + m - index) / Double(index + 1) }
        return result
    }

    private static func tooLarge(_ path: String, bytes: Int?) -> String {
        "--baseline \(path): " + (bytes.map { "\($0) bytes" } ?? "larger than it was when opened")
            + "; a `runway bench --json` report is at most \(Self.maximumFileBytes) bytes (16 MiB)"
    }

    private static func describe(fileType: mode_t) -> String {
        switch fileType {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}
