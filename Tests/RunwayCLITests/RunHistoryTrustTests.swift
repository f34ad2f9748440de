import Foundation
import RunwayTestKit
import Testing

@testable import RunwayControl

/// The run history file is trusted only as the process state file is: a history another
/// user could have written (a file writable by group or others, a symbolic link planted at its path, a state
/// directory others may write in) is never shown by `status` as the daemon's own.
@Suite("Run history file trust", .serialized)
struct RunHistoryTrustTests {
    static let app = "com.example.once"

    /// A daemon that ran the app once (exit 3) and stopped, leaving its history file; returns it and the path.
    func daemonThatRanOnce() throws -> (DaemonProcess, String) {
        let daemon = try DaemonProcess(apps: [
            Self.app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>exit 3</string></array>"
        ])
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the app to exit\n\(daemon.output)") {
            try daemon.status(Self.app).lastTermination == "exited(3)"
        }
        #expect(try daemon.stop() == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)
        let name = try #require(files.first { $0.hasSuffix(".history.json") }, "\(files)")
        return (daemon, daemon.stateDirectory + "/" + name)
    }

    @Test func aHistoryFileOthersCanWriteIsNotReadButSetAside() throws {
        let (first, path) = try self.daemonThatRanOnce()
        #expect(chmod(path, 0o666) == 0)
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(try second.status(Self.app).history ?? [] == [], "\(second.output)")
        #expect(second.output.contains("writable by group or others"), "\(second.output)")
        #expect(FileManager.default.fileExists(atPath: path + ".bad"))
    }

    @Test func aSymbolicLinkAtTheHistoryPathIsNotFollowed() throws {
        let (first, path) = try self.daemonThatRanOnce()
        // A valid history, moved elsewhere and pointed at: what another user would plant.
        let elsewhere = first.config.path + "/planted.json"
        #expect(rename(path, elsewhere) == 0)
        #expect(symlink(elsewhere, path) == 0)
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(try second.status(Self.app).history ?? [] == [], "\(second.output)")
        #expect(second.output.contains("run history not read"), "\(second.output)")
        #expect(FileManager.default.fileExists(atPath: elsewhere), "the link's target is left alone")
    }

    @Test func aStateDirectoryOthersCanWriteKeepsTheHistoryInMemoryOnly() throws {
        let (first, path) = try self.daemonThatRanOnce()
        #expect(chmod(first.stateDirectory, 0o777) == 0)
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(try second.status(Self.app).history ?? [] == [], "\(second.output)")
        #expect(second.output.contains("run history kept in memory only"), "\(second.output)")
        // Nothing is written there either: the file the first daemon left is untouched.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try second.cli("launch", Self.app).status == 0)
        try waitUntil("the app to exit again\n\(second.output)") {
            try second.status(Self.app).history?.count == 1
        }
        #expect(try second.stop() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
