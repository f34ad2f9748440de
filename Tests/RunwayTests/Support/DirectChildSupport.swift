import CLibUV
import CRunwayProcess
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// For tests that drive a `ChildProcess` on a libuv loop of their own, without a supervisor: the loop, a plain start,
/// running the loop until a condition, and closing it.
enum DirectChild {
    /// A new loop. Not deallocated: a failed run may leave handles open on it (a few hundred bytes in a test process).
    static func makeLoop() throws -> UnsafeMutablePointer<uv_loop_t> {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        try #require(uv_loop_init(loop) == 0)
        return loop
    }

    /// Starts `arguments[0]` with `arguments`, an empty environment and no cgroup.
    static func start(
        _ child: ChildProcess,
        _ arguments: [String],
        workingDirectory: String? = nil,
        protocol speaksProtocol: Bool = false
    ) throws(ProcessStartError) {
        try child.start(
            executable: arguments[0],
            arguments: arguments,
            environment: [],
            workingDirectory: workingDirectory,
            cgroup: nil,
            speaksProtocol: speaksProtocol
        )
    }

    /// Runs `loop` without blocking, every `pause` microseconds, until `done` holds or `timeout` has passed.
    static func run(
        _ loop: UnsafeMutablePointer<uv_loop_t>,
        timeout: Duration = .seconds(10),
        pause: UInt32 = 1_000,
        until done: () -> Bool
    ) {
        let deadline = ContinuousClock.now + timeout
        while !done() && ContinuousClock.now < deadline {
            uv_run(loop, UV_RUN_NOWAIT)
            usleep(pause)
        }
    }

    /// SIGKILLs `child`, runs `loop` until its exit is handled, closes its output and then `loop`.
    static func kill(_ child: ChildProcess, closing loop: UnsafeMutablePointer<uv_loop_t>) {
        _ = runway_kill(child.pid, SIGKILL)
        Self.run(loop) { child.hasExited }
        child.closeOutput()
        Self.close(loop)
    }

    /// Closes `loop`, running it until the close callbacks of its handles have run (at most 10 s).
    static func close(_ loop: UnsafeMutablePointer<uv_loop_t>) {
        let deadline = ContinuousClock.now + .seconds(10)
        while uv_loop_close(loop) == UV_EBUSY.rawValue && ContinuousClock.now < deadline { uv_run(loop, UV_RUN_NOWAIT) }
    }
}
