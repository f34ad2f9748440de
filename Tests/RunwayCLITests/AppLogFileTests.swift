import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `StandardOutPath` / `StandardErrorPath`: a process app's lines appended to files with size-bounded rotation,
/// never through a planted link or into another user's file; bad keys named. Real daemon, real children.
@Suite("runway logs: output files", .serialized)
struct AppLogFileTests {
    @Test("StandardOutPath and StandardErrorPath: the lines are appended, and rotation bounds the files")
    func rotationBoundsTheFiles() throws {
        let app = "com.test.logs.files"
        let files = try AppLogFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let log = files + "/app.log"
        // 3,000 lines of about 110 bytes with their stamps: about 330 KB, five times the 64 KiB limit.
        let payload = String(repeating: "x", count: 70)
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "echo to-stderr >&2; i=0; while [ $i -lt 3000 ]; do echo line-$i-\(payload); i=$((i+1)); done",
                extra: "<key>StandardOutPath</key><string>\(log)</string>"
                    + "<key>StandardErrorPath</key><string>\(log)</string>"
                    + "<key>LogFileSizeLimit</key><integer>65536</integer><key>LogFileCount</key><integer>3</integer>"
            )
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the last line\n\(daemon.output)") {
            try daemon.cli("logs", app, "-n", "1", "--stream", "stdout").stdout.contains("line-2999-")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: files).sorted()
        #expect(names == ["app.log", "app.log.1", "app.log.2"], "\(names)")
        for name in names {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: files + "/" + name)[.size] as? Int)
            #expect(size <= 65_536, "\(name) has \(size) bytes")
            #expect(size > 0, "\(name) is empty")
        }
        let newest = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(newest.last?.hasSuffix(" stdout line-2999-\(payload)") == true, "\(newest.last ?? "")")
        for line in newest { #expect(String(line).wholeMatch(of: AppLogFixtures.stamped) != nil, "\(line)") }
        // The three files hold the newest lines, in order, without a gap.
        let kept = try names.reversed().flatMap { try String(contentsOfFile: files + "/" + $0, encoding: .utf8) }
        let numbers = String(kept).split(separator: "\n").compactMap { line in
            line.firstMatch(of: #/stdout line-(\d+)-/#).map { Int($0.1)! }
        }
        #expect(numbers.last == 2999 && numbers == Array((numbers.first ?? 0)...2999), "\(numbers.prefix(5))")
        #expect(numbers.count < 3000, "rotation dropped the oldest file")
    }

    @Test("An output file path that is a planted symbolic link is not followed")
    func plantedSymbolicLinkIsNotFollowed() throws {
        let app = "com.test.logs.symlink"
        let files = try AppLogFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let target = files + "/target"
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        try FileManager.default.createSymbolicLink(atPath: files + "/app.log", withDestinationPath: target)
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "echo secret",
                extra: "<key>StandardOutPath</key><string>\(files)/app.log</string>"
            )
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the line in the ring\n\(daemon.output)") {
            try daemon.cli("logs", app).stdout.contains("secret")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8).isEmpty, "the link was followed")
        try waitUntil("the daemon's warning\n\(daemon.output)") {
            daemon.output.contains("cannot open \(files)/app.log")
        }
    }

    @Test("An output file with another hard link, or another user's, is not written")
    func plantedHardLinkOrAnotherUsersFileIsNotWritten() throws {
        let app = "com.test.logs.planted"
        let files = try AppLogFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        // A hard link planted at the path: the daemon must not append to the file it names.
        let target = files + "/target"
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        #expect(link(target, files + "/app.log") == 0)
        // A file another user created at the other path (only root can make one here).
        let foreign = files + "/foreign.log"
        _ = FileManager.default.createFile(atPath: foreign, contents: nil)
        let asRoot = geteuid() == 0
        if asRoot { #expect(chown(foreign, 65_534, 65_534) == 0) }
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "echo secret; echo secret >&2; trap 'exit 0' TERM; while :; do sleep 0.05; done",
                extra: "<key>StandardOutPath</key><string>\(files)/app.log</string>"
                    + "<key>StandardErrorPath</key><string>\(foreign)</string>"
            )
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("both lines in the ring\n\(daemon.output)") {
            try daemon.cli("logs", app).stdoutLines.count == 2
        }
        try waitUntil("the daemon's warning\n\(daemon.output)") { daemon.output.contains("2 hard links") }
        #expect(try String(contentsOfFile: target, encoding: .utf8).isEmpty, "the hard link was written")
        if asRoot {
            try waitUntil("the daemon's warning\n\(daemon.output)") { daemon.output.contains("belongs to uid 65534") }
            #expect(try String(contentsOfFile: foreign, encoding: .utf8).isEmpty, "another user's file was written")
        }
    }

    @Test("Bad output file keys: the error names the file, the key and what was expected")
    func badOutputFileKeys() throws {
        let cases: [(String, String)] = [
            ("<key>StandardOutPath</key><string>logs/app.log</string>", "StandardOutPath"),
            ("<key>StandardErrorPath</key><string>/nonexistent-runway-dir/app.log</string>", "StandardErrorPath"),
            ("<key>LogFileSizeLimit</key><integer>10</integer>", "LogFileSizeLimit"),
            ("<key>LogFileCount</key><integer>0</integer>", "LogFileCount"),
        ]
        for (keys, key) in cases {
            let config = try TemporaryConfig()
            defer { config.remove() }
            let file = try config.writeApp(
                "bad.plist",
                identifier: "com.test.bad",
                AppLogFixtures.shell("true", extra: keys)
            )
            let result = try RunwayBinary.run(["validate", "--config", config.path])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains(file) && result.stderr.contains(key), "\(result)")
        }
    }
}
