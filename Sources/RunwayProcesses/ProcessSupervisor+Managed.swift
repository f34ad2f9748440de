@_spi(Processes) import RunwayCore

/// What the supervisor keeps for each registered process app and for each process an app left behind, and the
/// per-app transitions. Loop thread only.
extension ProcessSupervisor {
    /// One registered process app.
    struct Managed {
        var spec: ProcessSpec
        /// The current or last child; nil before the first launch.
        var child: ChildProcess?
        /// The app's cgroup, created when the freezer is first chosen for it and kept until `close()`.
        var cgroup: AppCgroup?
        /// The current run's kept `cgroup.freeze` and `cgroup.events`; nil outside a freezer run.
        var cgroupFiles: AppCgroupFiles?
        /// How the app is suspended; nil until resolved (or while the required freezer is unavailable).
        var choice: SuspensionMechanismChoice?
        /// The last suspend or resume and whether the kernel confirmed it; nil before the first one of a run.
        var confirmation: SuspensionConfirmation?
        /// A suspension waiting for the app to read its channel (`ProcessSupervisor+Draining.swift`); nil when none.
        var drain: SuspensionDrain?
        /// The loop turn of the last line written to the app's channel.
        var lastWrite: Instant?
        var lastExit: ProcessExit?
        /// The run's SIGKILL was refused and no `cgroup.kill` reached it (`kill`); reset at each launch.
        var killRefused = false
        /// Polices the current run's protocol channel; replaced at each launch.
        var policer: ProtocolPolicer
        /// Bytes of a restored state's lines allowed beyond the unread-bytes limit until the app acknowledges the
        /// launch they precede (`ProcessSupervisor+Restoration.swift`); 0 otherwise.
        var restorationAllowance = 0
        /// Every live process of the app's current run, main process included, as last scanned
        /// (`+Tracking`); emptied when the run's leftovers become orphans.
        var tracked: Set<ProcessIdentity> = []
        /// When `tracked` is read again while the child runs: once per loop turn (`+Tracking`).
        var scan = ScanCadence()
        /// The descriptors charged for the current run (`DescriptorBudget.runCharge`); 0 when none runs.
        var runDescriptors = 0
        /// The descriptors charged for the output files, held from the first run on; 0 before it.
        var fileDescriptors = 0

        // MARK: Transitions of one app's suspension, kept here so that each is one call and sets every field
        // it touches.

        /// A suspension waits for the app to read its channel from `now`. Not frozen yet, so the last
        /// resume's confirmation must not show as this suspension's.
        mutating func drainStarted(now: Instant, timeout: TimeSpan) {
            self.drain = SuspensionDrain(since: now, timeout: timeout)
            self.confirmation = nil
        }

        /// The app was frozen or thawed (signalled) at `now`: the kernel's confirmation of it starts.
        mutating func signalled(suspending: Bool, now: Instant, timeout: TimeSpan) {
            self.confirmation = SuspensionConfirmation(suspending: suspending, since: now, timeout: timeout)
        }

        /// A new child was launched: what the last run confirmed, drained, scanned and policed is dropped.
        mutating func launched(_ child: ChildProcess, policer: ProtocolPolicer) {
            self.child = child
            self.killRefused = false
            self.confirmation = nil
            self.drain = nil
            self.policer = policer
            self.restorationAllowance = 0
            self.tracked = []
            self.scan.forget()
        }

        /// The main process exited with `exit`: its confirmation ends, and so does a suspension still waiting for
        /// it to read its channel. Kept, that drain would be checked against the next run's child, found unread
        /// or busy while it starts, and freeze it at the old drain's timeout: a launch that never finishes, or an
        /// app frozen between two messages of its first Home and killed at the end of `backgroundEntryGrace`.
        ///
        /// - Returns: True when its cgroup may be frozen now: the last request was a suspension (only a cgroup
        ///   this supervisor froze, or tried to, or one someone else froze, can be).
        mutating func exited(_ exit: ProcessExit) -> Bool {
            let mayBeFrozen = self.confirmation?.suspending ?? false
            self.lastExit = exit
            self.confirmation = nil
            self.drain = nil
            return mayBeFrozen
        }
    }

    /// A process left behind by an app (a grandchild) that was killed and must be reaped once re-parented.
    struct Orphan {
        var pid: Int32
        var app: AppID
        /// When the app's exit left it behind.
        var since: Instant
        /// Its start time when it was left behind (for the state file); nil when it was not read.
        var startTime: UInt64? = nil

        /// True once it has been waited for longer than `timeout` (`ProcessOptions.orphanReapTimeout`).
        func isOverdue(now: Instant, timeout: TimeSpan) -> Bool {
            self.wait(timeout: timeout).observed(gone: false, now: now) != .wait
        }

        /// The rule of the wait for it to be reaped.
        func wait(timeout: TimeSpan) -> LeftoverWait { LeftoverWait(since: self.since, timeout: timeout) }
    }
}
