import CLibUV
import CRunwayProcess
import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `runway_spawn` called directly: a freezer spawn borrows this process's memory (no page tables copied) and
/// puts the child in its cgroup before its program runs; an exec failure comes back as its step and errno.
@Suite("runway_spawn: the C spawn into a cgroup", .serialized)
struct CSpawnTests {
    /// Reads what `fd` gives until end of file.
    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Spawns `arguments` with `runway_spawn` into `cgroup` (joining by write when `byWrite`), stdout to a pipe;
    /// returns the spawn's status, its result and what the child printed before it exited (reaped here).
    static func spawn(
        _ arguments: [String],
        cgroup: String,
        byWrite: Bool
    ) throws -> (status: Int32, result: runway_spawn_result, output: String) {
        var pipe: [Int32] = [-1, -1]
        try #require(pipe.withUnsafeMutableBufferPointer { runway_pipe_cloexec($0.baseAddress) } == 0)
        let directory = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }
        let argv = CStringArray(arguments)
        let envp = CStringArray(["PATH=/usr/bin:/bin"])
        var result = runway_spawn_result()
        let status = arguments[0].withCString { path in
            var request = runway_spawn_request()
            request.path = path
            request.argv = UnsafePointer(argv.pointer)
            request.envp = UnsafePointer(envp.pointer)
            request.working_directory = nil
            request.cgroup_fd = directory
            request.join_by_write = byWrite ? 1 : 0
            request.stdout_fd = pipe[1]
            request.stderr_fd = pipe[1]
            request.channel_fd = -1
            return runway_spawn(&request, &result)
        }
        close(pipe[1])
        let output = Self.readAll(pipe[0])
        close(pipe[0])
        if status == 0 {
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(result.pid), &info, WEXITED)
            close(result.pidfd)
        }
        return (status, result, output)
    }

    @Test(
        "a freezer spawn borrows the daemon's memory (clone3 with CLONE_VM | CLONE_VFORK into the cgroup)",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func freezerSpawnBorrowsMemory() throws {
        let parent = try CgroupHierarchy.discover().flatMap { $0.makeRunwayDirectory() }.get()
        let cgroup = try AppCgroup.create(in: parent, name: "com.test.cspawn.vm").get()
        defer {
            cgroup.remove()
            _ = rmdir(parent)  // fails, harmlessly, while another supervisor of this process uses it.
        }
        for byWrite in [false, true] {
            let started = try Self.spawn(["/bin/cat", "/proc/self/cgroup"], cgroup: cgroup.path, byWrite: byWrite)
            #expect(started.status == 0, "byWrite \(byWrite): step \(started.result.step), \(started.result.error)")
            #if arch(x86_64)
            #expect(started.result.shared_memory == 1, "byWrite \(byWrite): the child was forked")
            #endif
            // In its cgroup before the program ran: cat's own /proc/self/cgroup names it.
            let line = started.output.split(separator: "\n").first { $0.hasPrefix("0::/") } ?? ""
            #expect(!line.isEmpty && cgroup.path.hasSuffix(String(line.dropFirst(3))), "\(started.output)")
        }
        // An exec failure still comes back through the report pipe as the step and errno.
        let missing = try Self.spawn(["/nonexistent/runway-cspawn"], cgroup: cgroup.path, byWrite: false)
        #expect(missing.status == -ENOENT)
        #expect(missing.result.step == Int32(RUNWAY_SPAWN_EXECVE.rawValue))
    }
}
