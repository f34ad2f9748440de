@_spi(Driver) import RunwayCore

extension RunwayApplication {
    /// What the current run's launch restored (R2): the state the last run preserved and how that run ended
    /// (`purged`, `shutdown`, `crashed`, ...); nil for a launch from nothing. Set before `didFinishLaunching` is
    /// called, and kept for the run.
    public var restoration: (state: [UInt8], lastRunEnded: RunEnding)? { self.restored.withLock { $0 } }

    /// Preserves `bytes` as the state the app's next launch restores (R1), replacing the one stored; typically called
    /// in `didEnterBackground`. A scheduler made in code keeps the states in memory for its lifetime (nothing is
    /// written to disk); the daemon, `runway run`, keeps them in its StateDirectory.
    ///
    /// - Parameters:
    ///   - bytes: Opaque to Runway; at most `StateRestorationByteLimit` (1 MiB in a scheduler made in code).
    /// - Throws: `stateTooLarge` naming the limit (nothing changes), `notRunning` when the app's run has ended and
    ///   its state is discarded (R3), `stateNotStored` when the daemon's store failed (logged), `stopping`.
    public func preserveState(_ bytes: [UInt8]) async throws(SchedulerError) {
        let app = self.id
        let outcome: SchedulerError? = await withCheckedContinuation { continuation in
            let asked = self.loop.sync { driver in
                driver.preserveEmbeddedState(app: app, bytes) { continuation.resume(returning: $0) }
            }
            if asked == nil { continuation.resume(returning: SchedulerError(.stopping, app: app)) }
        }
        if let outcome { throw outcome }
    }
}

extension LoopDriver {
    /// `RunwayApplication.preserveState` on the loop thread: checks the limit, tells the core, stores; `done` is
    /// called (any thread) with nil once the state is stored, or the error.
    func preserveEmbeddedState(app: AppID, _ bytes: [UInt8], done: @escaping @Sendable (SchedulerError?) -> Void) {
        let limit = self.restoration.byteLimit
        let state = self.runner.core.state(of: app) ?? .notRunning
        guard bytes.count <= limit else {
            return done(SchedulerError(.stateTooLarge, app: app, state: state, limit: limit))
        }
        let kept = self.runner.runReturning { core, _ in ((try? core.statePreserved(for: app)) ?? false, []) }
        guard kept else { return done(SchedulerError(.notRunning, app: app, state: state)) }
        let version = self.runner.core.descriptor(of: app)?.stateVersion
        let logger = self.logger
        self.restoration.save(app, bytes, version: version) { problem in
            guard let problem else { return done(nil) }
            logger.info("preserved state not stored", metadata: ["app": "\(app)", "problem": "\(problem)"])
            done(SchedulerError(.stateNotStored, app: app, state: state))
        }
    }
}
