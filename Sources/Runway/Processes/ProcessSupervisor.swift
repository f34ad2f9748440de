import CLibUV
import Logging
import RunwayCore
import RunwayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the supervisor reports to the driver, on the loop thread. The driver feeds these to the core.
protocol ProcessSupervisorDelegate: AnyObject {
    func processExited(_ app: AppID, exit: ProcessExit)
    func processFailedToStart(_ app: AppID, error: String)
    func processViolatedProtocol(_ app: AppID, reason: String)
    func processAcknowledged(_ token: MessageToken, app: AppID)
    /// A line from a protocol child: an acknowledgement (nothing to answer) or a request, whose answer is
    /// returned and sent back.
    func processRequested(_ request: AppToRunway, app: AppID) -> RunwayToApp?
}

/// Runs the process apps' side of the core's actions (SPEC section 5, A4, A5): starts children with
/// `uv_spawn`, suspends them with the cgroup v2 freezer or SIGSTOP and confirms it, signals and kills them,
/// speaks the app protocol, writes `oom_score_adj`, and reaps what an app leaves behind.
///
/// Threading: loop thread only. Every entry point is called by `LoopDriver` on its loop; libuv callbacks
/// arrive on the same thread.
///
/// Time: confirmations and reaping are polled every millisecond by one libuv timer that runs only while
/// something is pending; they are bookkeeping, not deadlines (the core's deadlines use the timerfd).
final class ProcessSupervisor: ChildProcessDelegate {
    struct Managed {
        var spec: ProcessSpec
        var child: ChildProcess?
        var cgroup: AppCgroup?
        var mechanism: ResolvedSuspensionMechanism?
        var fallbackReason: String?
        var pending: Confirmation?
        var confirmed = false
        var lastExit: ProcessExit?
        var policer: ProtocolPolicer
        var state: AppState = .notRunning
    }

    /// A suspend or resume waiting for the kernel to confirm it.
    struct Confirmation {
        var suspended: Bool
        var since: Instant
    }

    /// A process left behind by an app (a grandchild) that was killed and must be reaped once re-parented.
    struct Orphan {
        var pid: Int32
        var app: AppID
        var since: Instant
    }

    let loop: EventLoopThread
    let options: ProcessOptions
    let requestedMechanism: SuspensionMechanism
    let logger: Logger
    weak var delegate: (any ProcessSupervisorDelegate)?

    private(set) var apps: [AppID: Managed] = [:]
    private var orphans: [Orphan] = []
    private var runwayCgroupDirectory: Result<String, CgroupUnavailable>?
    private let tick = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var ticking = false
    private var closed = false
    private var finishWaiters: [() -> Void] = []

    /// Run by `/bin/sh -c` with `$1` = the cgroup's `cgroup.procs` and the program and its arguments after it:
    /// moves the shell into the cgroup, then replaces it with the program (same pid). Exit status 126 when
    /// the move fails.
    static let cgroupEnterScript = #"echo 0 > "$1" || exit 126; shift; exec "$@""#

    /// `oom_score_adj` per state (P3): active apps are the last the kernel kills, suspended ones the first.
    static func oomScoreAdjust(for state: AppState) -> Int? {
        switch state {
        case .active: return 0
        case .inactive: return 200
        case .background: return 500
        case .suspended: return 1000
        case .notRunning: return nil
        }
    }

    init(loop: EventLoopThread, options: ProcessOptions, mechanism: SuspensionMechanism, logger: Logger) {
        self.loop = loop
        self.options = options
        self.requestedMechanism = options.suspensionMechanism ?? mechanism
        self.logger = logger
        let status = uv_timer_init(loop.handles.loop, self.tick)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.tick.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        if options.reapsOrphans {
            let status = runway_set_child_subreaper()
            if status != 0 {
                logger.info(
                    "cannot become a child subreaper; orphans of apps go to pid 1",
                    metadata: ["errno": "\(-status)"]
                )
            }
        }
    }

    /// Calls `body` once every process an app left behind is reaped (or forgotten, 5 s after the exit), then
    /// closes the supervisor (its cgroups are removed). Called when the scheduler stops (P4).
    func finish(then body: @escaping () -> Void) {
        self.finishWaiters.append(body)
        self.finishIfSettled()
    }

    private func finishIfSettled() {
        guard !self.finishWaiters.isEmpty, self.orphans.isEmpty else { return }
        self.close()
        let waiters = self.finishWaiters
        self.finishWaiters = []
        for waiter in waiters { waiter() }
    }

    /// Stops the timer and removes Runway's cgroup directories.
    func close() {
        guard !self.closed else { return }
        self.closed = true
        self.stopTicking()
        uv_close(runway_timer_as_handle(self.tick)) { handle in handle?.deallocate() }
        for (app, managed) in self.apps {
            guard let cgroup = managed.cgroup else { continue }
            let status = cgroup.remove()
            if status != 0 {
                self.logger.info(
                    "cannot remove the app's cgroup",
                    metadata: ["app": "\(app)", "cgroup": "\(cgroup.path)", "errno": "\(status)"]
                )
            }
        }
        if case .success(let directory) = self.runwayCgroupDirectory { _ = rmdir(directory) }
    }

    /// Registers an app and, when it will use the freezer, creates its cgroup now, so that launching it costs
    /// no mkdir. The cgroup is kept across runs (thawed after each exit) and removed when the supervisor closes.
    func register(_ app: AppID, spec: ProcessSpec) {
        var managed = Managed(
            spec: spec,
            policer: ProtocolPolicer(
                malformedLimit: self.options.protocolMalformedLimit,
                lineLimit: self.options.protocolLineRateLimit
            )
        )
        self.prepareMechanism(app, &managed)
        self.apps[app] = managed
    }

    /// Resolves the app's mechanism and creates its cgroup if it uses the freezer (falling back to signals,
    /// with the reason, when `auto` cannot create it). Returns the reason the freezer was required but failed.
    @discardableResult
    private func prepareMechanism(_ app: AppID, _ managed: inout Managed) -> CgroupUnavailable? {
        switch self.resolveMechanism() {
        case .failure(let reason):
            return reason
        case .success(let (mechanism, fallback)):
            managed.mechanism = mechanism
            managed.fallbackReason = fallback
        }
        guard managed.mechanism == .freezer, managed.cgroup == nil,
            case .success(let parent) = self.runwayCgroupDirectory
        else { return nil }
        switch AppCgroup.create(in: parent, name: app.bundleIdentifier) {
        case .success(let cgroup):
            managed.cgroup = cgroup
            return nil
        case .failure(let reason):
            guard self.requestedMechanism == .auto else { return reason }
            managed.mechanism = .signal
            managed.fallbackReason = reason.reason
            return nil
        }
    }

    func status(of app: AppID) -> ProcessStatus? {
        guard let managed = self.apps[app] else { return nil }
        return ProcessStatus(
            pid: managed.child.flatMap { $0.hasExited ? nil : $0.pid },
            mechanism: managed.mechanism,
            freezerUnavailableReason: managed.fallbackReason,
            suspensionConfirmed: managed.confirmed,
            cgroupPath: managed.mechanism == .freezer ? managed.cgroup?.path : nil,
            lastExit: managed.lastExit
        )
    }

    /// The resident bytes of every running app's processes (the `rss` pressure source, P3).
    func residentBytes() -> UInt64 {
        var total: UInt64 = 0
        for managed in self.apps.values {
            guard let child = managed.child, !child.hasExited else { continue }
            let pids = managed.cgroup?.processes ?? ProcFS.members(ofProcessGroup: child.pid)
            for pid in pids { total += ProcFS.residentBytes(pid) ?? 0 }
        }
        return total
    }

    // MARK: Actions

    /// `.spawn`: starts the program. Reports `processFailedToStart` when it cannot.
    func spawn(_ app: AppID) {
        guard var managed = self.apps[app] else { preconditionFailure("spawn of unregistered process app \(app)") }
        precondition(managed.child == nil || managed.child!.hasExited, "spawn of \(app) while its child runs")
        let spec = managed.spec
        if let reason = self.prepareMechanism(app, &managed) {
            self.delegate?.processFailedToStart(app, error: "SuspensionMechanism freezer: \(reason)")
            return
        }
        guard let executable = self.resolveExecutable(spec.arguments[0]) else {
            self.delegate?.processFailedToStart(
                app,
                error: "ProgramArguments[0] '\(spec.arguments[0])' is not an executable file"
                    + " (searched \(self.describeSearch(spec.arguments[0])))"
            )
            return
        }
        var environment = Self.currentEnvironment()
        for (key, value) in spec.environment.sorted(by: { $0.key < $1.key }) { environment[key] = value }
        environment[AppProtocol.appEnvironmentKey] = app.bundleIdentifier
        if spec.speaksProtocol { environment[AppProtocol.descriptorEnvironmentKey] = "3" }

        // Freezer: the child enters its cgroup before it runs the program, through a one-line /bin/sh wrapper,
        // so that nothing it starts can escape the cgroup (libuv cannot spawn into a cgroup: no CLONE_INTO_CGROUP).
        var program = executable
        var arguments = spec.arguments
        if managed.mechanism == .freezer, let cgroup = managed.cgroup {
            program = "/bin/sh"
            arguments =
                [
                    "/bin/sh", "-c", Self.cgroupEnterScript, "runway-cgroup-enter", "\(cgroup.path)/cgroup.procs",
                    executable,
                ]
                + spec.arguments.dropFirst()
        }
        let child = ChildProcess(
            app: app,
            loop: self.loop.handles.loop,
            outputLineLimitBytes: self.options.outputLineLimitBytes,
            protocolLineLimitBytes: self.options.protocolLineLimitBytes
        )
        child.delegate = self
        do {
            try child.start(
                executable: program,
                arguments: arguments,
                environment: environment.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" },
                workingDirectory: spec.workingDirectory.map(self.resolvePath),
                speaksProtocol: spec.speaksProtocol
            )
        } catch {
            self.delegate?.processFailedToStart(app, error: "\(error) (\(executable))")
            return
        }
        managed.child = child
        managed.confirmed = false
        managed.pending = nil
        managed.policer = ProtocolPolicer(
            malformedLimit: self.options.protocolMalformedLimit,
            lineLimit: self.options.protocolLineRateLimit
        )
        self.apps[app] = managed
        self.logger.info(
            "process started",
            metadata: [
                "app": "\(app)", "pid": "\(child.pid)", "mechanism": "\(managed.mechanism.map(\.rawValue) ?? "-")",
                "executable": "\(executable)",
            ]
        )
        if spec.speaksProtocol {
            child.send(
                line: AppProtocolCodec.encode(
                    RunwayToApp.hello(app: app.bundleIdentifier, version: AppProtocol.version)
                )
            )
        }
    }

    /// `.deliver` to a protocol child: one `message` line. A child whose channel is closed cannot answer, so
    /// the message is acknowledged at once (as for a plain process) and logged.
    func deliver(_ message: Message, token: MessageToken, to app: AppID) {
        guard let child = self.apps[app]?.child, !child.hasExited else {
            self.delegate?.processAcknowledged(token, app: app)
            return
        }
        guard child.isChannelOpen else {
            self.logger.info(
                "protocol channel closed; message acknowledged for the app",
                metadata: ["app": "\(app)", "message": "\(message)"]
            )
            self.delegate?.processAcknowledged(token, app: app)
            return
        }
        child.send(line: AppProtocolCodec.encode(RunwayToApp.message(token: token.rawValue, message)))
        self.checkWriteQueue(child)
    }

    /// `.suspend`: freeze the cgroup or SIGSTOP the group; confirmation is polled (P1).
    func suspend(_ app: AppID) { self.setSuspended(true, app) }

    /// `.resume`: thaw or SIGCONT; confirmation is polled.
    func resume(_ app: AppID) { self.setSuspended(false, app) }

    /// `.sendTerminateSignal`: SIGTERM to the app's processes (L4).
    func terminate(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        if managed.mechanism == .freezer, let pids = managed.cgroup?.processes, !pids.isEmpty {
            for pid in pids { _ = runway_kill(pid, SIGTERM) }
        } else {
            child.signalGroup(SIGTERM)
        }
    }

    /// `.kill`: SIGKILL to every process of the app, frozen or stopped ones included, without thawing (P2).
    func kill(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        managed.cgroup?.killAll()
        child.signalGroup(SIGKILL)
        _ = runway_kill(child.pid, SIGKILL)
    }

    // MARK: ChildProcessDelegate

    func child(_ child: ChildProcess, printed line: String, isError: Bool, truncated: Bool) {
        self.logger.info(
            "app output",
            metadata: [
                "app": "\(child.app)", "stream": "\(isError ? "stderr" : "stdout")", "line": "\(line)",
                "truncated": "\(truncated)",
            ]
        )
    }

    func child(_ child: ChildProcess, sent frame: LineFramer.Frame) {
        let app = child.app
        guard var managed = self.apps[app], managed.child === child else { return }
        let now = self.loop.turnNow
        let verdict: ProtocolPolicer.Verdict
        var reply: RunwayToApp?
        var request: AppToRunway?
        switch frame {
        case .tooLong(let seen):
            verdict = managed.policer.malformedLineReceived(now: now)
            reply = .error(
                request: nil,
                code: "lineTooLong",
                message: "a line of \(seen) or more bytes exceeds the limit of \(self.options.protocolLineLimitBytes)"
            )
        case .line(let bytes):
            do {
                request = try AppProtocolCodec.decodeAppLine(bytes)
                verdict = managed.policer.lineReceived(now: now)
            } catch {
                verdict = managed.policer.malformedLineReceived(now: now)
                reply = .error(request: error.request, code: error.code, message: error.message)
            }
        }
        self.apps[app] = managed
        if let reply {
            self.logger.info("malformed protocol line", metadata: ["app": "\(app)", "error": "\(reply)"])
            child.send(line: AppProtocolCodec.encode(reply))
        }
        if case .violation(let reason) = verdict {
            self.logger.info("protocol violation; terminating", metadata: ["app": "\(app)", "reason": "\(reason)"])
            child.closeChannel()
            self.delegate?.processViolatedProtocol(app, reason: reason)
            return
        }
        guard let request, let answer = self.delegate?.processRequested(request, app: app) else { return }
        child.send(line: AppProtocolCodec.encode(answer))
        self.checkWriteQueue(child)
    }

    func childClosedChannel(_ child: ChildProcess) {
        self.logger.debug("protocol channel closed by the app", metadata: ["app": "\(child.app)"])
    }

    func child(_ child: ChildProcess, exited exit: ProcessExit) {
        let app = child.app
        guard var managed = self.apps[app], managed.child === child else { return }
        managed.lastExit = exit
        managed.pending = nil
        managed.confirmed = false
        let now = self.loop.turnNow
        // Whatever the app started and left behind is killed with it (P2): the rest of its cgroup, or its
        // process group. Those processes are re-parented here (subreaper) and reaped by the tick.
        // A scan of /proc only when the group still has members (kill(-pgid, 0) succeeds): most apps leave none.
        var leftovers = runway_kill(-child.pid, 0) == 0 ? Set(ProcFS.members(ofProcessGroup: child.pid)) : []
        if let cgroup = managed.cgroup {
            let remaining = cgroup.processes
            if !remaining.isEmpty {
                leftovers.formUnion(remaining)
                cgroup.killAll()
            }
            // The next run must not start frozen.
            if cgroup.setFrozen(false) != 0 {
                self.logger.info("cannot thaw the app's cgroup", metadata: ["app": "\(app)"])
            }
        }
        _ = runway_kill(-child.pid, SIGKILL)
        for pid in leftovers where pid != child.pid {
            _ = runway_kill(pid, SIGKILL)
            self.orphans.append(Orphan(pid: pid, app: app, since: now))
        }
        child.closeChannel()
        self.apps[app] = managed
        self.logger.info(
            "process exited",
            metadata: [
                "app": "\(app)", "pid": "\(child.pid)", "exit": "\(exit)",
                "leftovers": "\(leftovers.count - (leftovers.contains(child.pid) ? 1 : 0))",
            ]
        )
        self.startTicking()
        self.delegate?.processExited(app, exit: exit)
    }

    // MARK: Suspension

    private func setSuspended(_ suspended: Bool, _ app: AppID) {
        guard var managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        switch managed.mechanism {
        case .freezer:
            let status = managed.cgroup?.setFrozen(suspended) ?? ENOENT
            if status != 0 {
                self.logger.info("cgroup.freeze write failed", metadata: ["app": "\(app)", "errno": "\(status)"])
            }
        case .signal, nil:
            child.signalGroup(suspended ? SIGSTOP : SIGCONT)
        }
        managed.confirmed = false
        managed.pending = Confirmation(suspended: suspended, since: self.loop.turnNow)
        self.apps[app] = managed
        self.checkConfirmation(app, now: self.loop.turnNow)
        if self.apps[app]?.pending != nil { self.startTicking() }
    }

    /// True when the kernel shows the app in the state of its pending confirmation.
    private func isConfirmed(_ managed: Managed, suspended: Bool) -> Bool {
        switch managed.mechanism {
        case .freezer:
            return managed.cgroup.map { $0.isFrozen == suspended } ?? false
        case .signal, nil:
            // P1: state `T` of the app's process. A shell blocked in vfork() for a child that was stopped before
            // its exec shows `D` until that child runs again; then the child's `T` confirms it (a /proc scan,
            // only in that case).
            guard let pid = managed.child?.pid, let state = ProcFS.stat(pid)?.state else { return false }
            guard suspended else { return state != "T" }
            if state == "T" { return true }
            guard state == "D" else { return false }
            let states = ProcFS.members(ofProcessGroup: pid).compactMap { ProcFS.stat($0)?.state }
            return states.contains("T") && states.allSatisfy { $0 == "T" || $0 == "t" || $0 == "D" || $0 == "Z" }
        }
    }

    private func checkConfirmation(_ app: AppID, now: Instant) {
        guard var managed = self.apps[app], let pending = managed.pending else { return }
        if self.isConfirmed(managed, suspended: pending.suspended) {
            managed.pending = nil
            managed.confirmed = true
            self.logger.debug(
                pending.suspended ? "suspension confirmed" : "resumption confirmed",
                metadata: [
                    "app": "\(app)", "mechanism": "\(managed.mechanism.map(\.rawValue) ?? "-")",
                    "after": "\(now - pending.since)",
                ]
            )
        } else if now - pending.since >= self.options.confirmationTimeout {
            managed.pending = nil
            managed.confirmed = false
            self.logger.info(
                pending.suspended ? "suspension not confirmed" : "resumption not confirmed",
                metadata: [
                    "app": "\(app)", "mechanism": "\(managed.mechanism.map(\.rawValue) ?? "-")",
                    "waited": "\(now - pending.since)",
                ]
            )
        }
        self.apps[app] = managed
    }

    // MARK: Housekeeping tick

    private func startTicking() {
        guard !self.ticking, !self.closed else { return }
        self.ticking = true
        let interval = self.options.confirmationPollMilliseconds
        uv_timer_start(
            self.tick,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue().tickFired()
            },
            interval,
            interval
        )
    }

    private func stopTicking() {
        guard self.ticking else { return }
        self.ticking = false
        uv_timer_stop(self.tick)
    }

    private func tickFired() {
        let now = self.loop.turnNow
        for (app, managed) in self.apps where managed.pending != nil { self.checkConfirmation(app, now: now) }
        self.reapOrphans(now: now)
        if self.apps.values.allSatisfy({ $0.pending == nil }) && self.orphans.isEmpty {
            self.stopTicking()
        }
        self.finishIfSettled()
    }

    /// Reaps processes an app left behind once they are re-parented here; forgets those that are gone or
    /// belong to someone else after 5 s.
    private func reapOrphans(now: Instant) {
        self.orphans.removeAll { orphan in
            let result = runway_reap_nonblocking(orphan.pid)
            if result == orphan.pid { return true }
            if result == -ECHILD && runway_kill(orphan.pid, 0) == -ESRCH { return true }
            if now - orphan.since > .seconds(5) {
                self.logger.info(
                    "left-behind process not reaped within 5 s",
                    metadata: ["app": "\(orphan.app)", "pid": "\(orphan.pid)"]
                )
                return true
            }
            return false
        }
    }

    // MARK: Helpers

    private func checkWriteQueue(_ child: ChildProcess) {
        guard child.channelQueuedBytes > self.options.protocolWriteQueueLimitBytes else { return }
        self.logger.info(
            "protocol child does not read; terminating",
            metadata: ["app": "\(child.app)", "queued": "\(child.channelQueuedBytes)"]
        )
        child.closeChannel()
        self.delegate?.processViolatedProtocol(
            child.app,
            reason: "more than \(self.options.protocolWriteQueueLimitBytes) bytes unread"
        )
    }

    /// The mechanism for new children and, for `auto`, why the freezer is not used.
    private func resolveMechanism() -> Result<(ResolvedSuspensionMechanism, String?), CgroupUnavailable> {
        if self.requestedMechanism == .signal { return .success((.signal, nil)) }
        if self.runwayCgroupDirectory == nil {
            self.runwayCgroupDirectory = CgroupHierarchy.discover().flatMap { $0.makeRunwayDirectory() }
            if case .failure(let reason) = self.runwayCgroupDirectory {
                self.logger.info("cgroup v2 freezer unavailable", metadata: ["reason": "\(reason)"])
            }
        }
        switch self.runwayCgroupDirectory! {
        case .success: return .success((.freezer, nil))
        case .failure(let reason):
            return self.requestedMechanism == .freezer ? .failure(reason) : .success((.signal, reason.reason))
        }
    }

    private func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = self.options.baseDirectory ?? Self.currentDirectory()
        return base + "/" + path
    }

    /// An absolute path, a relative path with a `/` (against `baseDirectory`), or a bare name searched in
    /// `searchDirectories` then `PATH`. Nil when no executable file is found.
    func resolveExecutable(_ name: String) -> String? {
        if name.contains("/") {
            let path = self.resolvePath(name)
            return access(path, X_OK) == 0 ? path : nil
        }
        for directory in self.searchPath() where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        return nil
    }

    private func searchPath() -> [String] {
        let path = (getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin")
        return self.options.searchDirectories + path.split(separator: ":").map(String.init)
    }

    private func describeSearch(_ name: String) -> String {
        name.contains("/") ? self.resolvePath(name) : self.searchPath().joined(separator: ":")
    }

    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
    }

    static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
