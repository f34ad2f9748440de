import RunwayConfig
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The user keys (Docs/Configuration.md): launchd's `UserName`, `GroupName` and `InitGroups` in an app's Info.plist,
/// and the daemon-wide default `AppUserName` / `AppGroupName` in `Runway.plist`, resolved to ids when loaded.
@Suite struct UserKeyTests {
    func user(app keys: String, settings: String = "") throws -> AppUser? {
        guard case .process(let spec) = try loadOneApp(keys, settings: settings).apps[0].descriptor.kind else {
            return nil
        }
        return spec.user
    }

    func error(app keys: String, settings: String = "") throws -> (ConfigError?, String, String) {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML(settings))
        let file = try config.writeApp("a", identifier: "com.example.a", keys)
        return (loadError(config.path), file, config.path + "/Runway.plist")
    }

    @Test func C1_userNameResolvesToIdsWithTheUsersGroupsUnlessInitGroupsIsFalse() throws {
        #expect(try self.user(app: "") == nil)
        let nobody = try #require(try self.user(app: "<key>UserName</key><string>nobody</string>"))
        #expect(nobody == AppUser(name: "nobody", uid: 65_534, gid: 65_534, groups: [65_534]))
        let bare = try self.user(app: "<key>UserName</key><string>nobody</string><key>InitGroups</key><false/>")
        #expect(bare?.groups == [])
        let grouped = try self.user(
            app: "<key>UserName</key><string>nobody</string><key>GroupName</key><string>root</string>"
                + "<key>InitGroups</key><false/>"
        )
        #expect(grouped.map { ($0.uid, $0.gid) } ?? (1, 1) == (65_534, 0))
        let numeric = try self.user(
            app: "<key>UserName</key><string>4242</string><key>GroupName</key><string>4243</string>"
        )
        #expect(numeric == AppUser(name: "4242", uid: 4_242, gid: 4_243, groups: []))
        // A decimal uid in the database is that user, with its groups.
        #expect(try self.user(app: "<key>UserName</key><string>65534</string>")?.groups == [65_534])
    }

    @Test func C1_appUserNameIsTheDefaultOfProcessAppsWithoutUserName() throws {
        let settings = "<key>AppUserName</key><string>nobody</string>"
        #expect(try self.user(app: "", settings: settings)?.uid == 65_534)
        #expect(try self.user(app: "<key>UserName</key><string>root</string>", settings: settings)?.uid == 0)
    }

    @Test func C2_unknownUserOrGroupIsAnErrorNamingFileKeyAndValue() throws {
        var (error, file, settingsFile) = try self.error(app: "<key>UserName</key><string>no-such-user-x</string>")
        #expect(error != nil)
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "UserName",
            found: "string \"no-such-user-x\"",
            expectedContains: "no user \"no-such-user-x\" is known"
        )
        (error, file, _) = try self.error(
            app: "<key>UserName</key><string>nobody</string><key>GroupName</key><string>no-such-group-x</string>"
        )
        #expect(error != nil)
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "GroupName",
            found: "string \"no-such-group-x\"",
            expectedContains: "no group \"no-such-group-x\" is known"
        )
        (error, file, _) = try self.error(app: "<key>GroupName</key><string>nogroup</string>")
        #expect(error != nil)
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "GroupName",
            found: "string \"nogroup\"",
            expectedContains: "only together with UserName"
        )
        (error, _, settingsFile) = try self.error(
            app: "",
            settings: "<key>AppUserName</key><string>no-such-user-x</string>"
        )
        #expect(error != nil)
        expectError(
            error,
            code: .invalidValue,
            file: settingsFile,
            keyPath: "AppUserName",
            found: "string \"no-such-user-x\"",
            expectedContains: "no user"
        )
    }

    @Test func P6_validateNamesEveryProcessAppADaemonOfItsUserCannotContain() throws {
        let own = try loadOneApp("")
        let warnings = own.containmentWarnings(daemonUID: 0, daemonGID: 0)
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("com.example.a is not contained") == true, "\(warnings)")
        #expect(warnings.first?.message.contains("daemon's user") == true, "\(warnings)")
        let root = try loadOneApp("<key>UserName</key><string>root</string>")
        let rootWarnings = root.containmentWarnings(daemonUID: 1_000, daemonGID: 1_000)
        #expect(rootWarnings.first?.message.contains("runs as root") == true)
        let nobody = try loadOneApp("<key>UserName</key><string>nobody</string>")
        #expect(nobody.containmentWarnings(daemonUID: 0, daemonGID: 0).isEmpty)
        #expect(nobody.containmentWarnings(daemonUID: 65_534, daemonGID: 65_534).count == 1)
        let signals = try loadOneApp(
            "<key>UserName</key><string>nobody</string>",
            settings: "<key>SuspensionMechanism</key><string>signal</string>"
        )
        let signalWarnings = signals.containmentWarnings(daemonUID: 0, daemonGID: 0)
        #expect(signalWarnings.first?.message.contains("signal suspension") == true)
    }

    @Test func P6_validateNamesAnAppWithRootsOrTheDaemonsGroupAsNotContained() throws {
        let rootGroup = try loadOneApp(
            "<key>UserName</key><string>nobody</string><key>GroupName</key><string>root</string>"
        )
        let warnings = rootGroup.containmentWarnings(daemonUID: 0, daemonGID: 0)
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("runs as root's group (gid 0)") == true, "\(warnings)")
        // The daemon's own group, from a daemon of another user.
        let own = try loadOneApp("<key>UserName</key><string>nobody</string><key>InitGroups</key><false/>")
        let daemonGroup = own.containmentWarnings(daemonUID: 1_000, daemonGID: 65_534)
        #expect(daemonGroup.first?.message.contains("the daemon's group (gid 65534)") == true, "\(daemonGroup)")
        #expect(own.containmentWarnings(daemonUID: 0, daemonGID: 0).isEmpty)
    }

    @Test func P6_validateNamesProcessAppsThatShareAUserOtherThanTheDaemons() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>AppUserName</key><string>nobody</string>"))
        let program = "<key>ProgramArguments</key><array><string>/bin/true</string></array>"
        for name in ["a", "b", "c"] {
            try config.writeApp(name, identifier: "com.example.\(name)", program)
        }
        try config.writeApp("d", identifier: "com.example.d", program + "<key>UserName</key><string>4242</string>")
        try config.writeApp("e", identifier: "com.example.e", program + "<key>UserName</key><string>root</string>")
        try config.writeApp("f", identifier: "com.example.f", program + "<key>UserName</key><string>root</string>")
        let configuration = try ConfigLoader.load(directory: config.path)
        // One note for nobody's three apps; none for 4242 (one app), nor for root (not contained anyway).
        let warnings = configuration.sharedUserWarnings(daemonUID: 0)
        #expect(warnings.count == 1, "\(warnings)")
        let apps = "com.example.a, com.example.b, com.example.c"
        #expect(
            warnings.first?.message.contains(apps + " run as the same user (uid 65534)") == true,
            "\(warnings)"
        )
        // Nor for the daemon's own user.
        #expect(configuration.sharedUserWarnings(daemonUID: 65_534).isEmpty)
    }
}
