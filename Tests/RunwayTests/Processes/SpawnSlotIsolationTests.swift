import CLibUV
import Foundation
@_spi(Processes) import RunwayCore
import Synchronization
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A `CLONE_VM` child shares the descriptor table until its first step, then keeps only the spawn slots: whatever
/// this process holds or opens meanwhile, the child's program gets descriptors 0-2 (and 3, the protocol channel)
/// only, and a failed spawn leaves nothing behind.
@Suite("Spawn slots: a child's descriptors under a busy parent", .serialized)
struct SpawnSlotIsolationTests {
    /// Starts `arguments` as a signal-mode child on `loop` and runs the loop until it exits and its output closes.
    static func run(
        _ arguments: [String],
        loop: UnsafeMutablePointer<uv_loop_t>,
        protocol speaksProtocol: Bool = false,
        workingDirectory: String? = nil
    ) throws -> (child: ChildProcess, recorder: LineRecorder) {
        let recorder = LineRecorder()
        let child = ChildProcess(app: "com.test.slots.isolation", loop: loop, options: ProcessOptions())
        child.delegate = recorder
        try DirectChild.start(child, arguments, workingDirectory: workingDirectory, protocol: speaksProtocol)
        DirectChild.run(loop, pause: 500) { recorder.exit != nil && recorder.lines.contains("err:end") }
        return (child, recorder)
    }

    /// This process's descriptors and what each refers to.
    static func ownDescriptors() -> [Int32: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var result: [Int32: String] = [:]
        for name in names {
            guard let fd = Int32(name) else { continue }
            result[fd] = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "?"
        }
        return result
    }

    /// `ls -l /proc/self/fd` output lines (`N -> target`) as descriptor -> target.
    static func listed(_ lines: [String]) -> [Int: String] {
        var result: [Int: String] = [:]
        for line in lines where line.hasPrefix("out:") && line.contains(" -> ") {
            let parts = line.dropFirst(4).components(separatedBy: " -> ")
            guard parts.count == 2, let fd = parts[0].split(separator: " ").last.flatMap({ Int($0) }) else { continue }
            result[fd] = parts[1]
        }
        return result
    }

    @Test("with 300 inheritable descriptors here and a thread opening more, a child holds 0-2 (3) only")
    func childDescriptorsWhileAnotherThreadOpens() throws {
        let loop = try DirectChild.makeLoop()
        // The slots opened again, in holes among inheritable descriptors: those below the slots' end are in the table
        // the child's unshare keeps, and must still not reach its program.
        ChildProcess.resetSpawnSlots()
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<8 {
            let fd = Glibc.open("/dev/null", O_RDONLY)  // No O_CLOEXEC.
            try #require(fd >= 0)
            held.append(fd)
        }
        for index in [1, 3, 5] { close(held[index]) }
        held = [held[0], held[2], held[4], held[6], held[7]]
        let warm = try Self.run(["/bin/sh", "-c", "echo end >&2"], loop: loop)
        warm.child.closeOutput()
        #expect(held.filter { $0 < ChildProcess.spawnSlots.max() ?? 0 }.count >= 3, "inheritable below the slots")
        for _ in 0..<300 {
            let fd = Glibc.open("/dev/null", O_RDONLY)  // No O_CLOEXEC.
            try #require(fd >= 0)
            held.append(fd)
        }
        // Inheritable descriptors below the slots' end too, in whatever holes there are: the child's unshare copies
        // those into its table.
        let end = (ChildProcess.spawnSlots.max() ?? 0) + 1
        let open = Self.ownDescriptors()
        for number in Int32(3)..<end where open[number] == nil {
            if dup2(held[0], number) == number { held.append(number) }
        }
        // Holes among them, above the slots, for the other thread to fill.
        for index in stride(from: 0, to: held.count, by: 7) {
            close(held[index])
            held[index] = -1
        }
        held.removeAll { $0 < 0 }
        let flags = OpenerFlags()
        let opener = Thread {
            var mine: [Int32] = []
            var index = 0
            while !flags.stop.load(ordering: .relaxed) {
                let fd = Glibc.open("/dev/null", O_WRONLY)  // Inheritable, and writable: a leak would show it.
                if fd >= 0 {
                    mine.append(fd)
                    _ = flags.opened.add(1, ordering: .relaxed)
                }
                if mine.count > 40 {
                    index = (index &* 31 &+ 7) % mine.count
                    close(mine.remove(at: index))
                }
            }
            for fd in mine { close(fd) }
        }
        opener.start()
        defer { flags.stop.store(true, ordering: .relaxed) }
        var failures: [String] = []
        for round in 0..<24 {
            let speaks = round % 2 == 1
            let (child, recorder) = try Self.run(
                ["/bin/sh", "-c", "ls -l /proc/self/fd; echo end >&2"],
                loop: loop,
                protocol: speaks
            )
            if !child.sharedDescriptors { failures.append("round \(round): the child copied the table") }
            if recorder.exit != .exited(0) {
                failures.append("round \(round): exit \(String(describing: recorder.exit))")
            }
            let fds = Self.listed(recorder.lines)
            // `ls` holds the directory it reads, the lowest free descriptor.
            let directory = speaks ? 4 : 3
            let expected = Set(speaks ? [0, 1, 2, 3, directory] : [0, 1, 2, directory])
            if Set(fds.keys) != expected { failures.append("round \(round): descriptors \(fds)") }
            if fds[0] != "/dev/null" { failures.append("round \(round): stdin \(fds[0] ?? "-")") }
            if speaks && !(fds[3] ?? "").hasPrefix("socket:") {
                failures.append("round \(round): channel \(fds[3] ?? "-")")
            }
            child.closeOutput()
        }
        flags.stop.store(true, ordering: .relaxed)
        while !opener.isFinished { usleep(1_000) }
        #expect(flags.opened.load(ordering: .relaxed) > 100, "the other thread opened descriptors meanwhile")
        #expect(failures.isEmpty, "\(failures)")
        DirectChild.close(loop)
    }

    @Test("an exec or chdir that fails in slot mode is reported with its step and leaves no descriptor here")
    func failedSlotSpawnsReportAndLeakNothing() throws {
        let loop = try DirectChild.makeLoop()
        let warm = try Self.run(["/bin/sh", "-c", "echo end >&2"], loop: loop)
        warm.child.closeOutput()
        for _ in 0..<50 { uv_run(loop, UV_RUN_NOWAIT) }
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbage = directory + "/not-a-program"
        try Data([0x7f, 0x00, 0x01, 0x02, 0x03]).write(to: URL(fileURLWithPath: garbage))
        chmod(garbage, 0o755)
        let before = Self.ownDescriptors()
        var outcomes: [String] = []
        for (arguments, cwd, speaks) in [
            ([garbage], nil as String?, false),
            ([garbage], nil, true),
            (["/bin/true"], directory + "/missing", false),
            (["/bin/true"], directory + "/missing", true),
            ([directory + "/absent"], nil, true),
        ] {
            let child = ChildProcess(app: "com.test.slots.fail", loop: loop, options: ProcessOptions())
            do {
                try DirectChild.start(child, arguments, workingDirectory: cwd, protocol: speaks)
                outcomes.append("started")
            } catch {
                outcomes.append("\(error.call) \(-error.status)")
            }
        }
        #expect(
            outcomes == [
                "execve \(ENOEXEC)", "execve \(ENOEXEC)", "chdir \(ENOENT)", "chdir \(ENOENT)", "execve \(ENOENT)",
            ]
        )
        let after = Self.ownDescriptors()
        let gained = after.filter { before[$0.key] != $0.value }
        #expect(gained.isEmpty, "descriptors left by the failed spawns: \(gained)")
        for slot in ChildProcess.spawnSlots {
            #expect(after[slot] == "/dev/null", "slot \(slot) holds \(after[slot] ?? "-")")
        }
        // And the next spawn still goes through the slots.
        let next = try Self.run(["/bin/sh", "-c", "echo end >&2"], loop: loop)
        #expect(next.child.sharedDescriptors)
        #expect(next.recorder.exit == .exited(0))
        next.child.closeOutput()
        DirectChild.close(loop)
    }

    @Test(
        "with this process's stdin closed before the first spawn, slots sit from 4 up; a child's 0 is /dev/null"
    )
    func slotsWithStandardInputClosed() throws {
        let loop = try DirectChild.makeLoop()
        let saved = fcntl(0, F_DUPFD_CLOEXEC, 10)
        try #require(saved >= 0)
        close(0)
        ChildProcess.resetSpawnSlots()
        defer {
            dup2(saved, 0)
            close(saved)
            ChildProcess.resetSpawnSlots()
        }
        var results: [(shared: Bool, fds: [Int: String])] = []
        for _ in 0..<2 {
            let (child, recorder) = try Self.run(["/bin/sh", "-c", "ls -l /proc/self/fd; echo end >&2"], loop: loop)
            results.append((child.sharedDescriptors, Self.listed(recorder.lines)))
            child.closeOutput()
        }
        #expect(ChildProcess.spawnSlots.allSatisfy { $0 >= 4 }, "slots \(ChildProcess.spawnSlots)")
        for (shared, fds) in results {
            #expect(shared)
            #expect(Set(fds.keys) == [0, 1, 2, 3] && fds[0] == "/dev/null", "\(fds)")
            #expect((fds[1] ?? "").hasPrefix("pipe:") && (fds[2] ?? "").hasPrefix("pipe:"), "\(fds)")
        }
        DirectChild.close(loop)
    }

    @Test("running out of descriptors at the first spawn does not turn the slots off for good")
    func slotsSurviveDescriptorExhaustionAtTheFirstSpawn() throws {
        let loop = try DirectChild.makeLoop()
        ChildProcess.resetSpawnSlots()  // As in a daemon that has not spawned yet.
        defer { ChildProcess.resetSpawnSlots() }  // Whatever happened, later spawns open them again.
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let saved = limit
        // A limit that leaves six free descriptors: the output pipes take four, and the slots' /dev/null and its
        // first copy the other two, so the second slot cannot be opened (EMFILE).
        let used = Set(Self.ownDescriptors().keys)
        var free = 0
        var number: Int32 = 0
        while free < 6 {
            if !used.contains(number) { free += 1 }
            number += 1
        }
        limit.rlim_cur = rlim_t(number)
        try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        var outcome = "started"
        let starved = ChildProcess(app: "com.test.slots.emfile", loop: loop, options: ProcessOptions())
        do {
            try DirectChild.start(starved, ["/bin/true"])
        } catch {
            outcome = "\(error)"
        }
        var restored = saved
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restored) == 0)
        #expect(!starved.sharedDescriptors, "no slots could be opened under the limit (\(outcome))")
        // Descriptors are available again: the next spawn opens the slots and uses them.
        let next = try Self.run(["/bin/sh", "-c", "echo end >&2"], loop: loop)
        #expect(next.recorder.exit == .exited(0))
        #expect(next.child.sharedDescriptors, "the spawn after the exhaustion shares the table through the slots")
        #expect(ChildProcess.spawnSlots.allSatisfy { $0 >= 4 }, "slots \(ChildProcess.spawnSlots)")
        next.child.closeOutput()
        if starved.pid > 0 { starved.closeOutput() }
        DirectChild.close(loop)
    }
}

/// The opener thread's stop flag and count (atomics: read and written by two threads).
final class OpenerFlags: Sendable {
    let stop = Atomic<Bool>(false)
    let opened = Atomic<Int>(0)
}
