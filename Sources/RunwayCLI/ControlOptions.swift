import ArgumentParser
import Foundation
import RunwayControl

/// Exit statuses of the commands that talk to the daemon (documented in `runway --help` and README).
enum ControlExit {
    /// The daemon refused the request (unknown app, illegal command, ...): the error is printed.
    static let refused: Int32 = 1
    /// Bad usage: ArgumentParser's own code (EX_USAGE), also for a socket path that cannot be an address.
    static let usage: Int32 = 64
    /// Nothing listens on the socket: no daemon (EX_UNAVAILABLE).
    static let unreachable: Int32 = 69
    /// A daemon was reached but its reply failed: it closed the connection without replying, did not reply in
    /// time, sent an unreadable line, or dropped the connection (`slowReader`) (EX_TEMPFAIL: try again).
    static let replyFailed: Int32 = 75
    /// The socket (or the daemon's SO_PEERCRED check) refused this user, or the process listening on the socket
    /// runs as neither this user nor root (the client's SO_PEERCRED check; nothing was sent).
    static let permissionDenied: Int32 = 77
    /// The configuration read to find the socket (`--config DIR/Runway.plist`) is bad: the error names the file and
    /// key (EX_CONFIG).
    static let badConfig: Int32 = 78
}

/// Where the daemon's control socket is (`ControlSocketChoice`): `--socket`, else `ControlSocket` of `--config
/// DIR/Runway.plist`, else `RUNWAY_SOCKET`, else `ControlSocket` of `RUNWAY_CONFIG`'s Runway.plist, else of
/// `Config/Runway.plist` when `Config` exists, else the default path for this user. Only Runway.plist is read
/// (`ConfigLoader.loadDaemonSettings`); a bad one is an error naming the file and key (exit 78), never a silent
/// fall back to the default socket.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's control socket (overrides --config, RUNWAY_SOCKET and RUNWAY_CONFIG; default as "
                + "`runway run --help` says).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read ControlSocket from DIR/Runway.plist (default RUNWAY_CONFIG, else Config when it exists; a DIR "
                + "given must exist).",
            valueName: "dir"
        )
    )
    var config: String?

    /// Where the socket is and what chose it. Reads `Runway.plist` (only) when a configuration directory decides.
    ///
    /// - Throws: `ExitCode(78)` after printing the configuration error (file, key, found, expected, and the
    ///   variable that named the directory).
    var choice: ControlSocketChoice {
        get throws {
            let choice: ControlSocketChoice
            do throws(ControlSocketChoice.BadConfig) {
                choice = try ControlSocketChoice.choose(
                    socketFlag: self.socket,
                    configFlag: self.config,
                    environment: ProcessInfo.processInfo.environment
                )
            } catch {
                ErrorOutput.report(code: "badConfig", message: error.message)
                throw ExitCode(ControlExit.badConfig)
            }
            // A relative path would name a different socket in each working directory; ControlSocket must be
            // absolute for the same reason.
            if choice.source == .socketVariable, !choice.path.hasPrefix("/") {
                ErrorOutput.report(
                    code: "usage",
                    message: "\(ControlSocketChoice.socketVariable)=\(choice.path) is not an absolute path: "
                        + "the control socket's path must start with /, as ControlSocket's does"
                )
                throw ExitCode(ControlExit.usage)
            }
            return choice
        }
    }

    /// The configuration directory for a command that reads the apps as well (`export-state --offline`):
    /// `--config`, else `RUNWAY_CONFIG`, else `Config`.
    var configDirectory: String {
        let variable = ProcessInfo.processInfo.environment[ControlSocketChoice.configVariable] ?? ""
        return self.config ?? (variable.isEmpty ? ControlSocketChoice.defaultConfig : variable)
    }

    /// The socket's path (`choice`).
    var socketPath: String {
        get throws { try self.choice.path }
    }

    /// Connects, or prints why not and exits 64 (bad path), 69 (nothing listens), 75 (a daemon listens but
    /// accepted no connection within the reply's timeout), 77 (permission denied) or 78 (bad configuration). When
    /// nothing listens, it does not accept, or the socket refuses this user, the error says where the path came
    /// from (`ControlSocketChoice.origin`); when nothing listens, also how to name another socket.
    ///
    /// - Parameter replyTimeoutSeconds: nil for a stream that may be silent for long (`events`).
    func connect(replyTimeoutSeconds: Int? = 30) throws -> ControlClient {
        let choice = try self.choice
        do throws(ControlClientError) {
            let client = try ControlClient(path: choice.path, replyTimeoutSeconds: replyTimeoutSeconds)
            client.pathOrigin = choice.origin
            return client
        } catch {
            var error = error
            switch error.kind {
            case .unreachable: error.message += ". The path is \(choice.origin). \(ControlSocketChoice.hint)"
            case .permissionDenied, .noReply, .badPath: error.message += ". The path is \(choice.origin)"
            case .closed, .badReply: break
            }
            throw clientFailure(error)
        }
    }

    /// Sends one request on a new connection; see `send(_:on:)`.
    func request(_ request: ControlRequest) throws -> ControlReply {
        try send(request, on: try self.connect())
    }
}

/// The daemon's socket and the app a command is about: the options and first argument of every app command.
struct AppTarget: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's bundle identifier.")
    var app: String

    /// Sends `command` about the app on a new connection and prints `APP: ` and what `outcome` makes of the
    /// reply. Blocks the calling thread until the reply; exits as `send(_:on:)` does when the daemon cannot be
    /// reached or refuses the request.
    func send(
        _ command: String,
        seconds: Double? = nil,
        task: String? = nil,
        taskID: UInt64? = nil,
        outcome: (ControlReply) -> String
    ) throws {
        let request = ControlRequest(command: command, app: self.app, seconds: seconds, task: task, taskID: taskID)
        let reply = try self.connection.request(request)
        print("\(self.app): \(outcome(reply))")
    }
}

/// Sends one request and returns its reply. A client failure exits as `clientFailure` says; an error reply is
/// printed (`ErrorOutput`; an `unknownApp` with the registered apps close to the one asked for) and exits 77 for
/// `peerNotAllowed`, 75 for `slowReader`, 1 otherwise.
func send(_ request: ControlRequest, on client: ControlClient) throws -> ControlReply {
    let reply: ControlReply
    do throws(ControlClientError) {
        reply = try client.request(request)
    } catch {
        throw clientFailure(error)
    }
    return try checked(reply, of: request, on: client)
}

/// `reply` when it is not an error; an error reply is printed as `send(_:on:)` says and exits.
func checked(_ reply: ControlReply, of request: ControlRequest, on client: ControlClient) throws -> ControlReply {
    if let error = reply.error {
        var suggestions: [String] = []
        if error.code == "unknownApp", let app = request.app {
            suggestions = registeredApps(close: app, on: client)
        }
        ErrorOutput.report(code: error.code, message: error.message, suggestions: suggestions)
        throw ExitCode(replyErrorExit(error.code))
    }
    return reply
}

/// The registered apps whose identifiers are close to `app` (`Suggestions`), asked of the daemon with `status` on
/// the same connection; none when that fails.
func registeredApps(close app: String, on client: ControlClient) -> [String] {
    guard let apps = try? client.request(ControlRequest(command: "status")).apps else { return [] }
    return Suggestions.closest(to: app, among: apps.map(\.app))
}

/// The exit status for an error reply's code: the daemon refused this user (77), dropped the connection (75), or
/// refused the request (1).
func replyErrorExit(_ code: String) -> Int32 {
    switch code {
    case "peerNotAllowed": return ControlExit.permissionDenied
    case "slowReader": return ControlExit.replyFailed
    default: return ControlExit.refused
    }
}

/// Prints a client failure (`ErrorOutput`, code the kind's name) and returns its exit status.
func clientFailure(_ error: ControlClientError) -> ExitCode {
    ErrorOutput.report(code: "\(error.kind)", message: error.message)
    switch error.kind {
    case .permissionDenied: return ExitCode(ControlExit.permissionDenied)
    case .badPath: return ExitCode(ControlExit.usage)
    case .unreachable: return ExitCode(ControlExit.unreachable)
    case .noReply, .closed, .badReply: return ExitCode(ControlExit.replyFailed)
    }
}

/// Writes to standard output at once (unbuffered), for output that streams or redraws.
func writeOut(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
