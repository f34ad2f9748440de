import Foundation
@_spi(Processes) import Runway
@_spi(Processes) @_spi(Driver) import RunwayCore
import RunwayLocking

/// One run of an app in the history (`status APP`, `status --json`, Docs/ControlProtocol.md): from a transition
/// out of `notRunning` to the transition back into it. A plain value; times are wall-clock texts (`WallClock`).
package struct RunRecord: Codable, Hashable, Sendable {
    /// When the run began: ISO 8601, UTC, milliseconds.
    package var started: String
    /// When it ended; absent while the app still runs.
    package var ended: String?
    /// The termination reason (`exited(3)`, `budgetOverrun`, ...); absent while the app still runs.
    package var reason: String?
    /// The exit status, when the process exited.
    package var exitStatus: Int32?
    /// The signal, when the process was ended by one.
    package var signal: Int32?
    /// Restarts KeepAlive had made of the app when this run began (n for the run its n-th restart started).
    package var restarts: Int
    /// The last lines the app printed, oldest first; empty when no output source is connected.
    package var lastOutput: [String]
}

/// The last `limit` runs of every app, kept by observing transitions and saved to a JSON file after each run ends
/// (RunHistoryFile.swift), so that a restarted daemon shows them.
///
/// Thread-safe: the state is behind a mutex. `transitioned` is called on the loop thread; files are written by a
/// `RunHistoryWriter`, never on the loop thread, the newest snapshot only (at most one waits, however fast apps exit).
package final class RunHistory: Sendable {
    /// The last lines of an app's output, for a run that just ended (the per-app log ring, when connected).
    package typealias OutputSource = @Sendable (AppID) -> [String]

    /// Lines of output kept per run, and bytes per line: bounds the file with `limit` (Docs/Configuration.md).
    package static let outputLineLimit = 20
    package static let outputLineByteLimit = 1_024

    private struct State {
        var runs: [String: [RunRecord]] = [:]
        var restarts: [String: Int] = [:]
        var outputSource: OutputSource?
        /// Copies of `runs` handed to the writer (`snapshot()`).
        var snapshots = 0
    }

    let limit: Int
    let file: RunHistoryFile?
    let clock: WallClock
    private let state: RunwayLock<State>
    /// Saves the newest snapshot to `file`; nil without a file.
    let writer: RunHistoryWriter?

    /// - Parameters:
    ///   - limit: Runs kept per app (`RunHistoryLimit`).
    ///   - file: Where the history is kept; nil keeps it in memory only.
    ///   - runs: What a previous daemon saved (`RunHistoryFile.read`).
    ///   - report: Told why a write failed, once per new problem (the daemon prints it as a warning).
    init(
        limit: Int,
        file: RunHistoryFile?,
        clock: WallClock,
        runs: [String: [RunRecord]] = [:],
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.limit = limit
        self.file = file
        self.clock = clock
        self.state = RunwayLock(State(runs: runs.mapValues { Array($0.suffix(limit)) }))
        self.writer = file.map { file in RunHistoryWriter(write: { file.write($0) }, report: report) }
    }

    /// Connects the source of `lastOutput` (the per-app log ring); nil disconnects it. May be called from any
    /// thread. The source is called on the loop thread once per run's end, with the app that ended, and must
    /// return quickly without blocking (the last lines it already holds); at most `outputLineLimit` lines are kept.
    package func setOutputSource(_ source: OutputSource?) {
        self.state.withLock { $0.outputSource = source }
    }

    /// The app's runs, oldest first, the current one (not ended) last.
    package func runs(of app: AppID) -> [RunRecord] {
        self.state.withLock { $0.runs[app.bundleIdentifier] ?? [] }
    }

    /// Why the last write failed, or nil.
    var writeProblem: String? { self.writer?.problem }

    /// A transition (loop thread): a run begins when the app leaves `notRunning` and ends when it returns there.
    func transitioned(_ event: TransitionEvent) {
        let key = event.app.bundleIdentifier
        if event.from == .notRunning {
            let wall = self.clock.text(at: event.at)
            self.state.withLock { state in
                if case .restart(let attempt) = event.cause { state.restarts[key] = attempt }
                let record = RunRecord(
                    started: wall,
                    restarts: state.restarts[key] ?? 0,
                    lastOutput: []
                )
                state.runs[key, default: []].append(record)
                state.runs[key] = Array(state.runs[key, default: []].suffix(self.limit))
            }
            return
        }
        // Every other transition (background, suspended, ...) changes no run: no clock reading, no lock.
        guard event.to == .notRunning, case .terminated(let reason) = event.cause else { return }
        let wall = self.clock.text(at: event.at)
        let source = self.state.withLock { $0.outputSource }
        let output = (source?(event.app) ?? []).suffix(Self.outputLineLimit).map(Self.cut)
        self.state.withLock { state in
            var runs = state.runs[key] ?? []
            if runs.last?.ended != nil || runs.isEmpty {
                runs.append(RunRecord(started: wall, restarts: state.restarts[key] ?? 0, lastOutput: []))
            }
            var record = runs[runs.count - 1]
            record.ended = wall
            // Cut like the output lines, so that one long reason (a `spawnFailed` naming a long PATH) cannot grow
            // a run past `RunHistoryFile.runByteBound`; `lastTermination` in `status` has it whole.
            record.reason = Self.cut(reason.description)
            switch event.exit {
            case .exited(let status): record.exitStatus = status
            case .signaled(let signal): record.signal = signal
            case nil: break
            }
            record.lastOutput = Array(output)
            runs[runs.count - 1] = record
            state.runs[key] = Array(runs.suffix(self.limit))
        }
        // The snapshot is taken when the write starts, not here: copying the history per exit made a stop with N
        // running apps cost O(N²) on the loop thread (each exit copied every app's runs the waiting write shared).
        self.writer?.submit(taking: { self.snapshot() })
    }

    /// Every app's runs, for the writer; counted in `snapshotCount`.
    private func snapshot() -> [String: [RunRecord]] {
        self.state.withLock { state in
            state.snapshots += 1
            return state.runs
        }
    }

    /// How many snapshots of the history were taken for the writer: at most one per write, whatever the exits.
    var snapshotCount: Int { self.state.withLock { $0.snapshots } }

    /// Waits for the write in progress and the newest snapshot's (at the daemon's stop): at most two writes.
    func flush() {
        self.writer?.flush()
    }

    /// A line cut to `outputLineByteLimit` bytes of UTF-8 (on a character boundary).
    static func cut(_ line: String) -> String {
        guard line.utf8.count > Self.outputLineByteLimit else { return line }
        var result = ""
        for character in line {
            guard result.utf8.count + character.utf8.count <= Self.outputLineByteLimit else { break }
            result.append(character)
        }
        return result
    }
}
