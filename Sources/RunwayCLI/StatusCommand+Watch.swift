import ArgumentParser
import Foundation
import RunwayControl
import RunwayLocking

extension StatusCommand {
    /// Apps that changed since a redraw fetched them, more than this many: fetch every page again rather than one
    /// request per app.
    static let watchRefetchThreshold = 64

    /// `status --watch`: the status once, then kept up to date by the daemon's event stream until interrupted or
    /// the daemon stops.
    ///
    /// A second connection subscribes to the events (`events`) before the first status is asked for; each
    /// `interval` the apps named by the transitions since are asked for again, one `status APP` request each (every
    /// page again when more than `watchRefetchThreshold` changed), and the time columns of the others are advanced
    /// by the time elapsed. So a quiet fleet costs the daemon nothing per redraw, and a busy one the apps that
    /// moved. The table is redrawn in place on a terminal (else printed frame after frame, a blank line between),
    /// under a header line with the wall-clock time; with `--json` each redraw is one compact line (JSON lines).
    /// When the daemon closes the connection (it stopped) this prints
    /// `runway status: the daemon stopped (PATH closed the connection)`, on standard output (standard error with
    /// `--json`, so that standard output stays JSON lines), and returns: exit 0. Blocks the calling thread.
    func watchUntilStopped(_ request: ControlRequest) throws {
        let client = try self.connection.connect()
        let path = try self.connection.socketPath
        let changes = WatchChanges()
        try changes.follow(path: path)
        let terminal = isatty(STDOUT_FILENO) == 1
        var reply = try self.pages(request, on: client)
        var fetchedAt = ContinuousClock.now
        while true {
            let aged = Self.aged(reply, by: ContinuousClock.now - fetchedAt)
            if self.json {
                writeOut(self.jsonText(aged) + "\n")
            } else {
                let text = Self.watchHeader(interval: self.interval, now: Date()) + "\n" + StatusTable.render(aged)
                if terminal {
                    // Cursor home, each line cleared to its end, then the rest of the screen cleared: redrawn in
                    // place, without flicker and without pushing copies into the terminal's scrollback.
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    writeOut("\u{1B}[H" + lines.map { $0 + "\u{1B}[K\n" }.joined() + "\u{1B}[J")
                } else {
                    writeOut(text + "\n")
                }
            }
            Thread.sleep(forTimeInterval: self.interval)
            let (apps, many, closed) = changes.take()
            if closed {
                let line = "runway status: the daemon stopped (\(path) closed the connection)"
                if self.json { printError(line) } else { writeOut(line + "\n") }
                return
            }
            guard many || !apps.isEmpty else { continue }
            // The rows not asked for again keep their values as of `now`: they are aged to it before the others are
            // replaced, so that every row of the new reply is as of `now`.
            let now = ContinuousClock.now
            reply =
                many || apps.count > Self.watchRefetchThreshold || request.limit != nil
                ? try self.pages(request, on: client)
                : try self.refreshed(Self.aged(reply, by: now - fetchedAt), apps: apps, request: request, on: client)
            fetchedAt = now
        }
    }

    /// `reply` with the rows of `apps` asked for again, one request each: rows of apps that no longer match are
    /// dropped, apps that now match are added at the end.
    private func refreshed(
        _ reply: ControlReply,
        apps: Set<String>,
        request: ControlRequest,
        on client: ControlClient
    ) throws -> ControlReply {
        var updated = reply
        for app in apps.sorted() {
            var one = request
            one.app = app
            one.limit = nil
            one.after = nil
            let page = try send(one, on: client)
            let row = page.apps?.first
            var rows = updated.apps ?? []
            let matchedBefore = rows.contains { $0.app == app }
            if let index = rows.firstIndex(where: { $0.app == app }) {
                if let row { rows[index] = row } else { rows.remove(at: index) }
            } else if let row {
                rows.append(row)
            }
            updated.apps = rows
            updated.matched = (updated.matched ?? 0) + (row != nil ? 1 : 0) - (matchedBefore ? 1 : 0)
            updated.daemon = page.daemon ?? updated.daemon
        }
        return updated
    }

    /// `reply` as it reads `elapsed` later: time in state and age grown, a running budget shrunk (not below 0).
    static func aged(_ reply: ControlReply, by elapsed: Duration) -> ControlReply {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var aged = reply
        aged.daemon?.uptimeSeconds += seconds
        aged.apps = reply.apps?.map { app in
            var app = app
            app.timeInStateSeconds += seconds
            app.ageSeconds = app.ageSeconds.map { $0 + seconds }
            if app.state == "background" {
                app.budgetRemainingSeconds = app.budgetRemainingSeconds.map { max(0, $0 - seconds) }
            }
            return app
        }
        return aged
    }

    /// `Every 1.0s: runway status    2026-11-23 14:05:00 +0000`: the interval and the local wall-clock time, as
    /// watch(1) heads its screen.
    static func watchHeader(interval: Double, now: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZ"
        return String(format: "Every %.1fs: runway status", interval) + "    " + formatter.string(from: now)
    }
}

/// The apps named by the transitions since the last `take()`, read from an `events` subscription on a thread of
/// its own, and whether the daemon closed it. Any thread (a lock).
final class WatchChanges: Sendable {
    /// Apps remembered between two redraws; past it the watch fetches every page again anyway.
    static let appLimit = 4_096

    private let state = RunwayLock<(apps: Set<String>, many: Bool, closed: Bool)>(([], false, false))

    /// Subscribes on a new connection to `path`, then reads its event lines on a thread of its own.
    ///
    /// - Throws: As `runway events` does when the daemon cannot be reached or refuses.
    func follow(path: String) throws {
        let client: ControlClient
        do throws(ControlClientError) {
            client = try ControlClient(path: path, replyTimeoutSeconds: nil)
            _ = try client.request(ControlRequest(command: "events"))
        } catch {
            throw clientFailure(error)
        }
        // Handed over: from here on only the reader thread uses this connection (ControlClient is not Sendable
        // because its buffer is not locked; one thread at a time is its rule).
        nonisolated(unsafe) let reader = client
        Thread.detachNewThread {
            while let line = try? reader.readLine() {
                guard let event = try? ControlClient.decode(ControlEventLine.self, line) else { continue }
                self.state.withLock { state in
                    if state.apps.count < Self.appLimit {
                        state.apps.insert(event.event.app)
                    } else {
                        state.many = true
                    }
                }
            }
            self.state.withLock { $0.closed = true }
        }
    }

    /// The apps that moved since the last call, whether more than `appLimit` did (then `apps` is not all of
    /// them), and whether the stream is closed.
    func take() -> (apps: Set<String>, many: Bool, closed: Bool) {
        self.state.withLock { state in
            defer { state = ([], false, state.closed) }
            return state
        }
    }
}
