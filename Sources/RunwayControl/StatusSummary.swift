@_spi(Driver) @_spi(Processes) import RunwayCore

/// `status` with `summary`: counts over every app, each kept as it changes, so a request costs the loop O(1)
/// whatever the fleet (Docs/ControlProtocol.md).
package struct StatusSummaryPayload: Codable, Hashable, Sendable {
    /// Registered apps.
    package var apps: Int
    /// Apps in each state, every state named (0 included).
    package var inState: [String: Int]
    /// Apps not `notRunning`.
    package var running: Int
    /// Outstanding background tasks over every app.
    package var tasks: Int
    /// Apps crash-looping (KeepAlive, `CrashLoopThreshold`).
    package var crashLooping: Int
    /// KeepAlive restarts since the daemon started.
    package var restarts: Int
    /// Budget deadlines reached since the daemon started (B6), overruns included.
    package var budgetExpirations: Int
    /// Budget deadlines that ended in a `budgetOverrun` termination since the daemon started.
    package var budgetOverruns: Int
}

/// The counts behind `StatusSummaryPayload` that the transition events carry: apps per state by the rule the
/// metrics use (`AppStateCounts`), and the budget and restart totals (`TransitionCounters`).
///
/// Threading: loop thread (the transition observer and the request); not thread-safe.
struct StatusSummaryCounts: Hashable, Sendable {
    private(set) var states = AppStateCounts()
    private(set) var totals = TransitionCounters()
    /// How many of the scheduler's registered apps (registration order) are counted in `states`.
    private(set) var registrationsSeen = 0

    /// Counts `apps` apps per state as `count(in:)` gives them: the registered apps, read in the same loop turn as
    /// the observer that feeds `record` was added.
    init(apps: Int, count: (AppState) -> Int) {
        for state in AppState.allCases { self.states.add(state, count: count(state)) }
        self.registrationsSeen = apps
    }

    /// The scheduler has `count` apps registered: those beyond `registrationsSeen` are counted in `notRunning`,
    /// where registration puts them (any later state came with a transition event, counted by `record`).
    mutating func registered(count: Int) {
        while self.registrationsSeen < count {
            self.states.add(.notRunning)
            self.registrationsSeen += 1
        }
    }

    /// Counts one transition. O(1).
    mutating func record(_ event: TransitionEvent) {
        self.states.move(from: event.from, to: event.to)
        self.totals += TransitionCounters(event)
    }

    /// The summary, with the counts the scheduler keeps itself (`tally`).
    func payload(_ tally: SchedulerTally) -> StatusSummaryPayload {
        var counts = self
        counts.registered(count: tally.apps)
        let inState = Dictionary(
            uniqueKeysWithValues: AppState.allCases.map { ($0.rawValue, counts.states.count(in: $0)) }
        )
        return StatusSummaryPayload(
            apps: tally.apps,
            inState: inState,
            running: tally.apps - counts.states.count(in: .notRunning),
            tasks: tally.outstandingTasks,
            crashLooping: tally.crashLooping,
            restarts: counts.totals.restarts,
            budgetExpirations: counts.totals.expirations,
            budgetOverruns: counts.totals.overruns
        )
    }
}
