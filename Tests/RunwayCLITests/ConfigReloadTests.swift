import Foundation
import RunwayControl
@_spi(Driver) import RunwayTestKit
import Testing

/// C3 against a real `runway run`: `runway reload` validates every file before it applies anything, and applies
/// only what a reload may change (new apps).
@Suite(.serialized) struct ConfigReloadTests {
    static let alpha = "com.example.alpha"

    @Test func C3_reloadValidatesEverythingFirstAndAppliesOnlyNewApps() throws {
        let daemon = try DaemonProcess(apps: [Self.alpha: ""])
        defer { daemon.close() }
        _ = try daemon.cli("launch", Self.alpha)
        try daemon.config.writeApp("com.example.gamma.plist", identifier: "com.example.gamma")
        try daemon.config.write(
            "Runway.plist",
            plistXML(
                "<key>BackgroundTimeBudget</key><real>12</real><key>TerminationGrace</key><real>1</real>"
                    + "<key>ControlSocket</key><string>\(daemon.socket)</string>"
            )
        )
        var result = try daemon.cli("reload", "--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("dry run (nothing applied)"), "\(result)")
        #expect(result.stdout.contains("add app com.example.gamma"), "\(result)")
        #expect(result.stdout.contains("BackgroundTimeBudget"), "\(result)")
        #expect(try daemon.request(ControlRequest(command: "status")).apps?.count == 1)

        // A bad file: nothing is applied, the error names the file and the key.
        let bad = try daemon.config.writeApp(
            "com.example.bad.plist",
            identifier: "com.example.bad",
            "<key>UIBackgroundModes</key><string>audio</string>"
        )
        result = try daemon.cli("reload")
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("com.example.bad.plist") && result.stderr.contains("UIBackgroundModes"),
            "\(result)"
        )
        #expect(try daemon.request(ControlRequest(command: "status")).apps?.count == 1)
        try FileManager.default.removeItem(atPath: bad)

        // SIGHUP applies the new app; the running app keeps its state.
        kill(daemon.process.processIdentifier, SIGHUP)
        try waitUntil("gamma registered after SIGHUP\n\(daemon.output)") {
            try daemon.request(ControlRequest(command: "status")).apps?.count == 2
        }
        #expect(try daemon.status(Self.alpha).state == "active")
        #expect(try daemon.status("com.example.gamma").state == "notRunning")
        #expect(
            daemon.output.contains("needs restart: scheduler settings in Runway.plist changed (BackgroundTimeBudget)")
        )
        #expect(try daemon.stop() == 0)
    }

    @Test func C3_aReloadThatChangesAppUserNameAppliesNothingAndNamesTheKey() throws {
        let user = "<key>AppUserName</key><string>nobody</string>"
        let daemon = try DaemonProcess(apps: [Self.alpha: ""], settings: user)
        defer { daemon.close() }
        let socket = "<key>ControlSocket</key><string>\(daemon.socket)</string>"
        try daemon.config.writeApp("com.example.gamma.plist", identifier: "com.example.gamma")
        // Removed, then set again with another group: each is refused, in a dry run too, and no app is added.
        let group = user + "<key>AppGroupName</key><string>root</string>"
        for (settings, key) in [("", "AppUserName"), (group, "AppGroupName")] {
            try daemon.config.write("Runway.plist", plistXML(settings + socket))
            for dryRun in [false, true] {
                let result = try dryRun ? daemon.cli("reload", "--dry-run") : daemon.cli("reload")
                #expect(result.status == 1, "\(result)")
                #expect(result.stderr.contains("\(key) changed in Runway.plist: restart the daemon"), "\(result)")
                #expect(try daemon.request(ControlRequest(command: "status")).apps?.count == 1)
            }
        }
        // The running user again: the new app is added.
        try daemon.config.write("Runway.plist", plistXML(user + socket))
        #expect(try daemon.cli("reload").status == 0)
        #expect(try daemon.request(ControlRequest(command: "status")).apps?.count == 2)
        #expect(try daemon.stop() == 0)
    }
}
