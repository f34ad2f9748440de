import ArgumentParser
import Foundation
import RunwayControl
@_spi(Driver) import RunwayCore

/// `runway status [APP] [--json] [--watch]` (K2).
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every app (or one): state, pid, restarts, age, time in state, budget, tasks.",
        discussion: """
            The table has one row per app: APP, STATE, PID, RESTARTS (KeepAlive restarts since the daemon \
            started), AGE (time since the current run began), IN STATE (time in the state), BUDGET (background \
            budget left; "unlimited" in the foreground and for background modes) and TASKS, the outstanding \
            background tasks as #id name (age), then "+N more". STATE is the app's state, "terminating" while a \
            termination runs, or "crash-looping" for an app waiting for a restart after CrashLoopThreshold failures; \
            in parentheses after it: the termination's reason and the state it runs from, how the last run ended, \
            "restored: purged" for a run that restored a preserved state (R2), a pending KeepAlive restart ("restart \
            #N in 1.0s"), "unconfirmed" for a suspension the kernel has not confirmed yet, and "kill refused, \
            still running" for an app the kernel would not let the daemon kill (P2). Below the table, an \
            app with background wake-ups not yet completed or a scheduled refresh pending gets a line: "APP: 1 \
            wake-up(s) not completed, next refresh at t=42.0s" (W4, W7).

            The table fits COLUMNS when it is set, else the terminal's width, else \(TerminalWidth.fallback) columns \
            (a pipe, a file). A state word is never cut: the other columns are abbreviated first, TASKS (the tasks \
            that fit, then "+N more"), then the detail after the state ("…"), then APP (its end kept: \
            "…example.uploader"); times over a minute are written 4m05s, 3h07m, 2d04h. With APP, a describe-style \
            view instead, every field whole: state, pid, whether a process app is contained (Docs/Security.md), the \
            suspension mechanism (freezer or signal) and whether the kernel confirmed it, the budget left and its \
            deadline on the daemon's clock, restarts, the tasks (the first 16; --tasks lists every one), the pending \
            restart, the wake-ups not completed and the next refresh (W6, W7), whether it keeps a preserved state \
            and how its last run ended (R1-R6), and the last runs (RunHistoryLimit) with wall-clock start and end, \
            reason and the last lines of output. --json prints the daemon's reply whole, history included \
            (Docs/ControlProtocol.md). --watch redraws the table in place every --interval seconds, under a line \
            with the time, until interrupted or the daemon stops (then it prints a line saying so and exits 0); \
            with --json it prints one JSON line per redraw (JSON lines). It follows the daemon's events: each \
            redraw asks again only for the apps that moved and advances the time columns of the others.

            --state S and --app PATTERN (* any run, ? one character) list only the apps that match; the daemon \
            counts them all ("matched"). It lists at most \(StatusCommand.pageLimit) apps per reply \
            (statusPageLimit): without --limit this asks page after page and shows every app; --limit N asks for \
            one page of N and says under the table how many matched and the --after for the next page. \
            --summary prints counts over every app instead (per state, running, tasks, crash-looping, restarts, \
            budget expirations), which the daemon keeps as they change; a plain `runway status` of more than \
            \(StatusCommand.tableAppLimit) apps prints that summary and how to list apps (--all: the table anyway).

            Exit codes with APP, for scripts: 10 notRunning, 11 inactive, 12 active, 13 background, \
            14 suspended, 15 terminating (any state). Without APP: 0. Either way: 1 unknown app or another refusal, \
            64 bad usage, 69 no daemon, 75 the daemon's reply failed, 77 permission denied.
            """
    )

    /// `runway status APP` exits with one of these; documented above and in README.
    static let exitCodes: [String: Int32] = [
        "notRunning": 10, "inactive": 11, "active": 12, "background": 13, "suspended": 14,
    ]
    static let terminatingExitCode: Int32 = 15

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "Only this app (bundle identifier).")
    var app: String?

    @Flag(help: "Print the daemon's JSON reply.")
    var json = false

    @Flag(help: "List every outstanding background task of each app, not only the first 16 (--json, APP).")
    var tasks = false

    @Option(
        help: ArgumentHelp(
            "Only apps in this state (notRunning, inactive, active, background, suspended).",
            valueName: "state"
        ),
        completion: .list(["notRunning", "inactive", "active", "background", "suspended"])
    )
    var state: String?

    @Option(
        name: .customLong("app"),
        help: ArgumentHelp(
            "Only apps whose bundle identifier matches (* any run, ? one character).",
            valueName: "pattern"
        )
    )
    var pattern: String?

    @Option(
        help: ArgumentHelp(
            "Show at most this many apps (1...1000; one request); without it every page.",
            valueName: "count"
        )
    )
    var limit: Int?

    @Option(help: ArgumentHelp("Start after this app (a reply's next), with --limit.", valueName: "app"))
    var after: String?

    @Flag(help: "Counts over every app (per state, tasks, crash loops, restarts) instead of a row each.")
    var summary = false

    @Flag(help: "The table of every app even when there are more than 1000 (one request per 1000).")
    var all = false

    @Flag(help: "Redraw in place until interrupted.")
    var watch = false

    @Option(help: ArgumentHelp("Seconds between redraws with --watch.", valueName: "seconds"))
    var interval: Double = 1

    func validate() throws {
        guard self.interval >= 0.1, self.interval <= 3_600 else {
            throw ValidationError("--interval must be within 0.1...3600 seconds, got \(self.interval)")
        }
        if let state = self.state, AppState(rawValue: state) == nil {
            let names = AppState.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--state: unknown state '\(state)'; expected one of \(names)")
        }
        if let pattern = self.pattern, AppPattern(pattern) == nil {
            throw ValidationError("--app: expected a pattern of 1 to \(AppPattern.byteLimit) bytes (* and ? wildcards)")
        }
        if let limit = self.limit, !(1...Self.pageLimit).contains(limit) {
            throw ValidationError(
                "--limit must be within 1...\(Self.pageLimit), the most apps in one status reply (statusPageLimit)"
            )
        }
        if self.after != nil, self.limit == nil {
            throw ValidationError("--after needs --limit (without it every page is shown)")
        }
        if self.summary, self.app != nil || self.state != nil || self.pattern != nil || self.limit != nil || self.watch
        {
            throw ValidationError("--summary counts every app; not with APP, --state, --app, --limit or --watch")
        }
        if self.app != nil, self.state != nil || self.pattern != nil || self.limit != nil {
            throw ValidationError("--state, --app and --limit select among every app; not with APP")
        }
    }

    func run() throws {
        // --json prints the reply whole, every app's history included; the table needs none, and the daemon
        // encodes every history (megabytes per refresh at a large RunHistoryLimit).
        let request = ControlRequest(
            command: "status",
            app: self.app,
            history: self.json ? true : nil,
            tasks: self.tasks ? true : nil,
            state: self.state,
            appPattern: self.pattern,
            limit: self.limit,
            after: self.after
        )
        guard self.watch else {
            let client = try self.connection.connect()
            if try self.printedSummary(on: client) { return }
            let reply = try self.pages(request, on: client)
            // One app: the describe-style view (StatusDescribe.swift); every app: the table.
            var text = self.app == nil ? StatusTable.render(reply) : StatusDescribe.render(reply)
            if self.app == nil, let note = Self.cutNote(reply, limit: self.limit) { text += note + "\n" }
            writeOut(self.json ? self.jsonText(reply) + "\n" : text)
            if let app = self.app, let row = reply.apps?.first(where: { $0.app == app }) {
                throw ExitCode(row.terminating != nil ? Self.terminatingExitCode : Self.exitCodes[row.state] ?? 1)
            }
            return
        }
        try self.watchUntilStopped(request)
    }

    func jsonText(_ reply: ControlReply) -> String {
        String(decoding: ControlProtocol.encodedLine(reply).dropLast(), as: UTF8.self)
    }
}

/// `runway events [--json]`: the live stream of transitions (K2).
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Stream transitions live until the daemon stops or you interrupt.",
        discussion: """
            One line per transition: the daemon's clock, the app, from -> to, the cause and the messages sent. \
            --json prints the protocol's event lines ({"v":1,"event":{...}}, Docs/ControlProtocol.md). Exits 0 \
            when the daemon stops; 75 when the daemon drops this reader for falling more than ControlQueueByteLimit \
            behind (its slowReader line is printed to standard error).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the event lines as JSON.")
    var json = false

    func run() throws {
        let client = try self.connection.connect(replyTimeoutSeconds: nil)
        _ = try send(ControlRequest(command: "events"), on: client)
        printError("runway events: subscribed to \(try self.connection.socketPath); one line per transition")
        while let line = try self.nextLine(client) {
            // The daemon's last line when it drops this reader (slowReader) is an error reply, not an event.
            if let reply = try? ControlClient.decode(ControlReply.self, line), let error = reply.error {
                ErrorOutput.report(code: error.code, message: error.message)
                throw ExitCode(replyErrorExit(error.code))
            }
            writeOut(try self.text(for: line) + "\n")
        }
    }

    /// The next line, or nil when the daemon closed the stream; a client failure exits as `clientFailure` says.
    private func nextLine(_ client: ControlClient) throws -> [UInt8]? {
        do throws(ControlClientError) {
            return try client.readLine()
        } catch {
            throw clientFailure(error)
        }
    }

    private func text(for line: [UInt8]) throws -> String {
        if self.json { return String(decoding: line, as: UTF8.self) }
        let event: TransitionPayload
        do throws(ControlClientError) {
            event = try ControlClient.decode(ControlEventLine.self, line).event
        } catch {
            throw clientFailure(error)
        }
        let messages = event.messages.isEmpty ? "" : "  {\(event.messages.joined(separator: ", "))}"
        let exit = event.exit.map { "  \($0)" } ?? ""
        let at = (event.wallTime.map { $0 + "  " } ?? "") + String(format: "t=%.3fs", event.atSeconds)
        let asked = event.userAction.map { "  (\($0))" } ?? ""
        let restored = event.restoration.map { "  restored (last run: \($0))" } ?? ""
        let restart = event.restart.map { attempt in
            "  restart #\(attempt) at " + String(format: "t=%.3fs", event.restartAtSeconds ?? 0)
                + (event.crashLooping == true ? ", crash-looping" : "")
        }
        return "\(at)  \(event.app)  \(event.from) -> \(event.to)  [\(event.cause)]\(asked)"
            + "\(messages)\(exit)\(restart ?? "")\(restored)"
    }
}
