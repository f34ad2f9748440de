import Foundation
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `/proc/PID/stat` read in C (`ProcFS.stat`) against the Swift parser, with real processes.
@Suite("ProcFS: /proc/PID/stat read in C", .serialized)
struct ProcStatTests {
    @Test("/proc/PID/stat parsed in C gives what the Swift parser gives, odd command names included")
    func statInCMatchesTheSwiftParser() throws {
        // A program whose command name holds spaces and parentheses (the name of the link it is run through).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-procstat-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let odd = "\(directory)/a) (b c"
        try FileManager.default.createSymbolicLink(atPath: odd, withDestinationPath: "/bin/sleep")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: odd)
        child.arguments = ["5"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        // Asleep in `sleep` first: a child still loading runs (R), and two reads of a changing state may differ.
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcFS.stat(child.processIdentifier)?.state != "S" && ContinuousClock.now < deadline { usleep(1_000) }
        for pid in [getpid(), child.processIdentifier] {
            let swift = try #require(SystemFiles.read("/proc/\(pid)/stat").flatMap(ProcFS.parseStat))
            let c = try #require(ProcFS.stat(pid))
            #expect(c.parent == swift.parent && c.processGroup == swift.processGroup && c.session == swift.session)
            #expect(c.startTime == swift.startTime && c.startTime > 0)
            #expect(pid == getpid() || c.threads == swift.threads)
            #expect(c.state == swift.state || pid == getpid(), "\(c) \(swift)")
        }
        #expect(ProcFS.stat(Int32.max) == nil)
    }
}
