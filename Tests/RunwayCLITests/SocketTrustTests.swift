import Foundation
import RunwayControl
import RunwayTestKit
import Testing

// K1: who the CLI talks to, where the default socket lives, and what the daemon may remove
// at the socket's path. Other users are played by `nobody` through setpriv (Support/OtherUser.swift).

/// A directory under /tmp (short, for sun_path) owned by `owner` with `mode`; removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init(owner: UInt32 = getuid(), mode: mode_t = 0o755) throws {
        self.path = "/tmp/runway-h-\(UUID().uuidString.prefix(8))"
        try #require(mkdir(self.path, mode) == 0 && chmod(self.path, mode) == 0)
        try #require(chown(self.path, owner, owner) == 0)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }
}

@Suite("K1: the CLI trusts only its own user or root; the socket's path and directory are checked", .serialized)
struct SocketTrustTests {
    /// A fake daemon: binds `argv[1]` (mode 0777), accepts one client, answers its first line with a forged
    /// status reply, and writes every byte it received to `argv[2]` once the client has gone.
    static let impostor = #"""
        import os, socket, sys
        path, record = sys.argv[1], sys.argv[2]
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        os.chmod(path, 0o777)
        server.listen(4)
        client, _ = server.accept()
        client.settimeout(10)
        received = b""
        answered = False
        try:
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                received += chunk
                if b"\n" in received and not answered:
                    answered = True
                    client.sendall(b'{"v":1,"ok":true,"apps":[],"daemon":{"pid":1,"config":"forged",'
                                   b'"socket":"forged","uptimeSeconds":1}}\n')
        except OSError:
            pass
        with open(record, "wb") as output:
            output.write(received)
        """#

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run a process as another user"))
    func K1_clientRefusesAnImpostorSocket() throws {
        let directory = try ScratchDirectory(owner: nobody)
        defer { directory.remove() }
        let script = directory.path + "/impostor.py"
        try Self.impostor.write(toFile: script, atomically: true, encoding: .utf8)
        let socket = directory.path + "/control.sock"
        let record = directory.path + "/received"
        let impostor = try BackgroundCommand(
            URL(fileURLWithPath: setpriv),
            Array(asNobody.dropFirst()) + ["/usr/bin/python3", script, socket, record]
        )
        defer { impostor.close() }
        try waitUntil("the impostor's socket\n\(impostor.output)") {
            guard impostor.process.isRunning else {
                throw HarnessError(description: "the impostor exited: \(impostor.output)")
            }
            return FileManager.default.fileExists(atPath: socket)
        }

        let result = try RunwayBinary.run(["status", "--socket", socket])

        #expect(result.status == 77, "\(result)")
        #expect(
            result.stderr.contains("the process listening there runs as uid 65534, expected uid 0 (root)"),
            "\(result)"
        )
        #expect(result.stderr.contains("Nothing was sent"), "\(result)")
        #expect(!result.stdout.contains("forged"), "\(result)")
        // The impostor saw the client close without a byte.
        try waitUntil("the impostor to record what it received\n\(impostor.output)") {
            FileManager.default.fileExists(atPath: record)
        }
        let received = try Data(contentsOf: URL(fileURLWithPath: record))
        #expect(received.isEmpty, "the impostor received \(String(decoding: received, as: UTF8.self))")
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run the daemon as another user"))
    func K1_daemonAndCLIMeetAtTheDefaultSocketInXDGRuntimeDir() throws {
        let runtime = try ScratchDirectory(owner: nobody, mode: 0o700)
        defer { runtime.remove() }
        let config = try Self.configWithoutControlSocket()
        defer { config.remove() }
        let runway = try RunwayBinary.executableForOtherUsers().path
        let environment = ["/usr/bin/env", "XDG_RUNTIME_DIR=\(runtime.path)"]
        let daemon = try BackgroundCommand(
            URL(fileURLWithPath: setpriv),
            Array(asNobody.dropFirst()) + environment + [runway, "run", "--config", config.path]
        )
        defer { daemon.close() }
        let socket = runtime.path + "/runway/control.sock"
        try waitUntil("the daemon's socket at \(socket)\n\(daemon.output)") {
            guard daemon.process.isRunning else { throw HarnessError(description: "daemon exited:\n\(daemon.output)") }
            return FileManager.default.fileExists(atPath: socket)
        }
        var info = stat()
        try #require(lstat(runtime.path + "/runway", &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700, "mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(info.st_uid == nobody)

        // The CLI of the same user, with neither --socket nor ControlSocket, finds the same path.
        let status = try shell(
            asNobody[0],
            Array(asNobody.dropFirst()) + environment + [runway, "status", "--config", config.path]
        )
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("socket \(socket)"), "\(status.output)")
        #expect(status.output.contains("com.example.alpha"), "\(status.output)")

        kill(daemon.process.processIdentifier, SIGTERM)
        try waitUntil("the daemon to stop\n\(daemon.output)") { !daemon.process.isRunning }
        #expect(daemon.process.terminationStatus == 0, "\(daemon.output)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed at exit")
    }

    @Test(
        .enabled(if: canSwitchUser, "needs root and setpriv to run the daemon as another user"),
        arguments: [("open to all", nobody, 0o777 as mode_t), ("owned by root", 0, 0o700 as mode_t)]
    )
    func K1_defaultSocketDirectoryThatIsNotPrivateIsRefused(_ label: String, owner: UInt32, mode: mode_t) throws {
        let runtime = try ScratchDirectory(owner: nobody, mode: 0o700)
        defer { runtime.remove() }
        let directory = runtime.path + "/runway"
        try #require(mkdir(directory, mode) == 0 && chmod(directory, mode) == 0 && chown(directory, owner, owner) == 0)
        let config = try Self.configWithoutControlSocket()
        defer { config.remove() }
        let runway = try RunwayBinary.executableForOtherUsers().path

        let result = try shell(
            "/usr/bin/timeout",
            ["20"] + asNobody + [
                "/usr/bin/env", "XDG_RUNTIME_DIR=\(runtime.path)", runway, "run", "--config", config.path,
            ]
        )

        #expect(result.status == 69, "\(label): \(result.output)")
        let problem = owner == nobody ? "has mode 0777" : "is owned by uid 0"
        #expect(result.output.contains("control socket directory \(directory) \(problem)"), "\(result.output)")
        #expect(result.output.contains("owned by uid 65534, the daemon's user, with mode 0700"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/control.sock"))
    }

    @Test func K1_defaultSocketDirectoryIsCreatedPrivateAndChecked() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let uid = getuid()
        // Missing: created with mode 0700 whatever the umask.
        let created = scratch.path + "/created"
        let oldMask = umask(0o277)
        let prepared = Result { () throws(ControlSocketDirectoryError) in
            try ControlSocketDirectory.prepare(created, uid: uid)
        }
        umask(oldMask)
        try prepared.get()
        var info = stat()
        try #require(lstat(created, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        // Already there and private: fine, twice.
        try ControlSocketDirectory.prepare(created, uid: uid)

        func problem(_ path: String) -> String? {
            do {
                try ControlSocketDirectory.prepare(path, uid: uid)
                return nil
            } catch {
                return error.description
            }
        }
        // A symbolic link to a private directory is refused: lstat, not stat.
        let link = scratch.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: created)
        #expect(
            problem(link)?.hasPrefix("control socket directory \(link) is a symbolic link, not a directory") == true
        )
        // Group or others may enter: refused.
        let open = scratch.path + "/open"
        try #require(mkdir(open, 0o700) == 0 && chmod(open, 0o750) == 0)
        #expect(problem(open)?.hasPrefix("control socket directory \(open) has mode 0750") == true)
        // Another owner: refused.
        let foreign = scratch.path + "/foreign"
        try #require(mkdir(foreign, 0o700) == 0)
        if uid == 0 {
            try #require(chown(foreign, nobody, nobody) == 0)
            #expect(problem(foreign)?.hasPrefix("control socket directory \(foreign) is owned by uid 65534") == true)
        }
        // A regular file: refused, and left alone.
        let file = scratch.path + "/file"
        try "keep".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(problem(file)?.contains("is a regular file, not a directory") == true)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")
        // Its parent is missing: cannot be created, said so.
        #expect(problem(scratch.path + "/missing/runway")?.contains("cannot be created (No such file") == true)
    }

    @Test(arguments: ["regular file", "symbolic link"])
    func controlSocketOnAnotherKindOfFileIsAnErrorAndTheFileStays(_ kind: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("com.example.alpha.plist", identifier: "com.example.alpha")
        let precious = try config.write("precious.txt", "keep me")
        var socket = precious
        if kind == "symbolic link" {
            socket = config.path + "/link.sock"
            try FileManager.default.createSymbolicLink(atPath: socket, withDestinationPath: precious)
        }
        try config.write(
            "Runway.plist",
            plistXML(
                "<key>MemoryPressureSource</key><string>off</string>"
                    + "<key>ControlSocket</key><string>\(socket)</string>"
            )
        )

        let result = try shell(
            "/usr/bin/timeout",
            ["20", try RunwayBinary.executable().path, "run", "--config", config.path]
        )

        #expect(result.status == 69, "\(result.output)")
        #expect(
            result.output.contains(
                "control socket \(socket): a \(kind) is in the way, and only a stale socket is ever removed, "
                    + "so nothing was deleted"
            ),
            "\(result.output)"
        )
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "keep me")
        var info = stat()
        #expect(lstat(socket, &info) == 0, "\(socket) is still there")

        // A stale socket (bound, nobody listening) is still replaced: the daemon starts on it.
        let stale = "/tmp/runway-stale-\(UUID().uuidString.prefix(8)).sock"
        defer { _ = unlink(stale) }
        try leaveStaleSocket(at: stale)
        let daemon = try BackgroundCommand(
            try RunwayBinary.executable(),
            ["run", "--config", config.path, "--socket", stale]
        )
        defer { daemon.close() }
        try waitUntil("the daemon to serve \(stale)\n\(daemon.output)") {
            guard daemon.process.isRunning else { throw HarnessError(description: "daemon exited:\n\(daemon.output)") }
            return (try? ControlClient(path: stale).request(ControlRequest(command: "status")))?.ok == true
        }
    }

    /// A configuration with one embedded app and no ControlSocket, readable by every user.
    static func configWithoutControlSocket() throws -> TemporaryConfig {
        let config = try TemporaryConfig()
        try config.write("Runway.plist", plistXML("<key>MemoryPressureSource</key><string>off</string>"))
        try config.writeApp("com.example.alpha.plist", identifier: "com.example.alpha")
        for path in [config.path, config.path + "/Apps"] { chmod(path, 0o755) }
        return config
    }
}
