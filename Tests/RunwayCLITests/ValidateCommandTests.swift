import Foundation
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `runway validate --config DIR [--strict]` run as a real process (C2).
@Suite struct ValidateCommandTests {
    static let shippedIdentifiers = [
        "com.example.notes", "com.example.player", "com.example.sync", "com.example.uploader",
        "com.example.watcher", "com.example.weather", "com.example.worker",
    ]

    @Test func C2_validateShippedConfigExitsZero() throws {
        let result = try RunwayBinary.run("validate", "--config", RunwayBinary.shippedConfig)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("valid"), "\(result)")
        #expect(result.stdout.contains("7 apps"), "\(result)")
        #expect(result.stdout.contains("RunAtLoad (launchInBackground)"), "\(result)")
        #expect(result.stdout.contains("KeepAlive SuccessfulExit=false, ThrottleInterval 1.000s"), "\(result)")
        for identifier in Self.shippedIdentifiers {
            // The identifier followed by the two spaces that separate it from its summary, so that
            // "com.example.sync" cannot be matched inside a longer identifier.
            #expect(result.stdout.contains("  \(identifier)  "), "missing \(identifier)\n\(result)")
        }
        // The shipped apps run as the daemon's user: each process app is named as not contained, and nothing else.
        let warnings = result.stderr.split(separator: "\n").filter { $0.lowercased().contains("warning") }
        #expect(warnings.allSatisfy { $0.contains("is not contained") }, "\(result)")
        #expect(!result.stderr.lowercased().contains("error"), "\(result)")
    }

    @Test func C1_validateShowsTheOverrunNoticeWhenOverrunSignalLeadIsSet() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>OverrunSignalLead</key><integer>2</integer>"))
        let result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("overrun terminate (SIGTERM 2.000s before the deadline), "), "\(result)")
    }

    @Test func P6_validateNamesProcessAppsADaemonOfItsUserCannotContainWithoutFailingStrict() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let program = "<key>ProgramArguments</key><array><string>/bin/true</string></array>"
        try config.writeApp("com.example.own.plist", identifier: "com.example.own", program)
        // Another user than this command's: nobody, or root when this runs as nobody.
        try config.writeApp(
            "com.example.other.plist",
            identifier: "com.example.other",
            program + "<key>UserName</key><string>\(geteuid() == 65_534 ? "root" : "nobody")</string>"
        )
        let result = try RunwayBinary.run("validate", "--config", config.path, "--strict")
        #expect(result.status == 0, "a containment note is not a configuration problem\n\(result)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == (geteuid() == 65_534 ? 2 : 1), "\(result)")
        #expect(warnings.contains { $0.contains("com.example.own is not contained") }, "\(result)")
    }

    @Test func C2_validateBadConfigExitsOneNamingFileAndKey() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp(
            "com.example.bad-budget.plist",
            identifier: "com.example.badbudget",
            "<key>RunwayBackgroundTimeBudget</key><string>thirty</string>"
        )
        let result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("com.example.bad-budget.plist"), "\(result)")
        #expect(result.stderr.contains("RunwayBackgroundTimeBudget"), "\(result)")
        #expect(result.stderr.contains("expected"), "\(result)")
        // What was found, with its property-list type (Docs/Configuration.md, Errors).
        #expect(result.stderr.contains(#"string "thirty""#), "\(result)")
        #expect(!result.stdout.contains("valid"), "a rejected config must not be reported valid\n\(result)")
    }

    @Test(arguments: [
        ("garbage.plist", "this is { not a property list"),
        ("missing-value.plist", "<plist version=\"1.0\"><dict><key>CFBundleIdentifier</key></dict></plist>"),
        ("array-root.plist", "<plist version=\"1.0\"><array><string>com.example.a</string></array></plist>"),
        ("openstep.plist", "{ CFBundleIdentifier = \"com.example.openstep\"; }"),
    ])
    func C2_validateMalformedPlistExitsOne(fileName: String, contents: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("com.example.good.plist", identifier: "com.example.good")
        try config.write("Apps/" + fileName, contents)
        let result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(fileName), "\(result)")
        #expect(result.stderr.contains("expected a property list"), "\(result)")
        #expect(!result.stdout.contains("valid"), "\(result)")
    }

    @Test(arguments: [
        ("com.example.dup", "com.example.dup"),
        // Compared ignoring case, as on iOS.
        ("com.example.Dup", "com.example.dup"),
    ])
    func C2_validateDuplicateIdentifiersExitsOne(first: String, second: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("1-original.plist", identifier: first)
        try config.writeApp("2-copy.plist", identifier: second)
        let result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("1-original.plist"), "\(result)")
        #expect(result.stderr.contains("2-copy.plist"), "\(result)")
        #expect(result.stderr.contains("CFBundleIdentifier"), "\(result)")
        #expect(!result.stdout.contains("valid"), "\(result)")
    }

    @Test func C2_validateStrictFailsOnUnknownKey() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp(
            "com.example.typo.plist",
            identifier: "com.example.typo",
            "<key>RunwayFrobnicateLevel</key><integer>3</integer>"
        )

        let lenient = try RunwayBinary.run("validate", "--config", config.path)
        #expect(lenient.status == 0, "an unknown key is only a warning without --strict\n\(lenient)")
        let warnings = lenient.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(
            warnings.contains { $0.contains("RunwayFrobnicateLevel") && $0.contains("com.example.typo.plist") },
            "\(lenient)"
        )
        #expect(lenient.stdout.contains("com.example.typo"), "\(lenient)")

        let strict = try RunwayBinary.run("validate", "--config", config.path, "--strict")
        #expect(strict.status == 1, "--strict must fail on a warning\n\(strict)")
        #expect(strict.stderr.contains("RunwayFrobnicateLevel"), "\(strict)")

        // --strict alone does not fail a clean config: the exit 1 above is the warning's doing.
        let clean = try RunwayBinary.run("validate", "--config", RunwayBinary.shippedConfig, "--strict")
        #expect(clean.status == 0, "\(clean)")
    }
}
