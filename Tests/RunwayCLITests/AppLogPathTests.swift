import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// The output files' paths (Docs/Security.md, "App output files"): the daemon follows no symbolic link in any
/// component of `StandardOutPath`/`StandardErrorPath`, refuses a directory another user may write to, and a
/// rotation that cannot be done leaves the file at `LogFileSizeLimit` with one error and a metric. Real daemon,
/// real children, real directories.
@Suite(.serialized) struct AppLogPathTests {
    /// A directory of its own under the temporary directory, mode 0755.
    static func directory() throws -> String {
        let path = "/tmp/runway-logpath-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(chmod(path, 0o755) == 0)
        return path
    }

    /// An app printing `lines` lines of about 110 bytes (with the daemon's stamp) to `log`, then waiting.
    static func printer(_ log: String, lines: Int = 1, extra: String = "") -> String {
        let payload = String(repeating: "x", count: 70)
        let script =
            "i=0; while [ $i -lt \(lines) ]; do echo line-$i-\(payload); i=$((i+1)); done; "
            + "trap 'exit 0' TERM; while :; do sleep 0.05; done"
        return "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
            + "<string>\(script)</string></array><key>StandardOutPath</key><string>\(log)</string>" + extra
    }

    /// Launches `app` and waits until its last line (`line-<lines-1>-`) is in the ring.
    static func launchAndWait(_ daemon: DaemonProcess, _ app: String, lines: Int = 1) throws {
        #expect(try daemon.cli("launch", app).status == 0, "\(daemon.output)")
        try waitUntil("the app's last line in the ring\n\(daemon.output)") {
            try daemon.cli("logs", app, "-n", "1").stdout.contains("line-\(lines - 1)-")
        }
    }

    @Test func aSymbolicLinkInADirectoryComponentIsNotFollowed() throws {
        let files = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        // A directory only its owner may enter, and a link to it planted where the log directory should be.
        let secret = files + "/secret"
        try FileManager.default.createDirectory(atPath: secret, withIntermediateDirectories: false)
        #expect(chmod(secret, 0o700) == 0)
        try FileManager.default.createSymbolicLink(atPath: files + "/logs", withDestinationPath: secret)
        let app = "com.test.logpath.link"
        let daemon = try DaemonProcess(apps: [app: Self.printer(files + "/logs/app.log")])
        defer { daemon.close() }
        try Self.launchAndWait(daemon, app)
        try waitUntil("the daemon's error\n\(daemon.output)") {
            daemon.output.contains("cannot open \(files)/logs/app.log: \(files)/logs is a symbolic link")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: secret).isEmpty, "the link was followed")
    }

    @Test(arguments: [0o777, 0o1777, 0o775])
    func aLogDirectoryOtherUsersMayWriteToIsRefused(mode: Int) throws {
        let files = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let shared = files + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        // Group-writable counts only for a group other than the daemon's: nogroup here.
        #expect(chown(shared, geteuid(), 65_534) == 0 || mode != 0o775)
        #expect(chmod(shared, mode_t(mode)) == 0)
        let app = "com.test.logpath.shared"
        let daemon = try DaemonProcess(apps: [app: Self.printer(shared + "/app.log")])
        defer { daemon.close() }
        try Self.launchAndWait(daemon, app)
        let who = mode == 0o775 ? "group 65534" : "every user"
        try waitUntil("the daemon's error\n\(daemon.output)") {
            daemon.output.contains("cannot open \(shared)/app.log: \(shared) is writable by \(who)")
        }
        #expect(!FileManager.default.fileExists(atPath: shared + "/app.log"), "the file was created")
    }

    @Test func aStickyWorldWritableAncestorIsAllowed() throws {
        // A sticky world-writable directory above the log directory (as /tmp) is fine: others cannot move what
        // they do not own there. The file is written.
        let files = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let sticky = files + "/sticky"
        try FileManager.default.createDirectory(atPath: sticky + "/logs", withIntermediateDirectories: true)
        #expect(chmod(sticky, 0o1777) == 0)
        let app = "com.test.logpath.sticky"
        let daemon = try DaemonProcess(apps: [app: Self.printer(sticky + "/logs/app.log")])
        defer { daemon.close() }
        try Self.launchAndWait(daemon, app)
        try waitUntil("the line in the file\n\(daemon.output)") {
            ((try? String(contentsOfFile: sticky + "/logs/app.log", encoding: .utf8)) ?? "").contains("line-0-")
        }
        #expect(!daemon.output.contains("cannot open"), "\(daemon.output)")
    }

    @Test func aDirectoryPlantedAtTheRotatedNameKeepsTheFileAtItsLimit() throws {
        let files = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let log = files + "/app.log"
        // Something rename(2) cannot replace with a file: a non-empty directory at app.log.1.
        try FileManager.default.createDirectory(atPath: log + ".1/inside", withIntermediateDirectories: true)
        let app = "com.test.logpath.rotation"
        // 3,000 lines of about 110 bytes: about 330 KB against a 64 KiB limit.
        let daemon = try DaemonProcess(
            apps: [
                app: Self.printer(
                    log,
                    lines: 3_000,
                    extra: "<key>LogFileSizeLimit</key><integer>65536</integer>"
                        + "<key>LogFileCount</key><integer>2</integer>"
                )
            ],
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        try Self.launchAndWait(daemon, app, lines: 3_000)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        #expect(size <= 65_536 && size > 60_000, "app.log has \(size) bytes")
        let error =
            "cannot rotate \(log): cannot rename \(log) to \(log).1: Is a directory; the file stays at its "
            + "LogFileSizeLimit of 65536 bytes"
        try waitUntil("the daemon's error\n\(daemon.output)") { daemon.output.contains(error) }
        #expect(daemon.output.components(separatedBy: "cannot rotate").count == 2, "one error\n\(daemon.output)")
        // Every line past the limit is counted; the ring still has the last one.
        let body = try httpGet(port: port).body
        let refused = sample(body, "runway_app_log_lines_refused_total{app=\"\(app)\",stream=\"stdout\"}")
        #expect((refused ?? 0) > 2_000, "\(refused ?? -1)")
        // The sum over apps counts the same lines; the stderr series is there at zero.
        #expect(sample(body, "runway_log_lines_refused_total{stream=\"stdout\"}") == refused)
        #expect(sample(body, "runway_log_lines_refused_total{stream=\"stderr\"}") == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: log + ".1") == ["inside"])
    }
}
