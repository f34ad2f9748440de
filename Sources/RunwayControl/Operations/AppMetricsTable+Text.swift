import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore

extension AppMetricsTable {
    /// Appends the per-app families and their aggregates to `body`, in the text format (version 0.0.4), each with
    /// its `# HELP` and `# TYPE` lines. O(apps): one pass over the rows per family, no lookup per row except the
    /// `details` of the `all` level.
    ///
    /// - Parameters:
    ///   - body: The exposition so far (the registry's families); none of these names may be in it.
    ///   - perApp: `state`: the state series and the aggregates; `all`: the six other per-app families too.
    ///   - details: What the loop reported of each app at this scrape (`all` only); an app missing from it (one
    ///     registered since) shows 0 tasks, not crash-looping, and no containment.
    func render(into body: inout [UInt8], perApp: MetricsPerApp, details: [AppID: Detail] = [:]) {
        body.family(DaemonMetricNames.appState, "gauge")
        let suffixes = AppState.allCases.map { Array(",state=\"\($0.rawValue)\"} 1\n".utf8) }
        for row in self.rows {
            body.append(contentsOf: DaemonMetricNames.appState.utf8)
            body.append(UInt8(ascii: "{"))
            body.append(contentsOf: row.label)
            body.append(contentsOf: suffixes[Self.position(row.state)])
        }
        body.family(DaemonMetricNames.apps, "gauge")
        body.sample(DaemonMetricNames.apps, labels: [], self.rows.count)
        body.family(DaemonMetricNames.appsInState, "gauge")
        for state in AppState.allCases {
            body.sample(
                DaemonMetricNames.appsInState,
                labels: Array("state=\"\(state.rawValue)\"".utf8),
                self.count(in: state)
            )
        }
        guard perApp == .all else { return }
        body.perApp(DaemonMetricNames.appTasks, "gauge", self.rows) { details[$0.id]?.tasks ?? 0 }
        body.perApp(DaemonMetricNames.appCrashLooping, "gauge", self.rows) {
            details[$0.id]?.crashLooping == true ? 1 : 0
        }
        body.family(DaemonMetricNames.appContained, "gauge")
        for row in self.rows {
            guard let contained = details[row.id]?.contained else { continue }
            body.sample(DaemonMetricNames.appContained, labels: row.label, contained ? 1 : 0)
        }
        body.perApp(DaemonMetricNames.appExpirations, "counter", self.rows) { $0.counters.expirations }
        body.perApp(DaemonMetricNames.appOverruns, "counter", self.rows) { $0.counters.overruns }
        body.perApp(DaemonMetricNames.appRestarts, "counter", self.rows) { $0.counters.restarts }
    }
}

extension [UInt8] {
    /// `# HELP` (from `DaemonMetricNames.help`, which has no backslash or line feed to escape) and `# TYPE`.
    fileprivate mutating func family(_ name: String, _ type: String) {
        self.append(contentsOf: "# HELP \(name) \(DaemonMetricNames.help[name] ?? name)\n# TYPE \(name) \(type)\n".utf8)
    }

    /// `name{labels} value`, or `name value` without labels.
    fileprivate mutating func sample(_ name: String, labels: [UInt8], _ value: Int) {
        self.append(contentsOf: name.utf8)
        if !labels.isEmpty {
            self.append(UInt8(ascii: "{"))
            self.append(contentsOf: labels)
            self.append(UInt8(ascii: "}"))
        }
        self.append(UInt8(ascii: " "))
        self.append(contentsOf: String(value).utf8)
        self.append(UInt8(ascii: "\n"))
    }

    /// A family with one series per row.
    fileprivate mutating func perApp(
        _ name: String,
        _ type: String,
        _ rows: [AppMetricsTable.Row],
        _ value: (AppMetricsTable.Row) -> Int
    ) {
        self.family(name, type)
        for row in rows { self.sample(name, labels: row.label, value(row)) }
    }
}
