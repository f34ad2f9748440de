import Foundation
import RunwayConfig
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayTestKit
import Testing

@Suite("C2: bad values name the file, the key path, what was found and what was expected")
struct BadValueTests {
    static let seconds = BadValue.seconds

    @Test func C2_stringForADurationIsAWrongType() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>BackgroundTimeBudget</key><string>thirty</string>"))

        let error = loadError(config.path)

        expectError(
            error,
            code: .wrongType,
            file: file,
            keyPath: "BackgroundTimeBudget",
            found: "string \"thirty\"",
            expectedContains: Self.seconds
        )
        #expect(
            error?.description == "\(file): BackgroundTimeBudget: expected \(Self.seconds), found string \"thirty\""
        )
    }

    @Test(arguments: [
        "notes", "", "com..notes", ".com.notes", "com.notes.", "com.ex ample.notes", "com.exämple.notes",
        "com.example_notes.app", "com.example.notes/../x", String(repeating: "a.", count: 128) + "b",
    ])
    func C2_badReverseDNSIdentifierIsRejected(identifier: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("app", identifier: identifier)

        let error = loadError(config.path)

        #expect(error?.code == .invalidValue)
        #expect(error?.file == file)
        #expect(error?.keyPath == "CFBundleIdentifier")
        #expect(error?.found?.hasPrefix("string \"") == true)
        #expect(error?.expected.contains("two or more dot-separated non-empty components") == true)
        expectDescriptionShowsParts(error)
    }

    @Test(arguments: ["com.example", "com.example.notes", "COM.Example.Notes-2", "a.b", "1.2.3"])
    func C2_wellFormedReverseDNSIdentifierIsAccepted(identifier: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("app", identifier: identifier)

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.id) == [AppID(identifier)])
    }

    @Test func C2_nonFiniteDurationInABinaryPlistIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let app: [String: Any] = [
            "CFBundleIdentifier": "com.example.x", "ProgramArguments": ["/bin/true"],
            "RunwayBackgroundTimeBudget": Double.infinity,
        ]
        let file = try config.write(
            "Apps/x.plist",
            PropertyListSerialization.data(fromPropertyList: app, format: .binary, options: 0)
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "RunwayBackgroundTimeBudget",
            found: "real inf",
            expectedContains: Self.seconds
        )
    }

    @Test(arguments: [("<integer>2</integer>", "integer 2"), ("<true/>", "boolean true")])
    func C2_unsupportedRunwayProtocolIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("x", identifier: "com.example.x", "<key>RunwayProtocol</key>\(value)")

        let error = loadError(config.path)

        #expect(error?.file == file)
        #expect(error?.keyPath == "RunwayProtocol")
        #expect(error?.found == found)
        #expect(error?.expected == "the integer 1 (the only protocol version)")
        expectDescriptionShowsParts(error)
    }

    @Test(arguments: [("<integer>0</integer>", "integer 0"), ("<integer>-5</integer>", "integer -5")])
    func C2_nonPositiveRSSCeilingIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MemoryPressureSource</key><string>rss</string>
                <key>RSSCeilingBytes</key>\(value)
                """
            )
        )

        let error = loadError(config.path)

        #expect(error?.file == file)
        #expect(error?.keyPath == "RSSCeilingBytes")
        #expect(error?.found == found)
        #expect(error?.expected == "a positive integer number of bytes")
        expectDescriptionShowsParts(error)
    }

    @Test(arguments: ["run/runway.sock", "", "/tmp/" + String(repeating: "s", count: 120) + ".sock"])
    func C2_controlSocketMustBeAShortAbsolutePath(path: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>ControlSocket</key><string>\(path)</string>"))

        let error = loadError(config.path)

        #expect(error?.code == .invalidValue)
        #expect(error?.file == file)
        #expect(error?.keyPath == "ControlSocket")
        #expect(error?.found?.hasPrefix("string \"") == true)
        #expect(error?.expected.hasPrefix("an absolute path of at most") == true)
        expectDescriptionShowsParts(error)
    }

    /// Writes the case's file, loads the directory and checks every part of the error.
    static func expectRejected(_ bad: BadValue) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file: String
        switch bad.place {
        case .runway(let keys): file = try config.write("Runway.plist", plistXML(keys))
        case .app(let name, let identifier, let keys): file = try config.writeApp(name, identifier: identifier, keys)
        case .file(let path, let keys): file = try config.write(path, plistXML(keys))
        }
        expectError(
            loadError(config.path),
            code: bad.code,
            file: file,
            keyPath: bad.keyPath,
            found: bad.found,
            expectedContains: bad.expected
        )
    }

    @Test(arguments: BadValue.wrongTypes)
    func C2_aValueOfTheWrongTypeIsNamedWithWhatItIs(_ bad: BadValue) throws {
        try Self.expectRejected(bad)
    }

    @Test(arguments: BadValue.missingOrMisplaced)
    func C2_aMissingOrMisplacedValueIsRejectedNamingWhatIsRequired(_ bad: BadValue) throws {
        try Self.expectRejected(bad)
    }

    @Test(arguments: BadValue.outOfRange)
    func C2_aValueOutOfRangeIsRejectedNamingTheRange(_ bad: BadValue) throws {
        try Self.expectRejected(bad)
    }

    @Test(arguments: BadValue.unknownNames)
    func C2_aNameOutsideItsSetIsRejectedNamingTheAllowedOnes(_ bad: BadValue) throws {
        try Self.expectRejected(bad)
    }
}
