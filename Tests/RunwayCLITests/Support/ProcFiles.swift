import Foundation

/// True when every thread of `pid` is stopped (state `T` in /proc/PID/task/TID/stat).
func everyThreadStopped(_ pid: Int32) throws -> Bool {
    let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    return try tasks.allSatisfy { tid in
        let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8)
        // The state follows the command name, which is in parentheses and may contain spaces.
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }
}

/// VmRSS of a process, in bytes.
func residentBytes(of pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { throw HarnessError(description: "no VmRSS in /proc/\(pid)/status") }
    return kilobytes * 1_024
}
