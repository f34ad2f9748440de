import CRunwayProcess
import Logging
@_spi(Processes) import RunwayCore
import RunwayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Launching: `.spawn`, each app's suspension mechanism and cgroup, the program, its environment and the
/// cgroup placement (Behaviour.md section 5, P1, A4). Loop thread only.
extension ProcessSupervisor {
    /// `.spawn`: starts the program. Reports `processFailedToStart` when it cannot: the required freezer is
    /// unavailable, the run would take the descriptor reserve (`+Descriptors`), a cgroup ceiling cannot be enforced
    /// (P5), the program is not found, or the spawn fails (`ChildProcess.start`: the step and errno, an exec
    /// failure or a refused resource limit included).
    package func spawn(_ app: AppID) {
        guard var managed = self.apps[app] else { preconditionFailure("spawn of unregistered process app \(app)") }
        precondition(managed.child == nil || managed.child!.hasExited, "spawn of \(app) while its child runs")
        let spec = managed.spec
        if let reason = self.prepareMechanism(app, &managed) {
            self.delegate?.processFailedToStart(app, error: "SuspensionMechanism freezer: \(reason)")
            return
        }
        // Before anything is opened: a run that would leave less than the descriptor reserve free is refused.
        if let refusal = self.descriptorRefusal(app, managed) {
            self.delegate?.processFailedToStart(app, error: refusal)
            return
        }
        let credentials: AppUser?
        switch Self.launchCredentials(spec.user) {
        case .success(let user): credentials = user
        case .failure(let refusal):
            self.delegate?.processFailedToStart(app, error: "\(refusal)")
            return
        }
        let locator = ProgramLocator(options: self.options)
        guard let executable = self.executable(spec.arguments[0], now: self.loop.turnNow) else {
            self.delegate?.processFailedToStart(
                app,
                error: "ProgramArguments[0] '\(spec.arguments[0])' is not an executable file"
                    + " (searched \(locator.describeSearch(spec.arguments[0])))"
            )
            return
        }
        // The child starts in the app's cgroup (CLONE_INTO_CGROUP): nothing it runs is ever outside it.
        let freezerCgroup = managed.choice?.mechanism == .freezer ? managed.cgroup : nil
        let cgroupV1Leaves: [String]
        switch self.applyCgroupLimits(app, spec.limits, freezerCgroup, managed.choice) {
        case .success(let leaves): cgroupV1Leaves = leaves
        case .failure(let refusal):
            self.delegate?.processFailedToStart(app, error: refusal.message)
            return
        }
        // Thawed first. A child cloned into a frozen cgroup is frozen before its exec, and this thread
        // waits for that exec (CLONE_VFORK): someone who froze the idle cgroup (an operator, or a process of the
        // daemon's uid) would hang the loop. Writing "0" to a cgroup that is not frozen changes nothing; the
        // write goes through the run's kept `cgroup.freeze`, which the suspensions then reuse.
        let cgroupFiles = freezerCgroup.map { _ in AppCgroupFiles() }
        if let freezerCgroup, freezerCgroup.setFrozen(false, keeping: cgroupFiles) != 0 {
            self.logger.info("cannot thaw the app's cgroup before its launch", metadata: ["app": "\(app)"])
        }
        let child = ChildProcess(
            app: app,
            loop: self.loop.handles.loop,
            options: self.options,
            readBuffer: self.readBuffer
        )
        child.delegate = self
        let environment = self.environmentBase(now: self.loop.turnNow).entries(for: app, spec: spec)
        do {
            try SpawnedChildren.spawning(owner: ObjectIdentifier(self)) { () throws(ProcessStartError) -> Int32 in
                // Descriptors this process inherited or opened without O_CLOEXEC must not reach the app: it gets
                // 0-2 and, for a protocol app, its channel as 3 (which runway_spawn maps in with dup2; the child
                // also marks everything above close-on-exec before it execs).
                Self.markDescriptorsCloseOnExec(logger: self.logger)
                try child.start(
                    executable: executable,
                    arguments: spec.arguments,
                    environment: environment,
                    workingDirectory: spec.workingDirectory.map(locator.resolvePath),
                    cgroup: freezerCgroup,
                    joinsCgroupByWrite: freezerCgroup.map { !KilledCgroups.prepareForClone($0.path) } ?? false,
                    speaksProtocol: spec.speaksProtocol,
                    limits: Self.limitRequest(spec.limits, joining: cgroupV1Leaves),
                    user: credentials,
                    // A cgroup namespace of its own (unshare needs CAP_SYS_ADMIN, so a root daemon's apps only):
                    // the app sees `0::/`, and with nsdelegate cannot move a process outside its cgroup.
                    cgroupNamespace: geteuid() == 0
                )
                return child.pid
            }
        } catch {
            self.delegate?.processFailedToStart(app, error: "\(error) (\(executable))")
            return
        }
        CgroupNamespaceSupport.reportRefusal(self.logger)
        self.spawnCounted()
        managed.launched(child, policer: self.makePolicer())
        self.descriptorsCharged(&managed)
        managed.cgroupFiles?.close()
        managed.cgroupFiles = cgroupFiles
        self.childInheritedOOMScore(app, child)
        self.logs.runStarted(app, run: ObjectIdentifier(child))
        // The identity: from the boot clock around the spawn, else read on the next loop turn, when the child is past
        // its exec (a read now waits for the exec in progress); a scan in this turn finds the process anyway.
        if let ticks = child.startTicks {
            managed.tracked.insert(ProcessIdentity(pid: child.pid, startTime: ticks))
            self.scanCounts.identitiesFromClock += 1
        } else {
            self.batch.pendingIdentities[app] = child
            self.startTicking(soon: true)
        }
        self.apps[app] = managed
        self.markStateDirty()
        self.settlingActivity(of: app)
        self.logger.info(
            "process started",
            metadata: [
                "app": "\(app)", "pid": .stringConvertible(child.pid),
                "mechanism": "\(managed.choice?.mechanism.rawValue ?? "-")",
                "executable": "\(executable)",
            ]
        )
        if spec.speaksProtocol {
            let hello = RunwayToApp.hello(app: app.bundleIdentifier, version: AppProtocol.version)
            child.send(line: AppProtocolCodec.encode(hello))
        }
    }

    /// Resolves the app's mechanism with `SuspensionMechanismChoice.resolve` and, when that is the freezer,
    /// creates the app's cgroup if it has none (so `auto` falls back to signals, with the reason, when it
    /// cannot be created).
    ///
    /// - Returns: Why the required freezer (`freezer`) is unavailable; nil once a mechanism is chosen. On
    ///   failure `managed` keeps its previous choice.
    @discardableResult
    func prepareMechanism(_ app: AppID, _ managed: inout Managed) -> CgroupUnavailable? {
        let resolution = SuspensionMechanismChoice.resolve(requested: self.options.suspensionMechanism) {
            self.freezerCgroup(for: app, &managed)
        }
        switch resolution {
        case .success(let choice):
            managed.choice = choice
            return nil
        case .failure(let reason):
            return reason
        }
    }

    /// The app's cgroup directory, created under Runway's own on first use, or why the freezer is unusable.
    private func freezerCgroup(for app: AppID, _ managed: inout Managed) -> Result<String, CgroupUnavailable> {
        // An app's cgroup outlives its runs; one someone removed since is made again.
        if let cgroup = managed.cgroup, cgroup.exists { return .success(cgroup.path) }
        let created = self.cgroups.createAppCgroup(named: app.bundleIdentifier)
        if case .success(let cgroup) = created { managed.cgroup = cgroup }
        return created.map(\.path)
    }

    /// Marks every descriptor from 3 up close-on-exec (`runway_mark_descriptors_cloexec`); a failure is logged.
    static func markDescriptorsCloseOnExec(logger: Logger) {
        let status = runway_mark_descriptors_cloexec(3)
        if status != 0 {
            logger.warning(
                "cannot mark inherited descriptors close-on-exec; an app may inherit them",
                metadata: ["errno": .stringConvertible(-status)]
            )
        }
    }

    /// This process's environment (`environ`).
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
