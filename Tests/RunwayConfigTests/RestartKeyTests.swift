import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// The autostart and restart keys (Docs/Configuration.md): `RunAtLoad`, `KeepAlive`, `ThrottleInterval` in an app's
/// Info.plist; `RestartBackoffLimit`, `RestartBackoffReset`, `CrashLoopThreshold`, `StateDirectory` and
/// `RunHistoryLimit` in `Runway.plist`.
@Suite struct RestartKeyTests {
    @Test func keepAliveForms() throws {
        func policy(_ keys: String) throws -> RestartPolicy? { try loadOneApp(keys).apps[0].descriptor.keepAlive }
        #expect(try policy("") == nil)
        #expect(try policy("<key>KeepAlive</key><false/>") == nil)
        #expect(try policy("<key>KeepAlive</key><true/>") == RestartPolicy(conditions: [.always]))
        #expect(
            try policy("<key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>")
                == RestartPolicy(conditions: [.successfulExit(false)])
        )
        #expect(
            try policy(
                "<key>KeepAlive</key><dict><key>SuccessfulExit</key><true/><key>Crashed</key><true/></dict>"
                    + "<key>ThrottleInterval</key><real>0.2</real>"
            )
                == RestartPolicy(
                    conditions: [.crashed(true), .successfulExit(true)],
                    throttleInterval: .milliseconds(200)
                )
        )
        let app = try loadOneApp("<key>RunAtLoad</key><true/>").apps[0].descriptor
        #expect(app.runAtLoad == true)
        #expect(app.launchCommand == .launch)
    }

    @Test func badKeepAliveNamesTheKeyPath() throws {
        var (error, file) = try oneAppLoadError(app: "<key>KeepAlive</key><string>yes</string>")
        expectError(
            error,
            code: .wrongType,
            file: file,
            keyPath: "KeepAlive",
            found: "string \"yes\"",
            expectedContains: "a boolean, or a dictionary with SuccessfulExit and/or Crashed"
        )
        (error, file) = try oneAppLoadError(app: "<key>KeepAlive</key><dict><key>PathState</key><true/></dict>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "KeepAlive.PathState",
            found: "boolean true",
            expectedContains: "SuccessfulExit or Crashed"
        )
        (error, file) = try oneAppLoadError(app: "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>0</real>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "ThrottleInterval",
            found: "real 0.0",
            expectedContains: "seconds >= 0.1"
        )
        // Below the floor of 0.1 s: at most ten restarts a second.
        (error, file) = try oneAppLoadError(
            app: "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>0.001</real>"
        )
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "ThrottleInterval",
            found: "real 0.001",
            expectedContains: "at most ten restarts a second"
        )
    }

    @Test func settingsKeysAndTheirBounds() throws {
        let configuration = try loadOneApp(
            "",
            settings: "<key>RestartBackoffLimit</key><real>0.8</real><key>RestartBackoffReset</key><real>30</real>"
                + "<key>CrashLoopThreshold</key><integer>3</integer><key>RunHistoryLimit</key><integer>4</integer>"
                + "<key>StateDirectory</key><string>/var/lib/runway</string>"
        )
        #expect(configuration.warnings == [])
        #expect(configuration.settings.restartBackoffLimit == .milliseconds(800))
        #expect(configuration.settings.restartBackoffReset == .seconds(30))
        #expect(configuration.settings.crashLoopThreshold == 3)
        #expect(configuration.daemon.runHistoryLimit == 4)
        #expect(configuration.daemon.stateDirectory == "/var/lib/runway")
        let defaults = try loadOneApp("")
        #expect(defaults.settings.restartBackoffLimit == .seconds(300))
        #expect(defaults.settings.restartBackoffReset == .seconds(600))
        #expect(defaults.settings.crashLoopThreshold == 5)
        #expect(defaults.daemon.runHistoryLimit == 10)
        #expect(defaults.daemon.stateDirectory == nil)

        var (error, file) = try oneAppLoadError(settings: "<key>RestartBackoffLimit</key><real>0.001</real>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "RestartBackoffLimit",
            found: "real 0.001",
            expectedContains: "seconds >= 0.1"
        )
        (error, file) = try oneAppLoadError(settings: "<key>RunHistoryLimit</key><integer>0</integer>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "RunHistoryLimit",
            found: "integer 0",
            expectedContains: "from 1 to 1000"
        )
        (error, file) = try oneAppLoadError(settings: "<key>CrashLoopThreshold</key><integer>0</integer>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "CrashLoopThreshold",
            found: "integer 0",
            expectedContains: "from 1 to 1000"
        )
    }

    @Test func restartRateLimitSetsTheSpacingOfRestartsAndIsBounded() throws {
        let configuration = try loadOneApp("", settings: "<key>RestartRateLimit</key><integer>200</integer>")
        #expect(configuration.settings.restartSpacing == .milliseconds(5))
        #expect(try loadOneApp("").settings.restartSpacing == .milliseconds(20))
        for bad in ["<integer>0</integer>", "<integer>1001</integer>"] {
            let (error, file) = try oneAppLoadError(settings: "<key>RestartRateLimit</key>" + bad)
            expectError(
                error,
                code: .invalidValue,
                file: file,
                keyPath: "RestartRateLimit",
                found: bad.contains("1001") ? "integer 1001" : "integer 0",
                expectedContains: "from 1 to 1000 (restarts a second, over every app)"
            )
        }
    }

    @Test func throttleIntervalWithoutKeepAliveIsIgnoredWithAWarning() throws {
        let configuration = try loadOneApp("<key>ThrottleInterval</key><real>2</real>")
        #expect(configuration.warnings.map(\.keyPath) == ["ThrottleInterval"])
        #expect(configuration.apps[0].descriptor.keepAlive == nil)
    }
}
