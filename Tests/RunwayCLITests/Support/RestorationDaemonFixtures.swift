import Foundation
import RunwayControl
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The counting protocol app of `RestorationDaemonTests` and the daemon around it.
extension RestorationDaemonTests {
    /// The counting app. argv: its log file, then a mode: `plain`, `crash-on-restore` (exits 3 right after a
    /// restored launch's didFinishLaunching), `torn-and-big` (after the good state: two parts over a 4 KiB limit,
    /// the rest of that state up to its final part, then a part of a new state left unfinished), `preserve-once`
    /// (preserves only at a launch from nothing), `discard` (preserves, then discards), `megabyte` (preserves 1 MiB
    /// of `"`, which JSON doubles, in 64 parts).
    static let script = #"""
        import json, os, socket, sys
        sock = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
        log = open(sys.argv[1], "a", buffering=1)
        mode = sys.argv[2]
        def send(obj):
            sock.sendall((json.dumps(obj) + "\n").encode())
        buf, restored, request = b"", [], 0
        if mode == "megabyte":
            # Asked before reading anything: its reply is written while the restored lines are still unread.
            send({"type": "backgroundTimeRemaining", "request": 0})
        while True:
            while b"\n" not in buf:
                data = sock.recv(65536)
                if not data:
                    sys.exit(0)
                buf += data
            raw, buf = buf.split(b"\n", 1)
            line = json.loads(raw)
            kind = line["type"]
            if kind == "restoredState":
                restored.append(line["state"])
            elif kind in ("reply", "error"):
                code, text = line.get("code", ""), line.get("error", "")
                log.write("%s request=%s code=%s %s\n" % (kind, line.get("request"), code, text))
            elif kind == "message":
                send({"type": "ack", "token": line["token"]})
                if line["message"] != "didFinishLaunching":
                    continue
                restoration = line.get("restoration", "none")
                state = "".join(restored)
                if mode == "megabyte":
                    quotes = set(state) <= {'"'}
                    log.write("launch restoration=%s bytes=%d quotes=%s\n" % (restoration, len(state), quotes))
                    for index in range(64):
                        request += 1
                        send({"type": "preserveState", "request": request, "state": '"' * 16384, "more": index < 63})
                    continue
                count = int(state) if state else 0
                log.write("launch restoration=%s count=%d\n" % (restoration, count))
                if mode == "crash-on-restore" and restoration != "none":
                    os._exit(3)
                if mode == "preserve-once" and restoration != "none":
                    continue
                request += 1
                send({"type": "preserveState", "request": request, "state": str(count + 1)})
                if mode == "discard":
                    request += 1
                    send({"type": "discardState", "request": request})
                if mode == "torn-and-big":
                    parts = (("7" * 3000, True), ("7" * 3000, True), ("999", True), ("", False), ("5", True))
                    for part, more in parts:
                        request += 1
                        send({"type": "preserveState", "request": request, "state": part, "more": more})
        """#

    struct Fixture {
        let daemon: DaemonProcess
        let log: String
        let app: String

        /// What the app logged.
        var lines: [String] {
            ((try? String(contentsOfFile: self.log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// Waits until the app logged `line` `count` times in all.
        func waitFor(_ line: String, count: Int = 1, in daemon: DaemonProcess? = nil) throws {
            let daemon = daemon ?? self.daemon
            try waitUntil("'\(line)' x\(count) in \(self.lines)\n\(daemon.output)") {
                self.lines.filter { $0.hasPrefix(line) }.count >= count
            }
        }
    }

    /// The app's Info.plist keys: the counter in `mode`, plus `keys`.
    static func appKeys(_ files: String, mode: String, _ keys: String = "") -> String {
        "<key>ProgramArguments</key><array><string>python3</string><string>\(files)/counter.py</string>"
            + "<string>\(files)/log</string><string>\(mode)</string></array>"
            + "<key>RunwayProtocol</key><integer>1</integer>" + keys
    }

    func start(mode: String, settings: String = "", bootID: String, keys: String = "") throws -> Fixture {
        let app = "com.test.counter\(UUID().uuidString.prefix(6).lowercased())"
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try Self.script.write(toFile: files + "/counter.py", atomically: true, encoding: .utf8)
        try bootID.write(toFile: files + "/boot_id", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            apps: [app: Self.appKeys(files, mode: mode, keys)],
            settings: settings,
            arguments: ["--boot-id-file", files + "/boot_id"]
        )
        return Fixture(daemon: daemon, log: files + "/log", app: app)
    }

    /// Sends the app home and waits until it is suspended.
    func suspend(_ fixture: Fixture, on daemon: DaemonProcess) throws {
        #expect(try daemon.cli("home", fixture.app).status == 0)
        try waitUntil("suspended\n\(daemon.output)") { try daemon.status(fixture.app).state == "suspended" }
    }

    /// Kills `daemon` with SIGKILL, waits until it is gone, and starts a new one on its configuration.
    func restart(after daemon: DaemonProcess) throws -> DaemonProcess {
        let pid = daemon.process.processIdentifier
        kill(pid, SIGKILL)
        try waitUntil("the killed daemon to exit") { kill(pid, 0) != 0 || Self.isZombie(pid) }
        try waitUntil("the killed daemon's socket to close") { (try? daemon.client()) == nil }
        return try DaemonProcess(restarting: daemon)
    }

    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }
}
