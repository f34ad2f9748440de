@_spi(Processes) import RunwayCore

/// Every process app's captured output: for each app the ring of its current (or last) run and of the run before
/// (`runway logs --previous`), its output files, and the observers that follow new lines (`runway logs -f`).
///
/// A run is one child (`ChildProcess`, by identity): `runStarted` makes the current ring the previous one. A
/// line from a child that is no longer the current one (a grandchild kept the pipe open) goes to the previous
/// ring when that child's run is the previous one, else only to the files and the observers.
///
/// Threading: loop thread only (the supervisor's callbacks and `RunwayScheduler`'s hops); not thread-safe.
/// Time: each line is stamped with the wall clock (`WallTime.now()`) when it is appended.
package final class AppLogStore {
    struct Logs {
        var current: AppLogRing
        var previous: AppLogRing?
        var currentRun: ObjectIdentifier?
        var previousRun: ObjectIdentifier?
        var stdoutFile: AppLogFile?
        var stderrFile: AppLogFile?
    }

    let lineLimit: Int
    let byteLimit: Int
    /// Called with each problem of an output file (the supervisor logs it).
    let problem: (AppID, String) -> Void
    /// Called for each line that has an output file but was not written to it (the file could not be opened, a
    /// write failed, or the file is at its limit with rotation blocked); the line is still in the ring.
    package var lineRefused: (AppID, AppLogStream) -> Void = { _, _ in }
    private var logs: [AppID: Logs] = [:]
    private var observers: [(AppID, AppLogLine) -> Void] = []
    private var formatter = WallTimeFormatter()

    init(lineLimit: Int, byteLimit: Int, problem: @escaping (AppID, String) -> Void) {
        self.lineLimit = lineLimit
        self.byteLimit = byteLimit
        self.problem = problem
    }

    /// Registers an app with its output files (opened at each run's start).
    func register(_ app: AppID, files: ProcessOutputFiles) {
        var entry = Logs(current: AppLogRing(lineLimit: self.lineLimit, byteLimit: self.byteLimit))
        let open = { (path: String) -> AppLogFile in
            let file = AppLogFile(path: path, sizeLimit: files.fileSizeLimit, count: files.fileCount)
            file.problem = { [unowned self] text in self.problem(app, text) }
            return file
        }
        entry.stdoutFile = files.standardOutPath.map(open)
        if let path = files.standardErrorPath {
            entry.stderrFile = path == files.standardOutPath ? entry.stdoutFile : open(path)
        }
        self.logs[app] = entry
    }

    /// True when `app` is registered here (a process app).
    func contains(_ app: AppID) -> Bool { self.logs[app] != nil }

    /// A new run of `app` started: its ring becomes the previous one, its files are reopened.
    func runStarted(_ app: AppID, run: ObjectIdentifier) {
        guard var entry = self.logs[app] else { return }
        if entry.currentRun != nil {
            entry.previous = entry.current
            entry.previousRun = entry.currentRun
            entry.current = AppLogRing(lineLimit: self.lineLimit, byteLimit: self.byteLimit)
        }
        entry.currentRun = run
        entry.stdoutFile?.reopen()
        if entry.stderrFile !== entry.stdoutFile { entry.stderrFile?.reopen() }
        self.logs[app] = entry
    }

    /// Stamps and keeps one line of `app`'s output from the child `run`, appends it to the stream's file and
    /// hands it to the observers.
    func append(_ text: String, stream: AppLogStream, app: AppID, run: ObjectIdentifier) {
        // Only what is needed is read out of the entry, and the ring is appended to in place: a copy of the entry
        // held across the append would make it copy the ring's storage for every line.
        guard
            let (currentRun, previousRun, file) = self.logs[app].map({ entry in
                (entry.currentRun, entry.previousRun, stream == .stdout ? entry.stdoutFile : entry.stderrFile)
            })
        else { return }
        let line = AppLogLine(time: WallTime.now(), stream: stream, text: text)
        if run == currentRun {
            self.logs[app]!.current.append(line)
        } else if run == previousRun {
            self.logs[app]!.previous?.append(line)
        }
        if let file, !file.append("\(self.formatter.iso8601(line.time)) \(stream.rawValue) \(text)") {
            self.lineRefused(app, stream)
        }
        for observer in self.observers { observer(app, line) }
    }

    /// The current (or last) run's ring, or the previous run's (`previous`); nil for an app not registered here
    /// or, with `previous`, when it has not run twice.
    package func ring(of app: AppID, previous: Bool) -> AppLogRing? {
        guard let entry = self.logs[app] else { return nil }
        return previous ? entry.previous : entry.current
    }

    /// The last `count` lines of `app`'s current (or last) run, formatted as `runway logs` prints them
    /// (`2026-11-23T12:10:41.123Z stderr text`), oldest first; empty for an app not registered here.
    package func lastLines(of app: AppID, count: Int) -> [String] {
        self.logs[app]?.current.last(count).map(\.formatted) ?? []
    }

    /// Calls `observer` for every line appended from now on, on the loop thread.
    package func observe(_ observer: @escaping (AppID, AppLogLine) -> Void) {
        self.observers.append(observer)
    }

    /// Closes the files and drops the observers (the supervisor is closing).
    func close() {
        for entry in self.logs.values {
            entry.stdoutFile?.close()
            entry.stderrFile?.close()
        }
        self.observers = []
    }
}
