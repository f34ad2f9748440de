import Foundation
import RunwayTestKit
import Testing

/// The client commands find a daemon through `RUNWAY_SOCKET` or `RUNWAY_CONFIG` when no flag names one (a flag
/// wins), and when no daemon answers the error names the path tried, what chose it, and how to name another.
@Suite struct DaemonLookupTests {
    /// Runs `runway ARGUMENTS` with `variables` set and every other RUNWAY_SOCKET or RUNWAY_CONFIG removed, from
    /// the repository root (which has `Config`, without ControlSocket), through env(1).
    static func run(_ arguments: [String], _ variables: [String: String]) throws -> RunResult {
        let settings = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try RunwayBinary.run(
            arguments,
            launcher: ["/usr/bin/env", "-u", "RUNWAY_SOCKET", "-u", "RUNWAY_CONFIG"] + settings
        )
    }

    @Test func aVariableFindsTheDaemonAndAFlagBeatsIt() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let elsewhere = "/tmp/runway-nobody-\(UInt32.random(in: 0...UInt32.max)).sock"

        // RUNWAY_SOCKET alone, and RUNWAY_CONFIG alone (its Runway.plist has the daemon's ControlSocket).
        let bySocket = try Self.run(["launch", "com.example.alpha"], ["RUNWAY_SOCKET": daemon.socket])
        #expect(bySocket.status == 0 && bySocket.stdout.hasPrefix("com.example.alpha: "), "\(bySocket)")
        let byConfig = try Self.run(["status"], ["RUNWAY_CONFIG": daemon.config.path])
        #expect(byConfig.status == 0 && byConfig.stdout.contains("socket \(daemon.socket)"), "\(byConfig)")
        // RUNWAY_SOCKET beats RUNWAY_CONFIG; --socket and --config beat both.
        let both = ["RUNWAY_SOCKET": daemon.socket, "RUNWAY_CONFIG": "/nonexistent/runway-config"]
        #expect(try Self.run(["status"], both).status == 0)
        let flag = try Self.run(["status", "--socket", elsewhere], ["RUNWAY_SOCKET": daemon.socket])
        #expect(flag.status == 69, "\(flag)")
        #expect(flag.stderr.contains("no daemon is listening on \(elsewhere)"), "\(flag)")
        #expect(flag.stderr.contains("The path is given with --socket."), "\(flag)")
        let config = try Self.run(["status", "--config", daemon.config.path], ["RUNWAY_SOCKET": elsewhere])
        #expect(config.status == 0, "\(config)")
        #expect(try daemon.stop() == 0)
    }

    @Test func withNoDaemonTheErrorNamesThePathWhatChoseItAndHowToNameAnother() throws {
        let missing = "/tmp/runway-nobody-\(UInt32.random(in: 0...UInt32.max)).sock"
        let hint =
            "A daemon serving another socket: --socket PATH or RUNWAY_SOCKET=PATH, or --config DIR or "
            + "RUNWAY_CONFIG=DIR to use its ControlSocket"
        let variable = try Self.run(["status"], ["RUNWAY_SOCKET": missing])
        #expect(variable.status == 69, "\(variable)")
        #expect(
            variable.stderr.hasPrefix(
                "error: no daemon is listening on \(missing): nothing is there (start one with `runway run`). The "
                    + "path is from "
                    + "RUNWAY_SOCKET. \(hint)"
            ),
            "\(variable)"
        )
        // The shipped Config, read by default from the repository root, sets no ControlSocket: the default path.
        let byDefault = try Self.run(["status", "--json"], [:])
        #expect(byDefault.status == 69, "\(byDefault)")
        let error = try RunwayBinary.jsonError(byDefault)
        #expect(error.code == "unreachable", "\(byDefault)")
        #expect(
            error.message.contains(
                "The path is the default socket for this user: Config/Runway.plist (./Config, read by default) "
                    + "sets no other ControlSocket. \(hint)"
            ),
            "\(byDefault)"
        )
        // A configuration directory from RUNWAY_CONFIG is read as --config's is: a bad one is exit 78, naming
        // the file, the key and the variable, never a fall back to another socket.
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>ControlSocket</key><string>relative.sock</string>"))
        let bad = try Self.run(["status"], ["RUNWAY_CONFIG": config.path])
        #expect(bad.status == 78, "\(bad)")
        #expect(bad.stderr.contains("error: \(config.path)/Runway.plist: ControlSocket: expected an absolute path"))
        #expect(bad.stderr.contains("(RUNWAY_CONFIG=\(config.path))"), "\(bad)")
    }
}
