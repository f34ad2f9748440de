@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

extension RunwayScheduler {
    /// Registers a process app (`AppKind.process`) in `notRunning`; `launch` starts its program (Behaviour.md section
    /// 5).
    ///
    /// The child runs in its own session and process group, in a cgroup of its own when the cgroup v2 freezer
    /// is used (`SuspensionMechanism`), with stdout and stderr logged line by line under the app's identifier and
    /// kept in a bounded ring per run (`ProcessOptions.appLogLineLimit`, `appLogByteLimit`), and appended to the
    /// files of `ProcessSpec.outputFiles` when set.
    /// A protocol app (`RunwayProtocol = 1`) gets the app protocol on descriptor 3 (`RUNWAY_FD`, A4).
    ///
    /// - Throws: `duplicateApp`; `unsupportedApp` for an embedded app; `stopping` after shutdown began.
    @_spi(Processes)
    public func register(process descriptor: AppDescriptor) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: descriptor.id) { driver throws(SchedulerError) in
            try driver.register(process: descriptor)
        }
    }

    /// Process apps registered per hop to the loop by `register(processes:)`. A registration costs the loop a few
    /// microseconds, so a slice is about a millisecond of the loop's time, and 10,000 apps are 40 hops, not
    /// 10,000.
    package static let registrationSliceLimit = 256

    /// Registers process apps in `notRunning`, each as `register(process:)` does, in the order given, in slices of
    /// `registrationSliceLimit` per hop to the loop (one loop turn each); one refusal does not stop the others.
    ///
    /// Threading: any thread; blocks until the last slice is registered (inline on the loop thread).
    ///
    /// - Returns: The refusals by app: `duplicateApp`, `unsupportedApp` for an embedded app, `stopping` after
    ///   shutdown began; empty when every app was registered.
    package func register(processes descriptors: [AppDescriptor]) -> [AppID: SchedulerError] {
        var refusals: [AppID: SchedulerError] = [:]
        var start = 0
        while start < descriptors.count {
            let slice = Array(descriptors[start..<min(start + Self.registrationSliceLimit, descriptors.count)])
            start += slice.count
            // A stopped loop registers nothing: every app of the slice is refused with `stopping`.
            let sliceRefusals =
                self.bridge.sync { driver in driver.register(processes: slice) }
                ?? Dictionary(
                    slice.map { ($0.id, SchedulerError(.stopping, app: $0.id)) },
                    uniquingKeysWith: { first, _ in first }
                )
            refusals.merge(sliceRefusals, uniquingKeysWith: { first, _ in first })
        }
        return refusals
    }

    /// Starts process supervision now rather than at the first process app's registration. With
    /// `ProcessOptions.stateFile` set, this ends (SIGKILL, then waits up to `orphanReapTimeout`) every process
    /// that a previous user of that file, now gone, left running or stopped, and logs each one; call it before
    /// serving anything. Later calls do nothing.
    ///
    /// - Returns: The processes ended, as `(pid, app)` (app "" when unattributed); empty after shutdown or
    ///   when there was nothing to end.
    @discardableResult
    @_spi(Processes)
    public func endProcessesLeftByPreviousRun() -> [(pid: Int32, app: String)] {
        self.bridge.sync { driver in driver.processSupervisor().takeEndedAtStart() } ?? []
    }

    /// What the driver knows of each process app: pid, suspension mechanism and its confirmation, cgroup,
    /// last exit. Empty after shutdown or when no process app is registered.
    @_spi(Processes)
    public func processes() -> [AppID: ProcessStatus] {
        self.bridge.sync { $0.processStatus() } ?? [:]
    }

    /// `processes()` for the listed apps only (O(apps listed)); an app that is not a process app is left out.
    @_spi(Processes)
    public func processes(of apps: [AppID]) -> [AppID: ProcessStatus] {
        self.bridge.sync { driver in
            var result: [AppID: ProcessStatus] = [:]
            result.reserveCapacity(apps.count)
            for app in apps { result[app] = driver.processStatus(of: app) }
            return result
        } ?? [:]
    }
}
