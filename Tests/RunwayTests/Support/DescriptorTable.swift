@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

/// This process's descriptor table, read from /proc.
enum DescriptorTable {
    /// `FDSize` in /proc/self/status: how many descriptors this process's table has room for.
    static func fdSize() -> Int {
        let status = SystemFiles.read("/proc/self/status") ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("FDSize:") } ?? ""
        return Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces)) ?? -1
    }

    /// How many descriptors are open now.
    static func openDescriptors() -> Int { SystemFiles.entries(of: "/proc/self/fd").count }
}
