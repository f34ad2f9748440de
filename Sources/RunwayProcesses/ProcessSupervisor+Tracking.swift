import CLibUV
import CRunwayProcess
@_spi(Processes) import RunwayCore
import RunwayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tracking: which processes belong to each app, so that signal mode stops, confirms and kills all of them,
/// not only the app's process group (P1, P2), and so that the state file lists them (`+StateFile`).
///
/// - Freezer: the app's cgroup holds everything it started; its `cgroup.procs` is the list.
/// - Signal: the tree under the app's main process, walked through `/proc` from the main pid and from every
///   process already tracked (pid and start time), so that a process that double-forked and was re-parented
///   here (Runway is a child subreaper) stays the app's. A child of this process that no scan has seen yet
///   is attributed by `RUNWAY_APP` in its `/proc/PID/environ` (read once per process, its first 64 KiB); one that
///   scrubbed that is kept as unattributed (listed in the state file, never signalled with an app, killed when the
///   supervisor closes: `+Unattributed`). Docs/Security.md states what escapes.
///
/// An app's tree is scanned (`refreshTracking([app])`) before each terminate and kill, at each confirmation poll
/// of a suspension (the first on the loop turn after the signal) and at its exit; every app's at a stop. A
/// resumption reads only the states of the processes tracked. Between them, a few settling looks after each launch,
/// resumption or line of a signal-mode app (`SettlingLooks`, from `options.descendantScanInterval`) make the light
/// scan (`refreshOwnChildren`), which looks only at this process's own children, where a process that left an
/// app's tree ends up: it costs a read per thread of this process and per child that is not an app's main process
/// (the loop thread's own list, the main processes, is left out: `ProcessTree.ownChildren`), whatever the apps run.
/// With nothing happening, nothing is read. Loop thread only.
extension ProcessSupervisor {
    /// Re-reads the processes of `apps` (default: every app) that have a child (running, or exited with
    /// processes still tracked), then this process's children that no app tracks; marks the state file dirty
    /// when anything changed. What is found for an app whose main process has exited is killed and left to
    /// reap (`leaveBehind`). With `apps` empty this is the light scan.
    ///
    /// The look at this process's own children (`attributeOwnChildren`, which reads the list of them) is
    /// done at most once per loop turn for a scan of named apps: a batch of N suspends in one turn
    /// reads it once, not N times. The light scan and the scan of every app always do it. `known` holds stat
    /// readings made in this turn, which the walk uses instead of reading again.
    func refreshTracking(_ apps: [AppID]? = nil, known: [Int32: ProcFS.Stat] = [:]) {
        var tree = ProcessTree()
        tree.known = known
        var changed = false
        let scanned = apps ?? Array(self.apps.keys)
        for app in scanned { changed = self.rescan(app, tree) || changed }
        var touched = Set(scanned)
        if self.needsOwnChildrenLook(named: apps) {
            self.scanCounts.ownChildrenLooks += 1
            let (attributionChanged, attributed) = self.attributeOwnChildren(tree)
            changed = attributionChanged || changed
            touched.formUnion(attributed)
        }
        for app in apps == nil ? Array(self.apps.keys) : Array(touched)
        where self.apps[app]?.child?.hasExited == true {
            self.leaveBehind(app)
        }
        if changed { self.markStateDirty() }
    }

    /// True when this scan reads this process's own children: always for the light scan (`named` empty) and
    /// for every app (`named` nil); for named apps, once per loop turn (`ownChildrenScan`).
    private func needsOwnChildrenLook(named apps: [AppID]?) -> Bool {
        self.processScan.ownChildrenScan.lookWanted(now: self.loop.turnNow, forced: apps?.isEmpty ?? true)
    }

    /// The light scan: this process's children that no app tracks yet are attributed (or kept as unattributed)
    /// as by `refreshTracking`; nothing already tracked is read again.
    func refreshOwnChildren() { self.refreshTracking([]) }

    /// One app's processes: its cgroup's with the freezer, else the tree under its main process and under every
    /// process already tracked for it. Returns true when they changed.
    ///
    /// A running app already scanned in this loop turn is not read again: `signalEveryProcess` and
    /// the confirmation check right after it share one scan.
    private func rescan(_ app: AppID, _ tree: ProcessTree) -> Bool {
        guard var managed = self.apps[app], let child = managed.child else { return false }
        let running = !child.hasExited
        guard running || !managed.tracked.isEmpty else { return false }
        if running {
            guard managed.scan.lookWanted(now: self.loop.turnNow) else { return false }
        } else {
            managed.scan.forget()
        }
        var tree = tree
        if running, tree.known[child.pid] == nil, let main = self.mainStatFromWait(managed, running: true) {
            tree.known[child.pid] = main
        }
        let found: Set<ProcessIdentity>
        if managed.choice?.mechanism == .freezer, let cgroup = managed.cgroup, running {
            found = Set(cgroup.processes.compactMap(ProcessIdentity.current))
        } else {
            // The main process, once reaped, is no root: its /proc entry is gone and what it started is re-parented.
            let roots = managed.tracked.filter { running || $0.pid != child.pid }.map {
                (pid: $0.pid, startTime: Optional($0.startTime))
            }
            found = self.walk(tree, from: (running ? [(child.pid, nil)] : []) + roots, app: app)
        }
        let changed = found != managed.tracked
        managed.tracked = found
        self.apps[app] = managed
        return changed
    }

    /// The fields of an app's main process's `/proc/PID/stat` that the walk and the confirmation use,
    /// known without reading that file (about 10 µs for a fresh process, the costliest read of a look):
    /// - the state from the kernel's wait on its pidfd: `T` when its thread group is stopped; with `running`, `R`
    ///   when it is neither stopped nor exited (continued, or never stopped), which the walk only needs to tell from a
    ///   zombie;
    /// - the thread count from the link count of `/proc/PID/task` (the walk reads the main thread's `children`
    ///   alone only for one thread);
    /// - the start time from its identity, read once after the launch: the pidfd keeps its pid from being reused;
    /// - the parent, group and session it has by construction: this process, and its own (the spawn's `setsid`
    ///   made it a session leader, which can change neither).
    ///
    /// Nil when one of them is not known (identity not read yet, exited, a state the wait does not report such as
    /// a ptrace stop or a vfork parent waiting): the caller reads the file then.
    func mainStatFromWait(_ managed: Managed, running: Bool) -> ProcFS.Stat? {
        guard let child = managed.child, !child.hasExited,
            let identity = managed.tracked.first(where: { $0.pid == child.pid })
        else { return nil }
        let state: Character
        switch child.waitReport {
        case .stopped: state = "T"
        case .neither where running, .continued where running: state = "R"
        default: return nil
        }
        let threads = runway_proc_thread_count(child.pid)
        guard threads > 0 else { return nil }
        self.scanCounts.mainStatsByWait += 1
        return ProcFS.Stat(
            state: state,
            parent: self.ownPID,
            processGroup: child.pid,
            session: child.pid,
            startTime: identity.startTime,
            threads: threads
        )
    }

    /// The app's processes to signal beside its process group: every tracked process outside the main
    /// process's group (the group signal reaches the others; a second SIGTERM could be counted twice).
    func trackedOutsideGroup(_ app: AppID) -> [ProcessIdentity] {
        guard let managed = self.apps[app], let child = managed.child else { return [] }
        return managed.tracked.filter { identity in
            identity.pid != child.pid && ProcFS.stat(identity.pid)?.processGroup != child.pid
        }
    }

    /// `signal` to the app's process group and to every tracked process outside it; with `rescanning`, after a fresh
    /// scan of the app (terminate and kill). A suspension and a resumption signal without one (a scan per signal would
    /// cost a read of the app's tree on the path of every suspension): a process forked since the last scan is in the
    /// group, or is found and stopped by the confirmation's scan on the next loop turn, and nothing of the app forks
    /// while it is stopped.
    ///
    /// - Parameter quietRefusals: A refusal does not matter (the app's `cgroup.kill` reached its processes): it is
    ///   logged at debug and not counted (`signalRefused`).
    /// - Returns: False when the kernel refused the signal to one of the processes (logged and counted).
    @discardableResult
    func signalEveryProcess(
        _ app: AppID,
        _ signal: Int32,
        rescanning: Bool = true,
        quietRefusals: Bool = false
    ) -> Bool {
        if rescanning { self.refreshTracking([app]) }
        guard let child = self.apps[app]?.child, !child.hasExited else { return true }
        var delivered = true
        let status = child.signalGroup(signal)
        if Self.isRefusal(status) {
            delivered = false
            self.signalRefused(app, pid: child.pid, signal: signal, status: status, quiet: quietRefusals)
        }
        for identity in self.trackedOutsideGroup(app) {
            let status = identity.send(signal)
            if Self.isRefusal(status) {
                delivered = false
                self.signalRefused(app, pid: identity.pid, signal: signal, status: status, quiet: quietRefusals)
            }
        }
        return delivered
    }

    /// The tree under `roots`, bounded by `options.trackedProcessLimit`; logs once per app when cut.
    private func walk(
        _ tree: ProcessTree,
        from roots: [(pid: Int32, startTime: UInt64?)],
        app: AppID
    ) -> Set<ProcessIdentity> {
        let limit = max(1, self.options.trackedProcessLimit)
        let (found, truncated) = tree.descendants(of: roots, limit: limit)
        if truncated && self.processScan.firstTruncation(of: app) {
            self.logger.warning(
                "app has more processes than trackedProcessLimit; the rest are not stopped or listed",
                metadata: ["app": "\(app)", "trackedProcessLimit": .stringConvertible(limit)]
            )
        }
        return found
    }

    /// This process's children that no app claimed and that run in another session than this process (an
    /// app's processes never share it: `runway_spawn` starts each app in a new session; a host's own children do):
    /// attributed to an app by `RUNWAY_APP` when its environment still says so, else kept as unattributed.
    ///
    /// The pids every app tracks, against which a child is checked, are gathered only when a child is no app's main
    /// process: usually every child is one, and gathering them reads every app (O(apps) at each loop turn of exits
    /// or confirmations).
    ///
    /// - Returns: True when an app's set or the unattributed set changed, and the apps given processes.
    private func attributeOwnChildren(_ tree: ProcessTree) -> (Bool, [AppID]) {
        var gathered: Set<Int32>?
        var unattributed = Set<ProcessIdentity>()
        var changed = false
        var attributed: [AppID] = []
        let mains = SpawnedChildren.withOwned { $0 }
        let children = tree.ownChildren()
        self.scanCounts.ownChildrenListedMost = max(self.scanCounts.ownChildrenListedMost, children.count)
        self.processScan.environmentAttributions.keep(children: children)
        for pid in children where !mains.contains(pid) {
            if gathered == nil { gathered = self.trackedPIDs() }
            guard gathered?.contains(pid) == false else { continue }
            guard let stat = ProcFS.stat(pid), stat.state != "Z", stat.session != self.ownSession else { continue }
            let named = self.appNamedInEnvironment(of: pid, startTime: stat.startTime)
            if let app = named.flatMap({ self.appsByBundleIdentifier[$0] }), var managed = self.apps[app],
                managed.child != nil
            {
                let found = self.walk(tree, from: [(pid, nil)], app: app)
                gathered?.formUnion(found.map(\.pid))
                // An app asked to stop (signal mode) stops what it is given here: this look may be another app's,
                // or the light scan, and the app's own look stops only what that look found new.
                if managed.confirmation?.suspending == true, managed.choice?.mechanism != .freezer {
                    self.stop(found.subtracting(managed.tracked), of: app)
                }
                managed.tracked.formUnion(found)
                self.apps[app] = managed
                attributed.append(app)
                changed = true
            } else {
                let limit = max(1, self.options.trackedProcessLimit)
                unattributed.formUnion(tree.descendants(of: [(pid, nil)], limit: limit).processes)
            }
        }
        if self.processScan.replaceUnattributed(with: unattributed) { changed = true }
        return (changed, attributed)
    }

    /// Every pid an app tracks (a read of every app).
    private func trackedPIDs() -> Set<Int32> {
        self.scanCounts.trackedPIDGathers += 1
        return Set(self.apps.values.flatMap { $0.tracked.map(\.pid) })
    }

    /// `RUNWAY_APP` in the environment of the child `pid` that started at `startTime`, read once in that process's
    /// life (`EnvironmentAttributions`).
    private func appNamedInEnvironment(of pid: Int32, startTime: UInt64) -> String? {
        let (name, didRead) = self.processScan.environmentAttributions.named(pid: pid, startTime: startTime) {
            ProcFS.environmentValue(pid, AppProtocol.appEnvironmentKey)
        }
        if didRead { self.scanCounts.childEnvironmentReads += 1 }
        return name
    }

    // MARK: The settling looks

    /// Something `app` did can make one of its processes leave its tree (its launch, its resumption, a line it sent):
    /// when it needs the light look (signal mode), the settling looks follow (`SettlingLooks`). Only that app is
    /// looked at: the looks run while any running app needs them (`scanFired` stops them once none does), and the
    /// others' needs have not changed since, so a batch of N launches looks at N apps, not N² (a freezer app never
    /// needs them, and looking at every app for each launch was quadratic).
    func settlingActivity(of app: AppID) {
        guard !self.closed, let managed = self.apps[app], self.needsPeriodicScan(managed) else { return }
        self.processScan.activity(
            intervalMilliseconds: ScanCadence.periodicIntervalMilliseconds(self.options.descendantScanInterval)
        )
    }

    private var needsPeriodicScan: Bool {
        self.apps.values.contains { self.needsPeriodicScan($0) }
    }

    private func needsPeriodicScan(_ managed: Managed) -> Bool {
        self.scanCounts.periodicScanLooks += 1
        guard let child = managed.child, !child.hasExited else { return false }
        return ScanCadence.periodicScanNeeded(usesFreezer: managed.choice?.mechanism == .freezer)
    }

    /// A settling look: the light scan, then the next of the series, or none when no running app needs them.
    func scanFired() {
        self.refreshOwnChildren()
        guard self.needsPeriodicScan else { return self.processScan.stop() }
        self.processScan.lookMade()
    }

    func stopScanning() {
        self.processScan.stop()
    }
}
