import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// `OverrunSignalLead` in `Runway.plist` (B11; C1, C2): seconds from 0 to `BackgroundTimeBudget`, default 0.
@Suite struct OverrunSignalLeadKeyTests {
    @Test func C1_overrunSignalLeadMapsToItsSettingAndDefaultsToNone() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>OverrunSignalLead</key><real>2.5</real>"))
        let configuration = try ConfigLoader.load(directory: config.path)
        #expect(configuration.warnings == [])
        #expect(configuration.settings.overrunSignalLead == .milliseconds(2_500))

        try config.write("Runway.plist", plistXML(""))
        #expect(try ConfigLoader.load(directory: config.path).settings.overrunSignalLead == .zero)
    }

    @Test func C1_overrunSignalLeadMayEqualTheBudgetItIsCheckedAgainst() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>BackgroundTimeBudget</key><integer>10</integer>
                <key>OverrunSignalLead</key><integer>10</integer>
                """
            )
        )
        #expect(try ConfigLoader.load(directory: config.path).settings.overrunSignalLead == .seconds(10))
    }

    @Test(arguments: [
        ("<real>-1</real>", "real -1.0"),
        ("<integer>31</integer>", "integer 31"),
    ])
    func C2_anOverrunSignalLeadOutsideZeroToTheBudgetIsRejectedNamingTheKey(value: String, found: String) throws {
        try expectRunwayPlistValueRejected(
            key: "OverrunSignalLead",
            value: value,
            found: found,
            expected: "a number of seconds from 0 to BackgroundTimeBudget"
        )
    }
}
