import Foundation
import RunwayConfig
@_spi(Processes) import RunwayCore
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Only regular files are read as config, never waiting on one, and never more than the size
/// limit. And the default control socket path.
@Suite("C2: only regular config files are read, without blocking; K1: the default socket path")
struct FileKindTests {
    /// Loads `directory` on a thread of its own and gives up after `timeout`: a loader that blocks makes the test
    /// fail instead of hanging the suite. On a timeout, `release` is run to unblock it.
    static func loadWithin(
        _ timeout: Double,
        _ directory: String,
        release: () -> Void
    ) -> Result<RunwayConfiguration, ConfigError>? {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.set(Result { () throws(ConfigError) in try ConfigLoader.load(directory: directory) })
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + timeout) == .success else {
            release()
            done.wait()
            return nil
        }
        return box.get()
    }

    @Test func aFIFOInAppsIsRefusedByNameWithoutWaiting() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("a-good.plist", identifier: "com.example.good")
        let fifo = config.path + "/Apps/b-fifo.plist"
        try #require(mkfifo(fifo, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")

        let started = ContinuousClock.now
        let result = Self.loadWithin(10, config.path) {
            // A loader blocked in open(2) for reading is released by a writer opening and closing the FIFO.
            let fd = open(fifo, O_WRONLY)
            if fd >= 0 { close(fd) }
        }
        let elapsed = ContinuousClock.now - started
        guard let result else {
            Issue.record("loading a config with a FIFO in Apps/ blocked for 10 s")
            return
        }
        #expect(elapsed < .seconds(5), "took \(elapsed)")
        guard case .failure(let error) = result else {
            Issue.record("a FIFO in Apps/ loaded: \(result)")
            return
        }
        expectError(
            error,
            code: .unreadableFile,
            file: fifo,
            keyPath: nil,
            found: "a FIFO (named pipe), not a regular file",
            expectedContains: "a readable regular file of at most 1 MiB"
        )
    }

    @Test func aCharacterDeviceAsRunwayPlistIsRefusedByName() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        // /dev/zero never ends: read as a file, it would be "larger than 1 MiB"; it is refused for what it is.
        let file = config.path + "/Runway.plist"
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")

        expectError(
            loadError(config.path),
            code: .unreadableFile,
            file: file,
            keyPath: nil,
            found: "a character device, not a regular file",
            expectedContains: "(the size limit of a config file)"
        )
    }

    @Test func aSymbolicLinkToARegularFileIsStillRead() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let target = try config.write("elsewhere.plist", plistXML("<key>CFBundleIdentifier</key><string>a.b</string>"))
        try FileManager.default.createSymbolicLink(atPath: config.path + "/Apps/a.plist", withDestinationPath: target)

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.id.bundleIdentifier) == ["a.b"])
    }

    @Test func defaultControlSocketIsInAPrivateDirectoryPerUser() {
        // Root: /run/runway, whatever XDG_RUNTIME_DIR says.
        #expect(
            DaemonSettings.defaultControlSocketPath(uid: 0, runtimeDirectory: "/run/user/0")
                == "/run/runway/control.sock"
        )
        // Anyone else: $XDG_RUNTIME_DIR/runway when it is an absolute path.
        #expect(
            DaemonSettings.defaultControlSocketPath(uid: 1000, runtimeDirectory: "/run/user/1000")
                == "/run/user/1000/runway/control.sock"
        )
        #expect(
            DaemonSettings.defaultControlSocketPath(uid: 1000, runtimeDirectory: "/run/user/1000//")
                == "/run/user/1000/runway/control.sock"
        )
        // Unset, empty or relative (ignored, as the XDG specification says): a directory of its own in /tmp, never
        // a socket directly in world-writable /tmp.
        for value in [nil, "", "run/user/1000"] {
            #expect(
                DaemonSettings.defaultControlSocketPath(uid: 1000, runtimeDirectory: value)
                    == "/tmp/runway-1000/control.sock",
                "XDG_RUNTIME_DIR \(String(describing: value))"
            )
        }
    }
}

/// The result of a load, handed from the loading thread to the test's.
private final class ResultBox: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Result<RunwayConfiguration, ConfigError>?

    func set(_ value: Result<RunwayConfiguration, ConfigError>) {
        self.lock.withLock { self.value = value }
    }

    func get() -> Result<RunwayConfiguration, ConfigError>? {
        self.lock.withLock { self.value }
    }
}
