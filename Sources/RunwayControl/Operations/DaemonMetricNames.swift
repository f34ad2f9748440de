/// Every metric the daemon exports at `GET /metrics`, with its help text. Docs/Operations.md lists the same
/// names with their types, labels and what to alert on; keep the two in step.
enum DaemonMetricNames {
    // Recorded by the runtime through swift-metrics (RunwayMetrics.swift in Runway).
    static let transitions = "runway_transitions_total"
    static let suspensions = "runway_suspensions_total"
    static let terminations = "runway_terminations_total"
    static let tasksBegun = "runway_background_tasks_begun_total"
    static let tasksEnded = "runway_background_tasks_ended_total"
    static let tasksRefused = "runway_background_tasks_refused_total"
    static let expirationHandlers = "runway_expiration_handlers_called_total"
    static let deadlineLateness = "runway_deadline_lateness_seconds"
    static let appLogLinesRefused = "runway_app_log_lines_refused_total"
    static let logLinesRefused = "runway_log_lines_refused_total"
    static let suspensionsUnconfirmed = "runway_suspensions_unconfirmed_total"
    static let signalsRefused = "runway_signals_refused_total"

    // Recorded by the daemon: the per-app rows and their aggregates (AppMetricsTable, never registered) and
    // the daemon's own counters (DaemonMetrics.swift).
    static let appState = "runway_app_state"
    static let appTasks = "runway_app_background_tasks"
    static let appExpirations = "runway_app_budget_expirations_total"
    static let appOverruns = "runway_app_budget_overruns_total"
    static let appRestarts = "runway_app_restarts_total"
    static let appCrashLooping = "runway_app_crash_looping"
    static let appContained = "runway_app_contained"
    static let apps = "runway_apps"
    static let appsInState = "runway_apps_in_state"
    static let loopBusy = "runway_loop_busy_seconds_total"
    static let scrapes = "runway_metrics_scrapes_total"
    static let buildInfo = "runway_build_info"

    static let help: [String: String] = [
        transitions: "Lifecycle transitions of all apps, by from state, to state and cause kind.",
        suspensions: "Transitions into suspended, all apps.",
        terminations: "App runs that ended, by reason kind (exited, signaled, budgetOverrun, requested, ...).",
        tasksBegun: "Background tasks begun (beginBackgroundTask that returned a valid id).",
        tasksEnded: "Background tasks ended by their app (endBackgroundTask).",
        tasksRefused: "beginBackgroundTask calls that returned invalid, by reason.",
        expirationHandlers: "Expiration handlers called (backgroundTaskWillExpire) at the end of a budget.",
        appLogLinesRefused: "Lines of the app's output not written to its StandardOutPath/StandardErrorPath file "
            + "(it could not be opened, a write failed, or it is at LogFileSizeLimit with rotation blocked), by "
            + "stream; runway logs still has them.",
        logLinesRefused: "Lines of all apps' output not written to their output files, by stream (the sum of "
            + "runway_app_log_lines_refused_total, present at zero from the start).",
        suspensionsUnconfirmed: "Suspensions of process apps the kernel did not show done within "
            + "2 s (P1: frozen 1, or every process stopped).",
        signalsRefused: "Signals to process apps' processes the kernel refused (EPERM: the daemon lacks CAP_KILL and "
            + "the app runs as another user), by signal; the daemon's log names the app, pid and errno.",
        deadlineLateness: "How late the loop served a deadline after the instant it was armed for, in seconds.",
        appState: "1 for the state each app is in now (notRunning, inactive, active, background, suspended); one "
            + "series per app.",
        appTasks: "Background tasks the app holds now (begun and not ended).",
        appExpirations: "Budget deadlines the app reached in the background: suspended or exited (cause "
            + "budgetExpired) or terminated (budgetOverrun).",
        appOverruns: "Runs of the app terminated for overrunning the budget (reason budgetOverrun).",
        appRestarts: "Times the daemon restarted the app after an exit it did not cause (KeepAlive).",
        appCrashLooping: "1 while the app is crash-looping (CrashLoopThreshold consecutive fast failures under "
            + "KeepAlive; it is still restarted), else 0.",
        appContained: "Process apps: 1 when the app is contained (a cgroup of its own, a user other than root and "
            + "the daemon's), else 0 (Docs/Security.md).",
        apps: "Apps registered with the daemon.",
        appsInState: "Apps in each state now (notRunning, inactive, active, background, suspended).",
        loopBusy: "Seconds the scheduler's loop thread spent outside its kernel wait since the daemon started: "
            + "its rate is the loop's utilisation (0 to 1).",
        scrapes: "GET /metrics requests served, this one included.",
        buildInfo: "1, with the daemon's version, the commit it was built from and its build type as labels.",
    ]
}
