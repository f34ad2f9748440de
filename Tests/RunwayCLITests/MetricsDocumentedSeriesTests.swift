import Foundation
import RunwayBuildInfo
import Testing

/// The series Docs/Operations.md promises, on a real `runway run` scraped over real HTTP: every metric of its table
/// present from the first scrape (counters at zero, with each label value the table names), so that `increase()`
/// and `rate()` see a first event; the table is read from the document, so the two cannot drift.
@Suite(.serialized) struct MetricsDocumentedSeriesTests {
    static let embedded = "com.example.alpha"
    static let process = "com.example.swift"

    /// A row of the "Every metric" table: the metric, its labels and its meaning.
    struct Row {
        var name: String
        var labels: [String]
        var meaning: String
    }

    /// The rows of Docs/Operations.md's table of every metric (the one headed `| metric | type | labels |`).
    static func documentedRows() throws -> [Row] {
        let url = RunwayBinary.repositoryRoot().appendingPathComponent("Docs/Operations.md")
        let lines = try String(contentsOf: url, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        let header = try #require(lines.firstIndex { $0.hasPrefix("| metric | type | labels | meaning |") })
        var rows: [Row] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5 else { continue }
            rows.append(
                Row(name: Self.backticked(cells[1]).first ?? "", labels: Self.backticked(cells[3]), meaning: cells[4])
            )
        }
        return rows
    }

    /// The words between backticks in `text`, in order.
    static func backticked(_ text: some StringProtocol) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    /// The values a row lists for `label`: the backticked words after "`label` is one of", up to the end of that
    /// clause (`;` or `.`).
    static func documentedValues(of label: String, in meaning: String) -> [String] {
        guard let start = meaning.range(of: "`\(label)` is one of ") else { return [] }
        let clause = meaning[start.upperBound...].prefix { $0 != ";" && $0 != "." }
        return Self.backticked(clause)
    }

    @Test func everyDocumentedSeriesIsPresentFromTheFirstScrapeForBothAppKinds() throws {
        let daemon = try DaemonProcess(
            apps: [
                Self.embedded: "",
                Self.process: "<key>ProgramArguments</key><array><string>runway-sample-app</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer>",
            ],
            settings: "<key>MetricsPerApp</key><string>all</string>",
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let text = try httpGet(port: try metricsPort(daemon)).body
        let rows = try Self.documentedRows()
        #expect(rows.count >= 25, "the table was not found whole: \(rows.map(\.name))")
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        // A series that appears only with what it counts says so in its row.
        for row in rows where !row.meaning.contains("Present from the first") {
            #expect(text.contains("# TYPE \(row.name) "), "\(row.name) has no # TYPE line\n\(text)")
            let present = samples.contains { line in
                line.hasPrefix(row.name) && [" ", "{", "_"].contains(line.dropFirst(row.name.count).prefix(1))
            }
            #expect(present, "\(row.name) has no sample at the first scrape\n\(text)")
            for label in row.labels {
                for value in Self.documentedValues(of: label, in: row.meaning) {
                    let zero = samples.contains { line in
                        line.hasPrefix(row.name + "{") && line.contains("\(label)=\"\(value)\"") && line.hasSuffix(" 0")
                    }
                    #expect(zero, "\(row.name){\(label)=\"\(value)\"} is not at zero\n\(text)")
                }
            }
        }
        // The per-app series of both kinds (`all`: the containment of the process app only).
        for app in [Self.embedded, Self.process] {
            #expect(sample(text, "runway_app_state{app=\"\(app)\",state=\"notRunning\"}") == 1, "\(text)")
            #expect(sample(text, "runway_app_budget_overruns_total{app=\"\(app)\"}") == 0, "\(text)")
        }
        #expect(sample(text, "runway_app_contained{app=\"\(Self.process)\"}") != nil, "\(text)")
        #expect(sample(text, "runway_expiration_handlers_called_total") == 0, "\(text)")
        #expect(sample(text, "runway_suspensions_unconfirmed_total") == 0, "\(text)")
        let build = RunwayBuildInfo.current
        let info = "runway_build_info{version=\"\(build.version)\",commit=\"\(build.commit)\",build_type=\"debug\"}"
        #expect(sample(text, info) == 1, "\(text)")
        #expect((sample(text, "process_resident_memory_bytes") ?? 0) > 0, "\(text)")
        #expect((sample(text, "process_open_fds") ?? 0) > 0, "\(text)")
        try MetricsEndpointTests.promtoolCheck(text)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func B4_anOverrunningProcessAppWarnedAndKilledCountsItsExpirationHandler() throws {
        // The sample app begins a task in didEnterBackground and never ends it: warned at 0.5 s, killed at 1 s.
        let daemon = try DaemonProcess(
            apps: [
                Self.process: "<key>ProgramArguments</key><array><string>runway-sample-app</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer><key>EnvironmentVariables</key><dict>"
                    + "<key>SAMPLE_TASK_SECONDS</key><string>never</string></dict>"
            ],
            settings: "<key>BackgroundTimeBudget</key><real>1</real><key>ExpirationWarningLead</key><real>0.5</real>",
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        #expect(try daemon.cli("launch", Self.process).status == 0)
        try waitUntil("the app active\n\(daemon.output)") { try daemon.status(Self.process).state == "active" }
        #expect(try daemon.cli("home", Self.process).status == 0)
        try waitUntil("the app killed for its overrun\n\(daemon.output)") {
            try daemon.status(Self.process).state == "notRunning"
        }
        let text = try httpGet(port: port).body
        #expect(sample(text, "runway_terminations_total{reason=\"budgetOverrun\"}") == 1, "\(text)")
        #expect(sample(text, "runway_expiration_handlers_called_total") == 1, "\(text)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }
}
