import CLibUV
import CRunwayProcess
import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The child's exit, seen through its pidfd: a `uv_poll_t` on the pidfd, which becomes readable when
/// the child exits, then `waitid(P_PIDFD)` for the status. No SIGCHLD handler takes part, and nothing scans
/// other children per exit. Also the stdout and stderr pipes the spawn creates (`pipe2`, opened here as
/// `uv_pipe_t`). Loop thread only.
extension ChildProcess {
    /// Starts polling the pidfd; the poll handle holds a share of the object until it is closed.
    func watchExit() {
        var status = uv_poll_init(self.loop, self.exitPoll, self.pidfd)
        precondition(status == 0, "uv_poll_init of a pidfd failed: \(status)")
        self.retainForHandle()
        status = uv_poll_start(self.exitPoll, Int32(UV_READABLE.rawValue)) { poll, _, _ in
            guard let poll, let data = poll.pointee.data else { return }
            Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue().pidfdReadable()
        }
        precondition(status == 0, "uv_poll_start of a pidfd failed: \(status)")
    }

    /// The pidfd is readable: reaps the child and reports its exit. A spurious wake-up (not exited yet) waits on.
    private func pidfdReadable() {
        var exitedNormally: Int32 = 0
        var code: Int32 = 0
        let reaped = runway_pidfd_reap(self.pidfd, &exitedNormally, &code)
        if reaped == 0 { return }
        uv_close(runway_poll_as_handle(self.exitPoll), ChildProcess.handleClosed)
        close(self.pidfd)  // uv_close removed it from epoll already.
        self.pidfd = -1
        // -ECHILD: someone else reaped it (not expected: the sweep leaves `SpawnedChildren` alone); reported as
        // killed, the status being lost.
        let exit: ProcessExit =
            reaped < 0 ? .signaled(SIGKILL) : exitedNormally != 0 ? .exited(code) : .signaled(code)
        // Reported in this turn's check phase, after the output events of the same poll: what the child wrote
        // before it exited is read (and in its log ring) when the exit is handled, as when SIGCHLD reported it.
        self.pendingExit = exit
        let status = uv_check_init(self.loop, self.exitCheck)
        precondition(status == 0, "uv_check_init cannot fail on a valid loop: \(status)")
        self.exitCheck.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        self.retainForHandle()
        uv_check_start(self.exitCheck) { check in
            guard let check, let data = check.pointee.data else { return }
            let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
            uv_close(runway_check_as_handle(check), ChildProcess.handleClosed)
            if let exit = child.pendingExit {
                child.pendingExit = nil
                child.exited(exit)
            }
        }
    }

    /// Opens the parent's read end of an output pipe as `pipe` and starts reading it; the handle holds a share
    /// of the object until it is closed.
    func openOutput(_ pipe: UnsafeMutablePointer<uv_pipe_t>, _ descriptor: Int32) {
        var status = uv_pipe_init(self.loop, pipe, 0)
        precondition(status == 0, "uv_pipe_init cannot fail on a valid loop: \(status)")
        self.retainForHandle()
        status = uv_pipe_open(pipe, descriptor)
        precondition(status == 0, "uv_pipe_open of a new pipe failed: \(status)")
        self.startReadingOutput(pipe)
    }
}

/// The stdout and stderr pipes of a child being started: close-on-exec (`pipe2`), the child getting the write
/// ends as descriptors 1 and 2 through `runway_spawn`'s dup2.
struct OutputPipes {
    var stdout: (read: Int32, write: Int32)
    var stderr: (read: Int32, write: Int32)

    init() throws(ProcessStartError) {
        self.stdout = try Self.make()
        do {
            self.stderr = try Self.make()
        } catch {
            close(self.stdout.read)
            close(self.stdout.write)
            throw error
        }
    }

    private static func make() throws(ProcessStartError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        let status = fds.withUnsafeMutableBufferPointer { runway_pipe_cloexec($0.baseAddress) }
        guard status == 0 else { throw ProcessStartError(call: "pipe2", status: status) }
        return (fds[0], fds[1])
    }

    /// Closes the write ends (the child has its copies once started).
    func closeChildEnds() {
        close(self.stdout.write)
        close(self.stderr.write)
    }

    /// Closes the read ends (when the start failed).
    func closeParentEnds() {
        close(self.stdout.read)
        close(self.stderr.read)
    }
}

extension ProcessStartError {
    /// The call a `runway_spawn` step names in errors.
    static func stepName(_ step: Int32) -> String {
        switch step {
        case Int32(RUNWAY_SPAWN_PIPE.rawValue): "pipe2"
        case Int32(RUNWAY_SPAWN_CLONE.rawValue): "clone3"
        case Int32(RUNWAY_SPAWN_DESCRIPTORS.rawValue): "dup2"
        case Int32(RUNWAY_SPAWN_SETSID.rawValue): "setsid"
        case Int32(RUNWAY_SPAWN_CHDIR.rawValue): "chdir"
        case Int32(RUNWAY_SPAWN_EXECVE.rawValue): "execve"
        case Int32(RUNWAY_SPAWN_CGROUP.rawValue): "joining the cgroup"
        case Int32(RUNWAY_SPAWN_PIDFD.rawValue): "pidfd_open"
        case Int32(RUNWAY_SPAWN_CGROUP_V1.rawValue): "joining a cgroup v1 hierarchy"
        case Int32(RUNWAY_SPAWN_CGROUP_NAMESPACE.rawValue): "unshare(CLONE_NEWCGROUP)"
        case Int32(RUNWAY_SPAWN_SETGROUPS.rawValue): "setgroups"
        case Int32(RUNWAY_SPAWN_SETGID.rawValue): "setresgid"
        case Int32(RUNWAY_SPAWN_SETUID.rawValue): "setresuid"
        default: "reading the spawn report"
        }
    }
}
