import Foundation

/// Resident memory of this process, read from `/proc/self/status` (Linux).
package enum ProcessMemory {
    /// The resident set size now (`VmRSS`), in bytes; nil if unreadable.
    package static func residentBytes() -> UInt64? { self.statusField("VmRSS:") }

    /// The highest resident set size of the process so far (`VmHWM`), in bytes; nil if unreadable.
    package static func peakResidentBytes() -> UInt64? { self.statusField("VmHWM:") }

    /// A `kB` line of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let kilobytes = fields.first.flatMap({ UInt64($0) }) else { return nil }
            return kilobytes * 1_024
        }
        return nil
    }
}
