import CoreMetrics
import RunwayCore
import RunwayProcesses

/// The series of fixed words that exist before their first event. A counter that appears only at its first
/// increment has no earlier sample, so `increase()` and `rate()` miss that first event: an alert on
/// `increase(runway_terminations_total{reason="budgetOverrun"}[15m]) > 0` would never fire for the first overrun.
/// Docs/Operations.md lists the same words; a test reads them from there.
extension RunwayMetrics {
    /// Every `(from, to, cause)` the lifecycle publishes (Behaviour.md section 2 and its causes), with the cause as
    /// its kind (`TransitionCause.kind`).
    static let lifecycleTransitions: [(from: AppState, to: AppState, cause: String)] = [
        // Commands: launch (L9), resignActive, activate, enterBackground, enterForeground (L10 to inactive).
        (.notRunning, .inactive, "command"), (.inactive, .active, "command"), (.active, .inactive, "command"),
        (.inactive, .background, "command"), (.active, .background, "command"), (.notRunning, .background, "command"),
        (.background, .active, "command"), (.suspended, .active, "command"), (.background, .inactive, "command"),
        (.suspended, .inactive, "command"),
        // A KeepAlive restart launches as the app's launch command does.
        (.notRunning, .inactive, "restart"), (.inactive, .active, "restart"), (.notRunning, .background, "restart"),
        // B5 and the budget's deadline.
        (.background, .suspended, "noOutstandingTasks"), (.background, .suspended, "budgetExpired"),
        // Terminations: P4's step to inactive, then the app gone from wherever it was.
        (.active, .inactive, "terminated"), (.active, .notRunning, "terminated"),
        (.inactive, .notRunning, "terminated"),
        (.background, .notRunning, "terminated"), (.suspended, .notRunning, "terminated"),
        // W1: launched into, or resumed in, the background.
        (.notRunning, .background, "backgroundWake"), (.suspended, .background, "backgroundWake"),
    ]

    /// `TerminationReason.kind` of every reason.
    static let terminationReasons = [
        "requested", "shutdown", "backgroundEntryTimeout", "budgetOverrun", "exitsOnSuspend", "memoryPressure",
        "protocolViolation", "spawnFailed", "exited", "signaled",
    ]

    /// `TaskRefusal.code` of every refusal.
    static let refusalReasons = [
        "unknownApp", "notRunning", "suspended", "terminating", "budgetExhausted", "exitsOnSuspendImmediately",
        "tooManyTasks", "nameTooLong",
    ]

    /// The signals sent to process apps, which `runway_signals_refused_total` counts by name.
    static let refusableSignals = ["SIGSTOP", "SIGCONT", "SIGTERM", "SIGKILL"]

    /// Makes every series of fixed words at zero: O(1), a few dozen series whatever the apps.
    func makeInitialSeries() {
        self.makeCounters(transitions: Self.lifecycleTransitions, terminations: Self.terminationReasons)
        for label in [
            "runway_suspensions_total", "runway_background_tasks_begun_total", "runway_background_tasks_ended_total",
            "runway_expiration_handlers_called_total", "runway_suspensions_unconfirmed_total",
        ] {
            _ = Counter(label: label, factory: self.factory)
        }
        for reason in Self.refusalReasons {
            _ = Counter(
                label: "runway_background_tasks_refused_total",
                dimensions: [("reason", reason)],
                factory: self.factory
            )
        }
        for stream in AppLogStream.allCases {
            _ = Counter(
                label: "runway_log_lines_refused_total",
                dimensions: [("stream", stream.rawValue)],
                factory: self.factory
            )
        }
        for signal in Self.refusableSignals {
            _ = Counter(label: "runway_signals_refused_total", dimensions: [("signal", signal)], factory: self.factory)
        }
        _ = Timer(label: "runway_wakeup_lateness", factory: self.factory)
    }
}
