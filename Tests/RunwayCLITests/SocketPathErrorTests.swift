import Foundation
import RunwayTestKit
import Testing

/// When the CLI cannot use the socket's path, the error says what is there and what refused, with where the path
/// came from; a relative `RUNWAY_SOCKET` is refused, as a relative `ControlSocket` is.
@Suite struct SocketPathErrorTests {
    /// A scratch directory under /tmp (short enough for socket addresses), removed by the caller.
    static func scratch() throws -> String {
        let directory = "/tmp/runway-path-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        return directory
    }

    @Test func aRelativeOrOverLongRunwaySocketIsAUsageErrorNamingTheVariable() throws {
        let relative = try DaemonLookupTests.run(["status"], ["RUNWAY_SOCKET": "runway.sock"])
        #expect(relative.status == 64, "\(relative)")
        #expect(relative.stderr.contains("RUNWAY_SOCKET=runway.sock is not an absolute path"), "\(relative)")
        let long = "/tmp/" + String(repeating: "x", count: 200) + ".sock"
        let tooLong = try DaemonLookupTests.run(["status"], ["RUNWAY_SOCKET": long])
        #expect(tooLong.status == 64, "\(tooLong)")
        #expect(tooLong.stderr.contains("longer than"), "\(tooLong)")
        #expect(tooLong.stderr.contains("The path is from RUNWAY_SOCKET"), "\(tooLong)")
    }

    @Test func aDirectoryOrFIFOAtTheSocketPathIsNamedAsSuch() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/dir.sock", withIntermediateDirectories: false)
        #expect(mkfifo(directory + "/fifo.sock", 0o600) == 0)
        try leaveStaleSocket(at: directory + "/stale.sock")
        let cases = [
            ("dir.sock", "it is a directory, not a socket"),
            ("fifo.sock", "it is a FIFO, not a socket"),
            ("stale.sock", "the socket is there but no process listens on it"),
            ("missing.sock", "nothing is there"),
        ]
        for (name, expected) in cases {
            let path = directory + "/" + name
            let result = try DaemonLookupTests.run(["status", "--socket", path], [:])
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr.contains("no daemon is listening on \(path): \(expected)"), "\(result)")
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the client as nobody"))
    func aRefusedConnectionNamesTheDirectoryOrTheSocketModeThatRefused() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/closed", withIntermediateDirectories: false)
        #expect(chmod(directory + "/closed", 0o700) == 0 && chmod(directory, 0o755) == 0)
        try leaveStaleSocket(at: directory + "/closed/runway.sock")
        try leaveStaleSocket(at: directory + "/runway.sock")
        #expect(chmod(directory + "/runway.sock", 0o600) == 0)
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        func run(_ path: String) throws -> RunResult {
            try RunwayBinary.run(
                ["status", "--socket", path],
                launcher: nobody + ["/usr/bin/env", "-u", "RUNWAY_SOCKET", "-u", "RUNWAY_CONFIG"]
            )
        }
        let searched = try run(directory + "/closed/runway.sock")
        #expect(searched.status == 77, "\(searched)")
        #expect(
            searched.stderr.contains(
                "this user (uid 65534) cannot search the directory \(directory)/closed (mode 0700, owner uid 0)"
            ),
            "\(searched)"
        )
        let written = try run(directory + "/runway.sock")
        #expect(written.status == 77, "\(written)")
        #expect(
            written.stderr.contains("this user (uid 65534) may not write to the socket (mode 0600, owner uid 0;"),
            "\(written)"
        )
        #expect(written.stderr.contains("The path is given with --socket"), "\(written)")
    }
}
