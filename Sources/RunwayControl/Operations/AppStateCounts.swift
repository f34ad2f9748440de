@_spi(Driver) @_spi(Processes) import RunwayCore

/// Apps per state, kept by the transition events: the counting rule that `GET /metrics` (`AppMetricsTable`,
/// `runway_apps_in_state`) and `status --summary` (`StatusSummaryCounts`) share. Pure value; O(1) per event.
struct AppStateCounts: Hashable, Sendable {
    /// Apps in each state, by `AppState.allCases` position.
    private var inState = [Int](repeating: 0, count: AppState.allCases.count)

    /// `count` more apps (one by default), in `state`.
    mutating func add(_ state: AppState, count: Int = 1) {
        self.inState[Self.position(state)] += count
    }

    /// One app moved from `before` to `after`.
    mutating func move(from before: AppState, to after: AppState) {
        guard before != after else { return }
        self.inState[Self.position(before)] -= 1
        self.inState[Self.position(after)] += 1
    }

    /// Apps in `state` now.
    func count(in state: AppState) -> Int { self.inState[Self.position(state)] }

    /// The index of `state` in `AppState.allCases`.
    static func position(_ state: AppState) -> Int {
        switch state {
        case .notRunning: 0
        case .inactive: 1
        case .active: 2
        case .background: 3
        case .suspended: 4
        }
    }
}

/// What one transition adds to an app's budget and restart counters (`runway_app_*_total`, and the totals of
/// `status --summary`).
struct TransitionCounters: Hashable, Sendable {
    /// Budget deadlines reached: the app was suspended or exited at it (B6), or terminated for an overrun.
    var expirations = 0
    /// Budget deadlines that ended in a `budgetOverrun` termination.
    var overruns = 0
    /// KeepAlive restarts started.
    var restarts = 0

    init() {}

    /// The counts `event` adds.
    init(_ event: TransitionEvent) {
        // A budget deadline ends in budgetExpired (suspended or exited, B6) or in a budgetOverrun termination.
        switch event.cause {
        case .budgetExpired:
            self.expirations = 1
        case .terminated(.budgetOverrun):
            self.expirations = 1
            self.overruns = 1
        case .restart where event.from == .notRunning:
            // A restart is a launch: two transitions with this cause (L9), counted once, at its first.
            self.restarts = 1
        default:
            break
        }
    }

    static func += (total: inout TransitionCounters, added: TransitionCounters) {
        total.expirations += added.expirations
        total.overruns += added.overruns
        total.restarts += added.restarts
    }
}
