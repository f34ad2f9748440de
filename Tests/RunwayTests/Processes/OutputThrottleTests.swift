import Foundation
import Logging
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// A5, B9: a child's output costs the loop a bounded slice of each turn
/// (`ProcessOptions.outputBytesPerTurn`, `outputLinesPerTurn`), so that a child flooding stdout neither holds the
/// loop nor loses its output, and other apps' deadlines are still served while it floods.
@Suite("Process apps: output read in bounded slices per loop turn", .serialized)
struct OutputThrottleTests {
    @Test(
        """
        A5/B9: a child flooding stdout is paused at the turn's budget and resumed, loses no line, and another \
        app's budget deadline is served while it floods
        """
    )
    func A5_outputFloodIsReadInBoundedSlices() async throws {
        let count = 60_000
        let flooder: AppID = "com.test.flood"
        let neighbour: AppID = "com.test.flood.neighbour"
        let output = FloodRecorder(app: flooder, keep: count)
        let scheduler = try RunwayScheduler(
            settings: ProtocolApps.settings,
            processOptions: ProcessTestSupport.options(.auto),
            logger: Logger(label: "runway.test") { _ in FloodLogHandler(recorder: output) }
        )
        let watcher = TransitionWatcher(scheduler)
        // Numbered lines first (to check that none is lost), then `yes` for ever.
        try scheduler.register(process: ProcessTestSupport.shell(flooder, "seq 1 \(count); exec yes"))
        try scheduler.register(process: ProcessTestSupport.shell(neighbour, ProcessTestSupport.idleLoop))
        try scheduler.perform(.launch, on: neighbour)
        #expect(await watcher.first { $0.app == neighbour && $0.to == .active } != nil)
        #expect(scheduler.beginBackgroundTask(withName: "never-ends", for: neighbour) != .invalid)
        try scheduler.perform(.launch, on: flooder)
        #expect(await eventually { output.lineCount > 0 })
        try scheduler.perform(.home, on: neighbour)

        // The neighbour's budget runs out while the flood runs: the deadline is served (how late is measured by
        // OutputFloodMeasurement, not asserted here), and the flooder's output is still read after it.
        let killed = await watcher.first(timeout: .seconds(30)) { $0.app == neighbour && $0.to == .notRunning }
        #expect(killed?.cause == .terminated(.budgetOverrun))
        let linesAtKill = output.lineCount
        #expect(await eventually { output.lineCount > linesAtKill + 1_000 })
        #expect(scheduler.status().first { $0.app == flooder }?.state == .active)

        // Paused at the budget (reported once a second at most) and resumed: lines keep coming after the report.
        let notice = try #require(output.firstNotice)
        #expect(notice.contains("stream=stdout"))
        #expect(notice.contains("outputLinesPerTurn=64"))
        #expect(output.lineCount > output.linesBeforeFirstNotice)
        // Nothing lost, in order.
        #expect(await eventually { output.kept.count == count })
        #expect(output.kept == (1...count).map(String.init))
        await scheduler.shutdown()
    }
}

/// What a flooding app's output did, recorded by `FloodLogHandler` without keeping every line.
final class FloodRecorder: Sendable {
    struct State {
        var lines = 0
        var kept: [String] = []
        var firstNotice: String?
        var linesBeforeFirstNotice = 0
    }

    let app: AppID
    let keep: Int
    private let state = RunwayLock(State())

    init(app: AppID, keep: Int) {
        self.app = app
        self.keep = keep
    }

    var lineCount: Int { self.state.withLock { $0.lines } }
    var kept: [String] { self.state.withLock { $0.kept } }
    var firstNotice: String? { self.state.withLock { $0.firstNotice } }
    var linesBeforeFirstNotice: Int { self.state.withLock { $0.linesBeforeFirstNotice } }

    func record(message: String, metadata: Logger.Metadata) {
        guard metadata["app"].map({ "\($0)" }) == "\(self.app)" else { return }
        self.state.withLock { state in
            if message == "app output", metadata["stream"].map({ "\($0)" }) == "stdout" {
                state.lines += 1
                if state.kept.count < self.keep, let line = metadata["line"] { state.kept.append("\(line)") }
            } else if message.hasPrefix("app output throttled"), state.firstNotice == nil {
                let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                state.firstNotice = fields.joined(separator: " ")
                state.linesBeforeFirstNotice = state.lines
            }
        }
    }
}

/// A swift-log handler that feeds a `FloodRecorder`.
struct FloodLogHandler: LogHandler {
    let recorder: FloodRecorder
    var metadata: Logger.Metadata = [:]
    /// Debug: the level of the daemon's `app output` lines.
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.recorder.record(message: "\(event.message)", metadata: event.metadata ?? [:])
    }
}
