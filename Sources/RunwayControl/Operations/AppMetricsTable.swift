@_spi(Driver) @_spi(Processes) import RunwayCore

/// The per-app part of `GET /metrics`: one row per registered app (its state and three counters), kept up to
/// date by the transition events, and the text of the series those rows make.
///
/// The registry of swift-prometheus keeps each label set as a metric object of its own, and registering one
/// copies the family it joins, so thousands of per-app series made the first scrape quadratic. These series are
/// therefore never registered: each row keeps its `app="..."` label already escaped, and a scrape writes the
/// lines from the rows, O(apps) with no lookup, hashing or allocation per app.
///
/// Series per app: `MetricsPerApp` `state`, one (`runway_app_state` of the state it is in, value 1); `all`,
/// seven (that, `runway_app_background_tasks`, `runway_app_crash_looping`, `runway_app_contained` for a
/// process app, and the three `_total` counters). `runway_apps` and the five `runway_apps_in_state` are
/// aggregates of the rows, present at every level.
///
/// A value type: the daemon keeps it under a lock, mutates it on the loop thread (events) and renders a copy on
/// the metrics server's thread (copy on write: taking the copy is O(1)).
struct AppMetricsTable: Sendable {
    /// One registered app.
    struct Row: Sendable {
        var id: AppID
        /// `app="com.example.sync"`, escaped for the exposition format.
        var label: [UInt8]
        var state: AppState
        /// Budget expirations, overruns and restarts so far (`TransitionCounters`).
        var counters = TransitionCounters()
    }

    /// What the loop reports of an app at a scrape at the `all` level: what no event carries.
    struct Detail: Sendable {
        var tasks: Int
        var crashLooping: Bool
        /// Nil for an embedded app.
        var contained: Bool?
    }

    private(set) var rows: [Row] = []
    private var index: [AppID: Int] = [:]
    /// Apps in each state (the rule `status --summary` counts by too).
    private var inState = AppStateCounts()
    /// How many of the scheduler's registered apps (registration order) have been offered to `add`.
    private(set) var registrationsSeen = 0

    /// Adds `app` in `state`, or sets the state of an app already there.
    mutating func add(_ app: AppID, state: AppState) {
        if let row = self.index[app] {
            self.move(row, to: state)
            return
        }
        self.index[app] = self.rows.count
        self.rows.append(Row(id: app, label: Self.label(app), state: state))
        self.inState.add(state)
    }

    /// Adds the apps the scheduler registered since the last call (`registrationsSeen` onwards), in
    /// `notRunning`: any other state would have come with a transition event, which adds the app itself.
    mutating func registered(_ apps: [AppID]) {
        self.registrationsSeen += apps.count
        for app in apps where self.index[app] == nil {
            self.add(app, state: .notRunning)
        }
    }

    /// Counts one transition: the app's state, and the budget and restart counters. Loop thread; O(1).
    mutating func record(_ event: TransitionEvent) {
        if self.index[event.app] == nil { self.add(event.app, state: event.from) }
        guard let row = self.index[event.app] else { return }
        self.move(row, to: event.to)
        self.rows[row].counters += TransitionCounters(event)
    }

    private mutating func move(_ row: Int, to state: AppState) {
        self.inState.move(from: self.rows[row].state, to: state)
        self.rows[row].state = state
    }

    /// Apps in `state` now.
    func count(in state: AppState) -> Int { self.inState.count(in: state) }

    /// The index of `state` in `AppState.allCases`.
    static func position(_ state: AppState) -> Int { AppStateCounts.position(state) }

    private static func label(_ app: AppID) -> [UInt8] {
        var label = Array("app=\"".utf8)
        label.appendEscapedLabelValue(app.bundleIdentifier)
        label.append(UInt8(ascii: "\""))
        return label
    }
}

extension [UInt8] {
    /// A label value escaped as the exposition format requires: backslash, double quote and line feed.
    mutating func appendEscapedLabelValue(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): self.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\""): self.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\n"): self.append(contentsOf: #"\n"#.utf8)
            default: self.append(byte)
            }
        }
    }
}
