import CLibUV
import Foundation
@_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A `CLONE_VM` child shares this process's descriptor table until its first step, then keeps only the
/// spawn slots; it gets its 0-2 (and 3) from them and nothing else, however many descriptors this process holds.
@Suite("Spawn through the descriptor slots", .serialized)
struct SharedDescriptorSpawnTests {
    @Test("With 300 descriptors open here, none close-on-exec, the child shares the table and keeps only 0-2")
    func childKeepsOnlyItsOwnDescriptors() throws {
        var open: [Int32] = []
        defer { for fd in open { close(fd) } }
        for _ in 0..<300 {
            let fd = Glibc.open("/dev/null", O_RDONLY)  // No O_CLOEXEC: inherited by default.
            try #require(fd >= 0)
            open.append(fd)
        }
        let loop = try DirectChild.makeLoop()
        let recorder = LineRecorder()
        let child = ChildProcess(app: "com.test.slots", loop: loop, options: ProcessOptions())
        child.delegate = recorder
        // The child prints its descriptors, then its own line on stderr.
        try DirectChild.start(child, ["/bin/sh", "-c", "ls /proc/$$/fd | tr '\\n' ' '; echo; echo done >&2"])
        #expect(child.sharedDescriptors, "the child shared the table (CLONE_FILES) and took the slots")
        DirectChild.run(loop) { recorder.exit != nil && recorder.lines.contains("err:done") }
        #expect(recorder.exit == .exited(0))
        let listed = recorder.lines.first { $0.hasPrefix("out:") }.map { String($0.dropFirst(4)) } ?? ""
        // `ls` itself holds one more descriptor while it lists: the directory it reads (3).
        let descriptors = listed.split(separator: " ").compactMap { Int($0) }.filter { $0 != 3 }.sorted()
        #expect(descriptors == [0, 1, 2], "the child's descriptors: \(listed)")
        #expect(recorder.lines.contains("err:done"), "stderr reached this process: \(recorder.lines)")
        child.closeOutput()
        DirectChild.close(loop)
    }

    @Test("The slots hold /dev/null again once a spawn returns: this process keeps no reference to a child's pipe")
    func slotsAreClearedAfterTheSpawn() throws {
        let loop = try DirectChild.makeLoop()
        let child = ChildProcess(app: "com.test.slots.clear", loop: loop, options: ProcessOptions())
        try DirectChild.start(child, ["/bin/true"])
        try #require(child.sharedDescriptors)
        // A write end of the child's pipes left in a slot would keep them open after the child exits.
        let slots = ChildProcess.spawnSlots
        #expect(slots.allSatisfy { $0 >= 4 }, "slots \(slots)")
        for slot in slots {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(slot)")) ?? "?"
            #expect(target == "/dev/null", "slot \(slot) holds \(target)")
        }
        DirectChild.run(loop) { child.hasExited }
        child.closeOutput()
        DirectChild.close(loop)
    }
}
