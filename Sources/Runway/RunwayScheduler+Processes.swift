import RunwayCore

extension RunwayScheduler {
    /// Registers a process app (`AppKind.process`) in `notRunning`; `launch` starts its program (Behaviour.md section
    /// 5).
    ///
    /// The child runs in its own session and process group, in a cgroup of its own when the cgroup v2 freezer
    /// is used (`SuspensionMechanism`), with stdout and stderr logged line by line under the app's identifier.
    /// A protocol app (`RunwayProtocol = 1`) gets the app protocol on descriptor 3 (`RUNWAY_FD`, A4).
    ///
    /// - Throws: `duplicateApp`; `unsupportedApp` for an embedded app; `stopping` after shutdown began.
    public func register(process descriptor: AppDescriptor) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: descriptor.id) { driver throws(SchedulerError) in
            try driver.register(process: descriptor)
        }
    }

    /// What the driver knows of each process app: pid, suspension mechanism and its confirmation, cgroup,
    /// last exit. Empty after shutdown or when no process app is registered.
    public func processes() -> [AppID: ProcessStatus] {
        self.bridge.sync { $0.processStatus() } ?? [:]
    }
}
