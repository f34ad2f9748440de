import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// The state restoration keys (Docs/Configuration.md, Behaviour.md R1, R4, R5): `StateRestorationByteLimit` and
/// `StateRestorationCrashWindow` in `Runway.plist`, `RunwayStateVersion` in an app's Info.plist.
@Suite struct RestorationKeyTests {
    @Test func R1_theStateLimitDefaultsToOneMebibyteAndABadOneIsAnErrorNamingTheKey() throws {
        let defaults = try loadOneApp("")
        #expect(defaults.daemon.stateRestorationByteLimit == 1_048_576)
        #expect(defaults.settings.stateRestorationCrashWindow == .seconds(30))
        let set = try loadOneApp(
            "<key>RunwayStateVersion</key><string>v2</string>",
            settings: "<key>StateRestorationByteLimit</key><integer>4096</integer>"
                + "<key>StateRestorationCrashWindow</key><real>2.5</real>"
        )
        #expect(set.daemon.stateRestorationByteLimit == 4_096)
        #expect(set.settings.stateRestorationCrashWindow == .milliseconds(2_500))
        #expect(set.apps[0].descriptor.stateVersion == "v2")
        for bad in ["<integer>0</integer>", "<integer>16777217</integer>"] {
            let (error, file) = try oneAppLoadError(settings: "<key>StateRestorationByteLimit</key>" + bad)
            expectError(
                error,
                code: .invalidValue,
                file: file,
                keyPath: "StateRestorationByteLimit",
                found: bad.contains("0<") ? "integer 0" : "integer 16777217",
                expectedContains: "from 1 to 16777216 (bytes of one app's preserved state)"
            )
        }
        let (error, file) = try oneAppLoadError(app: "<key>RunwayStateVersion</key><string></string>")
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "RunwayStateVersion",
            found: "string \"\"",
            expectedContains: "a string of 1 to 256 bytes"
        )
    }

    @Test func R5_aStateVersionWithAControlCharacterIsAnErrorNamingTheKey() throws {
        for bad in ["v1\nv2", "v1\tv2"] {
            let (error, file) = try oneAppLoadError(app: "<key>RunwayStateVersion</key><string>\(bad)</string>")
            expectError(
                error,
                code: .invalidValue,
                file: file,
                keyPath: "RunwayStateVersion",
                found: "string \(bad.debugDescription)",
                expectedContains: "without control characters"
            )
        }
    }

    @Test func R1_theWriteIntervalDefaultsToOneSecondAndABadOneIsAnErrorNamingTheKey() throws {
        #expect(try loadOneApp("").daemon.stateRestorationWriteInterval == .seconds(1))
        let set = try loadOneApp("", settings: "<key>StateRestorationWriteInterval</key><real>0.25</real>")
        #expect(set.daemon.stateRestorationWriteInterval == .milliseconds(250))
        let none = try loadOneApp("", settings: "<key>StateRestorationWriteInterval</key><integer>0</integer>")
        #expect(none.daemon.stateRestorationWriteInterval == .zero)
        for bad in ["<real>-1</real>", "<integer>3601</integer>"] {
            let (error, file) = try oneAppLoadError(settings: "<key>StateRestorationWriteInterval</key>" + bad)
            expectError(
                error,
                code: .invalidValue,
                file: file,
                keyPath: "StateRestorationWriteInterval",
                found: bad.contains("-1") ? "real -1.0" : "integer 3601",
                expectedContains: "a number of seconds from 0 to 3600"
            )
        }
    }
}
