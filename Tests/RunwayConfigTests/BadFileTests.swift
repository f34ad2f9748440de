import Foundation
import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

@Suite("C2: bad files and directories are rejected, and nothing is half-applied")
struct BadFileTests {
    static let propertyList = "a property list (XML or binary) whose root is a dictionary"

    @Test func C2_malformedXMLNamesTheFile() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("good", identifier: "com.example.good")
        let file = try config.write(
            "Apps/broken.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>CFBundleIdentifier</key></dict></plist>
            """
        )

        let error = loadError(config.path)

        #expect(error?.code == .malformedFile)
        #expect(error?.file == file)
        #expect(error?.keyPath == nil)
        #expect(error?.expected == Self.propertyList)
        #expect(error?.found?.hasPrefix("data that does not parse") == true)
        #expect(error?.description.hasPrefix("\(file): expected \(Self.propertyList), found data") == true)
    }

    @Test(arguments: [
        ("<array><string>x</string></array>", "array of 1 element"),
        ("<string>com.example.notes</string>", "string \"com.example.notes\""),
    ])
    func C2_rootThatIsNotADictionaryIsRejected(root: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", "<plist version=\"1.0\">\(root)</plist>")

        expectError(
            loadError(config.path),
            code: .malformedFile,
            file: file,
            keyPath: nil,
            found: found,
            expectedContains: Self.propertyList
        )
    }

    @Test func C2_emptyFileIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Apps/empty.plist", "")

        let error = loadError(config.path)

        #expect(error?.code == .malformedFile)
        #expect(error?.file == file)
        #expect(error?.keyPath == nil)
        #expect(error?.expected == Self.propertyList)
        expectDescriptionShowsParts(error)
    }

    @Test func C2_openStepPropertyListIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", "{ BackgroundTimeBudget = 3; }")

        expectError(
            loadError(config.path),
            code: .malformedFile,
            file: file,
            keyPath: nil,
            found: "an old-style (OpenStep) property list",
            expectedContains: Self.propertyList
        )
    }

    @Test func C2_missingDirectoryIsNamed() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID())").path

        expectError(
            loadError(directory),
            code: .missingDirectory,
            file: directory,
            keyPath: nil,
            found: "nothing",
            expectedContains: "a configuration directory"
        )
    }

    @Test func C2_missingAppsFolderIsNamed() throws {
        let config = try TemporaryConfig(withAppsFolder: false)
        defer { config.remove() }

        expectError(
            loadError(config.path),
            code: .missingDirectory,
            file: config.path + "/Apps",
            keyPath: nil,
            found: "nothing",
            expectedContains: "a folder Apps/ with one Info.plist per app"
        )
    }

    @Test func C2_appsThatIsAFileIsNamed() throws {
        let config = try TemporaryConfig(withAppsFolder: false)
        defer { config.remove() }
        try config.write("Apps", "not a folder")

        expectError(
            loadError(config.path),
            code: .missingDirectory,
            file: config.path + "/Apps",
            keyPath: nil,
            found: "a file, not a folder",
            expectedContains: "a folder Apps/"
        )
    }

    @Test func C2_nonPlistFilesInAppsAreIgnored() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("notes", identifier: "com.example.notes")
        try config.write("Apps/README.md", "# not a plist")
        try config.write("Apps/notes.plist.bak", "garbage")
        try config.write("Apps/.hidden.plist", "garbage")
        try FileManager.default.createDirectory(
            atPath: config.path + "/Apps/folder.plist",
            withIntermediateDirectories: false
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.id) == ["com.example.notes"])
        #expect(configuration.warnings == [])
    }

    @Test func C2_oneBadAppMeansNoConfigurationAtAll() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>BackgroundTimeBudget</key><real>3</real>"))
        try config.writeApp("a-good", identifier: "com.example.good")
        let bad = try config.writeApp(
            "b-bad",
            identifier: "com.example.bad",
            """
            <key>RunwayBackgroundTimeBudget</key><real>-1</real>
            """
        )

        // Throws instead of returning the good app and the good settings: nothing is half-applied (C2, C3).
        var loaded: RunwayConfiguration?
        do {
            loaded = try ConfigLoader.load(directory: config.path)
        } catch {
            #expect(error.file == bad)
            #expect(error.keyPath == "RunwayBackgroundTimeBudget")
            #expect(error.found == "real -1.0")
            expectDescriptionShowsParts(error)
        }
        #expect(loaded == nil)
    }

    @Test func C2_badRunwayPlistRejectsGoodApps() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let settings = try config.write("Runway.plist", plistXML("<key>TerminationGrace</key><string>soon</string>"))
        try config.writeApp("good", identifier: "com.example.good")

        expectError(
            loadError(config.path),
            code: .wrongType,
            file: settings,
            keyPath: "TerminationGrace",
            found: "string \"soon\"",
            expectedContains: "a finite number of seconds >= 0"
        )
    }

    @Test func C2_firstBadFileByNameIsTheOneReported() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("b", identifier: "com.example.b", "<key>WorkingDirectory</key><true/>")
        let first = try config.writeApp("a", identifier: "com.example.a", "<key>RunwayProtocol</key><real>2</real>")

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: first,
            keyPath: "RunwayProtocol",
            found: "real 2.0",
            expectedContains: "the integer 1"
        )
    }

    @Test func C2_duplicateIdentifiersNameBothFiles() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        // Files are read by name: 1-notes.plist first.
        let second = try config.writeApp("2-notes-copy", identifier: "com.example.notes")
        let first = try config.writeApp("1-notes", identifier: "com.example.notes")

        expectError(
            loadError(config.path),
            code: .duplicateIdentifier,
            file: second,
            keyPath: "CFBundleIdentifier",
            found: "string \"com.example.notes\", already declared by \(first)",
            expectedContains: "a bundle identifier no other app file declares"
        )
    }

    @Test func C2_identifiersThatDifferOnlyInCaseAreDuplicates() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let first = try config.writeApp("a", identifier: "com.example.Notes")
        let second = try config.writeApp("b", identifier: "com.example.notes")

        let error = loadError(config.path)

        #expect(error?.code == .duplicateIdentifier)
        #expect(error?.file == second)
        #expect(error?.description.contains(first) == true)
        #expect(error?.description.contains(second) == true)
        #expect(error?.keyPath == "CFBundleIdentifier")
        expectDescriptionShowsParts(error)
    }

    @Test func C2_loadAppOnAMissingFileIsUnreadable() {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID()).plist").path

        do {
            _ = try ConfigLoader.loadApp(file: file)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.file == file)
            #expect(error.keyPath == nil)
            #expect(error.found?.hasPrefix("nothing") == true)
            expectDescriptionShowsParts(error)
        }
    }

    @Test func C2_oversizedFileIsRefused() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", Data(count: (1 << 20) + 1))

        expectError(
            loadError(config.path),
            code: .unreadableFile,
            file: file,
            keyPath: nil,
            found: "a file larger than 1 MiB",
            expectedContains: "at most 1 MiB"
        )
    }

    /// Foundation on Linux crashes parsing a binary plist that holds a set with an element: the file is refused first.
    @Test func C2_binaryPlistHoldingASetIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        // bplist00: the dictionary {"k": set {"v"}}, its offset table and trailer (53 bytes).
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xD1, 0x01, 0x02, 0x51, 0x6B, 0xC1, 0x03, 0x51, 0x76, 0x08,
            0x0B, 0x0D, 0x0F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11,
        ]
        let file = try config.write("Apps/set.plist", Data(bytes))

        expectError(
            loadError(config.path),
            code: .malformedFile,
            file: file,
            keyPath: nil,
            found: "a binary property list holding a set, which is not a plist type",
            expectedContains: Self.propertyList
        )
    }
}
