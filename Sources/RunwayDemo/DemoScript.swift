import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) import RunwayTestKit

/// The demo's script: which app plays which role, the timed actions, and the checks of the outcome.
package struct DemoScript {
    package struct Report {
        package var lines: [String] = []
        package var failures: [String] = []
    }

    package let configuration: RunwayConfiguration
    private var driver: SimulatedDriver
    private var report = Report()

    private let plain: AppID?
    private let overrunning: AppID?
    private let killed: AppID?
    private let exiting: AppID?
    private let backgroundMode: AppID?

    package init(configuration: RunwayConfiguration) {
        self.configuration = configuration
        let descriptors = configuration.apps.map { app -> AppDescriptor in
            var descriptor = app.descriptor
            if case .process(var spec) = descriptor.kind {
                spec.speaksProtocol = true
                descriptor.kind = .process(spec)
            }
            return descriptor
        }
        var scheduler = Scheduler(settings: configuration.settings)
        for descriptor in descriptors {
            // Identifiers are unique: the loader rejects duplicates.
            try? scheduler.register(descriptor)
        }
        self.driver = SimulatedDriver(scheduler: scheduler)
        let plainApps = descriptors.filter { !$0.exitsOnSuspend && $0.backgroundModes.isEmpty }.map(\.id)
        self.plain = plainApps.first
        self.overrunning = plainApps.dropFirst().first
        self.killed = plainApps.dropFirst(2).first
        self.exiting = descriptors.first { $0.exitsOnSuspend }?.id
        self.backgroundMode = descriptors.first { !$0.backgroundModes.isEmpty }?.id
    }

    package mutating func play() -> Report {
        let settings = self.configuration.settings
        self.report.lines.append(
            "Runway demo on \(self.configuration.directory): simulated clock; budget \(settings.backgroundTimeBudget), "
                + "warning lead \(settings.expirationWarningLead), termination grace \(settings.terminationGrace), "
                + "overrun policy \(settings.overrunPolicy.rawValue)"
        )
        let roles: [(String, AppID?)] = [
            ("S2/S3/S11/S14 plain app", self.plain), ("S12 overrunning app", self.overrunning),
            ("S13 exits-on-suspend app", self.exiting), ("L7 background-mode app", self.backgroundMode),
            ("S15 app killed in the switcher", self.killed),
        ]
        for (role, app) in roles {
            self.report.lines.append("  \(role): \(app.map { "\($0)" } ?? "none in this config (skipped)")")
        }
        self.report.lines.append("")
        self.script()
        self.driver.runUntilIdle()
        self.report.lines.append(contentsOf: DemoTimeline.lines(for: self.driver.log))
        self.check()
        return self.report
    }

    /// The timed actions. Instants are seconds on the simulated clock.
    private mutating func script() {
        let all = self.configuration.apps.map(\.descriptor.id)
        for app in all {
            self.driver.schedule(.command(.launch, app), at: at(0))
        }
        if let app = self.plain {
            // S2: Home with no task: suspended at once. S3: summoned. S11: a task that ends in time.
            self.driver.schedule(.command(.enterBackground, app), at: at(1))
            self.driver.schedule(.command(.enterForeground, app), at: at(2))
            self.driver.schedule(.beginTask("save-draft", app), at: at(3))
            self.driver.schedule(.command(.enterBackground, app), at: at(3))
            self.driver.schedule(.endOldestTask(app), at: at(5))
        }
        if let app = self.exiting {
            // S13 (drain style): finishes its upload in the background, then exits instead of suspending.
            self.driver.schedule(.beginTask("upload", app), at: at(1))
            self.driver.schedule(.command(.enterBackground, app), at: at(1))
            self.driver.schedule(.endOldestTask(app), at: at(2))
        }
        if let app = self.overrunning {
            // S12: a task that ignores its expiration warning: terminated at the deadline.
            self.driver.schedule(.beginTask("full-sync", app), at: at(1))
            self.driver.schedule(.command(.enterBackground, app), at: at(1))
        }
        if let app = self.backgroundMode {
            // L7: runs in the background with no budget and is never suspended for lack of tasks.
            self.driver.schedule(.command(.enterBackground, app), at: at(2))
        }
        if let app = self.killed {
            // S15: Home while it holds a task, then killed in the switcher: willTerminate, then it ends.
            self.driver.schedule(.beginTask("export", app), at: at(1))
            self.driver.schedule(.userAction(.home, app), at: at(1))
            self.driver.schedule(.userAction(.switcherKill, app), at: at(2))
        }
        // S14: memory pressure purges the longest-suspended app; then the scheduler stops (P4).
        let end = self.configuration.settings.backgroundTimeBudget.seconds + 10
        self.driver.schedule(.purge, at: at(Int64(end)))
        self.driver.schedule(.shutdown, at: at(Int64(end) + 1))
    }

    private func at(_ seconds: Int64) -> Instant { .origin + .seconds(seconds) }

    /// The outcomes the spec requires; each failure is reported and makes the command exit 1.
    private mutating func check() {
        let events = self.driver.events
        func expect(_ condition: Bool, _ failure: String) {
            if !condition { self.report.failures.append(failure) }
        }
        func reached(_ app: AppID, _ state: AppState, _ cause: TransitionCause? = nil) -> Bool {
            events.contains { $0.app == app && $0.to == state && (cause == nil || $0.cause == cause) }
        }
        if let app = self.plain {
            expect(reached(app, .suspended, .noOutstandingTasks), "\(app) was never suspended (S2/S11)")
            expect(reached(app, .notRunning, .terminated(.memoryPressure)), "\(app) was not purged (S14)")
        }
        if let app = self.overrunning {
            expect(reached(app, .notRunning, .terminated(.budgetOverrun)), "\(app) was not killed for overrun (S12)")
        }
        if let app = self.exiting {
            expect(reached(app, .notRunning, .terminated(.exitsOnSuspend)), "\(app) did not exit on suspend (S13)")
        }
        if let app = self.backgroundMode {
            expect(!reached(app, .suspended), "\(app) has background modes but was suspended (L7)")
            expect(reached(app, .notRunning, .terminated(.shutdown)), "\(app) was not stopped at shutdown (P4)")
        }
        if let app = self.killed {
            let killed = events.contains {
                $0.app == app && $0.to == .notRunning && $0.cause == .terminated(.requested)
                    && $0.messages == [.willTerminate]
            }
            expect(killed, "\(app) was not killed in the switcher after willTerminate (S15)")
        }
        expect(self.driver.scheduler.allAppsStopped, "some apps are still running after shutdown (P4)")
        self.report.lines.append("")
        self.report.lines.append(
            self.report.failures.isEmpty
                ? "demo: every outcome matches the spec (\(events.count) transitions)"
                : "demo: \(self.report.failures.count) outcomes differ from the spec"
        )
    }
}
