import ArgumentParser
import Foundation
import RunwayControl

/// `runway logs APP [-f] [-n N] [--previous] [--json] [--stream stdout|stderr]`: a process app's captured output,
/// like `kubectl logs`.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Print a process app's stdout and stderr lines as the daemon captured them.",
        discussion: """
            The daemon keeps the last lines of each process app's current (or last) run and of the run before it \
            (at most AppLogLineLimit lines and AppLogByteLimit bytes each, Runway.plist; older lines are dropped, \
            and a note on standard error says how many). Each line is printed as TIME STREAM TEXT, TIME being \
            when the daemon read it (ISO 8601, UTC); Runway's own notes about a stream start with [runway]. \
            Control characters the app printed (but the tab) are shown as \\xHH, never sent to the terminal. \
            --json prints one JSON object per line, with the text exact: \
            {"line":"...","stream":"stdout","time":"..."}. \
            -f keeps printing new lines, across restarts of the app, until interrupted or until the daemon stops \
            (exit 0, with a note on standard error). Embedded apps have no output of their own: an error. \
            Exit codes: 0 success; 1 unknown app, embedded app or no previous run; 64, 69, 75, 77 as for every \
            command (75 also when the daemon drops a follower that falls more than ControlQueueByteLimit behind).
            """
    )

    enum Stream: String, ExpressibleByArgument, CaseIterable {
        case stdout, stderr
    }

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's bundle identifier.")
    var app: String

    @Flag(name: .shortAndLong, help: "Keep printing new lines until interrupted or until the daemon stops.")
    var follow = false

    @Option(name: [.customShort("n"), .long], help: ArgumentHelp("Only the last N lines.", valueName: "N"))
    var lines: Int?

    @Flag(help: "The previous run's lines instead of the current (or last) run's.")
    var previous = false

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Option(help: "Only this stream: stdout or stderr.")
    var stream: Stream?

    func validate() throws {
        if let lines = self.lines, lines < 0 { throw ValidationError("-n must be 0 or more, got \(lines)") }
        if self.previous && self.follow { throw ValidationError("--previous and -f: only the current run is followed") }
    }

    func run() throws {
        let request = ControlRequest(
            command: "logs",
            app: self.app,
            lines: self.lines,
            previous: self.previous ? true : nil,
            follow: self.follow ? true : nil,
            stream: self.stream?.rawValue
        )
        let client = try self.connection.connect(replyTimeoutSeconds: self.follow ? nil : 30)
        let reply = try send(request, on: client)
        guard let logs = reply.logs else {
            printError("error: the daemon's reply has no logs")
            throw ExitCode(ControlExit.replyFailed)
        }
        if logs.droppedLines > 0 {
            printError(
                "runway logs: \(logs.droppedLines) earlier line(s) (\(logs.droppedBytes) bytes) of this run were "
                    + "dropped: the daemon keeps the last \(logs.lineLimit) lines and \(logs.byteLimit) bytes of "
                    + "each run (AppLogLineLimit, AppLogByteLimit)"
            )
        }
        writeOut(logs.lines.map { self.text(for: $0) + "\n" }.joined())
        guard self.follow else { return }
        while let line = try self.nextLine(client) {
            // The daemon's last line when it drops this reader (slowReader) is an error reply, not a log line.
            if let reply = try? ControlClient.decode(ControlReply.self, line), let error = reply.error {
                printError("error: \(error.message)")
                throw ExitCode(replyErrorExit(error.code))
            }
            let log: ControlLogLine
            do throws(ControlClientError) {
                log = try ControlClient.decode(ControlLogLine.self, line)
            } catch {
                throw clientFailure(error)
            }
            writeOut(self.text(for: log.log) + "\n")
        }
        printError("runway logs: the daemon closed the connection (it stopped); no more lines")
    }

    private func text(for line: AppLogLinePayload) -> String {
        if self.json { return String(decoding: ControlProtocol.encodedLine(line).dropLast(), as: UTF8.self) }
        return "\(line.time) \(line.stream) \(terminalSafe(line.line))"
    }

    /// The next line, or nil when the daemon closed the stream; a client failure exits as `clientFailure` says.
    private func nextLine(_ client: ControlClient) throws -> [UInt8]? {
        do throws(ControlClientError) {
            return try client.readLine()
        } catch {
            throw clientFailure(error)
        }
    }
}
