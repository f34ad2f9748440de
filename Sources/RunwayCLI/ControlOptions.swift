import ArgumentParser
import Foundation
import RunwayConfig
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
}

/// Where the daemon's control socket is: `--socket`, else `ControlSocket` of `--config DIR/Runway.plist`, else
/// the default path for this user.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's control socket (overrides the configuration; default as `runway run --help` says).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read ControlSocket from DIR/Runway.plist (default Config, when it exists).",
            valueName: "dir"
        )
    )
    var config: String = "Config"

    var socketPath: String {
        if let socket { return socket }
        if FileManager.default.fileExists(atPath: self.config),
            let configuration = try? ConfigLoader.load(directory: self.config)
        {
            return configuration.daemon.controlSocketPath
        }
        return DaemonSettings.defaultControlSocketPath()
    }

    /// Connects, or prints why not and exits 64 (bad path), 69 (nothing listens) or 77 (permission denied).
    ///
    /// - Parameter replyTimeoutSeconds: nil for a stream that may be silent for long (`events`).
    func connect(replyTimeoutSeconds: Int? = 30) throws -> ControlClient {
        do throws(ControlClientError) {
            return try ControlClient(path: self.socketPath, replyTimeoutSeconds: replyTimeoutSeconds)
        } catch {
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
/// printed and exits 77 for `peerNotAllowed`, 75 for `slowReader`, 1 otherwise.
func send(_ request: ControlRequest, on client: ControlClient) throws -> ControlReply {
    let reply: ControlReply
    do throws(ControlClientError) {
        reply = try client.request(request)
    } catch {
        throw clientFailure(error)
    }
    if let error = reply.error {
        printError("error: \(error.message)")
        throw ExitCode(replyErrorExit(error.code))
    }
    return reply
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

func clientFailure(_ error: ControlClientError) -> ExitCode {
    printError("error: \(error)")
    switch error.kind {
    case .permissionDenied: return ExitCode(ControlExit.permissionDenied)
    case .badPath: return ExitCode(ControlExit.usage)
    case .unreachable: return ExitCode(ControlExit.unreachable)
    case .noReply, .badReply: return ExitCode(ControlExit.replyFailed)
    }
}

/// Writes to standard output at once (unbuffered), for output that streams or redraws.
func writeOut(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
