import Foundation
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `runway validate` on the resource limit keys, run as a real process: what it can tell in advance about a limit
/// the daemon could not apply (Docs/Configuration.md, "Resource limits").
@Suite struct ValidateLimitTests {
    static let prlimit = "/usr/bin/prlimit"
    static let setpriv = "/usr/bin/setpriv"
    static var canDropToNobody: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: Self.prlimit)
            && FileManager.default.isExecutableFile(atPath: Self.setpriv)
    }

    @Test(
        "A soft limit above the process's hard limit is a warning naming the key for a non-root user, not for root",
        .enabled(if: ValidateLimitTests.canDropToNobody, "needs root, prlimit and setpriv to run validate as nobody")
    )
    func aLimitAboveTheHardLimitNeedsRoot() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "a.plist",
            identifier: "com.example.a",
            """
            <key>ProgramArguments</key><array><string>/bin/true</string></array>
            <key>SoftResourceLimits</key><dict><key>NumberOfFiles</key><integer>4096</integer></dict>
            """
        )
        let hardLimit = [Self.prlimit, "--nofile=1024:1024"]
        let nobody = hardLimit + [Self.setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        let asNobody = try RunwayBinary.run(["validate", "--config", config.path], launcher: nobody)
        #expect(asNobody.status == 0, "\(asNobody)")
        #expect(
            asNobody.stderr.contains(
                "warning: \(file): SoftResourceLimits.NumberOfFiles: 4096 is above this process's hard limit (1024): "
                    + "raising a hard limit needs root (CAP_SYS_RESOURCE)"
            ),
            "\(asNobody)"
        )
        // --strict turns it into a failure.
        let strict = try RunwayBinary.run(["validate", "--strict", "--config", config.path], launcher: nobody)
        #expect(strict.status == 1, "\(strict)")
        let asRoot = try RunwayBinary.run(["validate", "--config", config.path], launcher: hardLimit)
        #expect(asRoot.status == 0, "\(asRoot)")
        // The containment note (the app runs as the daemon's user) is the only warning root gets.
        let rootWarnings = asRoot.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(rootWarnings.allSatisfy { $0.contains("is not contained") }, "\(asRoot)")
        #expect(!asRoot.stderr.contains("SoftResourceLimits"), "\(asRoot)")
    }
}
