import Foundation
import Logging
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking
@_spi(Processes) import RunwayProcesses
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Not a test: measures how late budget deadlines are served while a process app floods stdout (`yes`), with the
/// output bound off (`outputBytesPerTurn` and `outputLinesPerTurn` at `Int.max`, as with no bound at all) and
/// at its defaults, beside a run without a flood, in one run. Run with
/// `RUNWAY_MEASURE=1 swift test --filter OutputFloodMeasurement`.
///
/// Each run: a scheduler whose logger formats every record as swift-log's stream handler does and writes it to
/// /dev/null (the daemon's cost per output line); the flooding app, launched 300 ms before; then 100 embedded apps,
/// each holding a task it never ends, sent Home with budgets from 1 to 3 s (20 ms apart), terminated for overrun
/// (B6) at their deadlines. Lateness = the kill's `TransitionEvent.at` (the loop's clock reading for that wake-up)
/// − (background entry `at` + budget). CPU = this process's user + system time over the run's wall time.
@Suite("Output flood measurement")
struct OutputFloodMeasurement {
    static let apps = 100

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RUNWAY_MEASURE"] != nil))
    func outputFloodLateness() async throws {
        let unbounded = ProcessOptions(outputBytesPerTurn: .max, outputLinesPerTurn: .max)
        // RUNWAY_MEASURE_LINES=N measures the bound at N lines per turn instead of the default.
        let environment = ProcessInfo.processInfo.environment
        let lines = environment["RUNWAY_MEASURE_LINES"].flatMap { Int($0) } ?? ProcessOptions().outputLinesPerTurn
        let bounded = ProcessOptions(outputLinesPerTurn: lines)
        let bound = "bound at \(bounded.outputBytesPerTurn / 1_024) KiB, \(lines) lines"
        // The daemon logs app output only at --log-level debug; by default (notice) the lines are framed, kept in
        // the app's log ring and dropped by the logger. Without a bound and at debug, one turn logs tens of
        // thousands of lines (seconds in a debug build), so that run is left out. RUNWAY_MEASURE_RUNS=0,2 runs
        // only those.
        let runs: [(String, Logger.Level, ProcessOptions?)] = [
            ("notice: no flood", .notice, nil),
            ("notice: yes, no bound", .notice, unbounded),
            ("notice: yes, \(bound)", .notice, bounded),
            ("debug: no flood", .debug, nil),
            ("debug: yes, \(bound)", .debug, bounded),
        ]
        let only = environment["RUNWAY_MEASURE_RUNS"].map { Set($0.split(separator: ",")) }
        for (index, (name, level, options)) in runs.enumerated() where only?.contains(Substring("\(index)")) ?? true {
            let (lateness, cpu, logged) = try await Self.measure(flooding: options, level: level)
            #expect(lateness.count == Self.apps, "\(name): \(lateness.count) kills of \(Self.apps)")
            #expect(lateness.allSatisfy { $0 >= 0 }, "\(name): a deadline was served early")
            let sorted = lateness.sorted()
            func milliseconds(_ quantile: Double) -> String {
                guard !sorted.isEmpty else { return "-" }
                let index = min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.down)))
                return String(format: "%.2f", Double(sorted[index]) / 1e6)
            }
            print(
                "\(name): kill lateness p50=\(milliseconds(0.5)) ms p90=\(milliseconds(0.9)) ms "
                    + "max=\(milliseconds(1)) ms over \(sorted.count) deadlines; CPU \(Int(cpu * 100)) %; "
                    + "\(logged) output lines logged"
            )
        }
    }

    /// One run; `flooding` nil runs no flooding app.
    static func measure(flooding options: ProcessOptions?, level: Logger.Level) async throws -> ([Int64], Double, Int) {
        let lines = LineCounter()
        let scheduler = try RunwayScheduler(
            settings: SchedulerSettings(
                backgroundTimeBudget: .seconds(30),
                expirationWarningLead: .zero,
                backgroundEntryGrace: .seconds(30),
                terminationGrace: .seconds(1),
                overrunPolicy: .terminate
            ),
            processOptions: options ?? ProcessOptions(),
            logger: {
                var logger = Logger(label: "runway") { label in DevNullLogHandler(label: label, lines: lines) }
                logger.logLevel = level
                return logger
            }()
        )
        let budgets = (0..<Self.apps).map { TimeSpan.milliseconds(1_000 + 20 * Int64($0)) }
        let index = Dictionary(uniqueKeysWithValues: (0..<Self.apps).map { (AppID("measure.app.\($0)"), $0) })
        let observed = RunwayLock((entered: [Int: Instant](), killed: [Int: Instant]()))
        scheduler.observeTransitions { event in
            guard let app = index[event.app] else { return }
            observed.withLock {
                if event.to == .background { $0.entered[app] = event.at }
                if event.to == .notRunning { $0.killed[app] = event.at }
            }
        }
        let start = (ContinuousClock.now, Self.cpuTime())
        if options != nil {
            try scheduler.register(
                process: AppDescriptor(id: "measure.yes", kind: .process(ProcessSpec(arguments: ["/usr/bin/yes"])))
            )
            try scheduler.perform(.launch, on: "measure.yes")
            try await Task.sleep(for: .milliseconds(300))
        }
        var applications: [RunwayApplication] = []
        for (app, position) in index.sorted(by: { $0.value < $1.value }) {
            let descriptor = AppDescriptor(id: app, backgroundTimeBudget: budgets[position])
            applications.append(try scheduler.register(descriptor, delegate: QuietDelegate()))
            try scheduler.perform(.launch, on: app)
        }
        for application in applications {
            #expect(application.beginBackgroundTask(withName: "never-ends") != .invalid)
            try scheduler.perform(.home, on: application.id)
        }
        _ = await eventually(timeout: .seconds(30)) { observed.withLock { $0.killed.count } == Self.apps }
        let wall = ContinuousClock.now - start.0
        let cpu =
            Double(Self.cpuTime() - start.1) / 1e9
            / (Double(wall.components.attoseconds) / 1e18
                + Double(wall.components.seconds))
        await scheduler.shutdown()
        let result = observed.withLock { observed in
            observed.killed.compactMap { position, killed in
                observed.entered[position].map { (killed - ($0 + budgets[position])).nanoseconds }
            }
        }
        return (result, cpu, lines.count.load(ordering: .relaxed))
    }

    /// This process's user + system CPU time in nanoseconds.
    static func cpuTime() -> Int64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        let microseconds = Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return seconds * 1_000_000_000 + microseconds * 1_000
    }
}

final class QuietDelegate: RunwayAppDelegate {}

/// How many output lines were logged.
final class LineCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// Formats each record as swift-log's `StreamLogHandler` does (timestamp, level, label, metadata, message) and
/// writes it to /dev/null, so that logging costs what the daemon's does, without the output.
struct DevNullLogHandler: LogHandler {
    static let sink = open("/dev/null", O_WRONLY)
    let label: String
    let lines: LineCounter
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if "\(event.message)" == "app output" { self.lines.count.add(1, ordering: .relaxed) }
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var stamp = [UInt8](repeating: 0, count: 64)
        let length = stamp.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                strftime($0.baseAddress, $0.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
            }
        }
        let timestamp = String(decoding: stamp[..<length], as: UTF8.self)
        let text = "\(timestamp) \(event.level) \(self.label): \(fields) \(event.message)\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(Self.sink, $0.baseAddress, $0.count - 1) }
    }
}
