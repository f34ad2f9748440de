import Foundation
import RunwayConfig
import RunwayTestKit
import Testing

extension TemporaryConfig {
    /// Writes `Apps/<name>.plist` for a process app with `identifier` and the extra XML `keys`.
    @discardableResult
    func writeApp(_ name: String, identifier: String, _ keys: String = "") throws -> String {
        try self.write("Apps/\(name).plist", plistXML(appKeys(identifier: identifier) + keys))
    }
}

/// The keys of a plain process app.
func appKeys(identifier: String) -> String {
    """
    <key>CFBundleIdentifier</key><string>\(identifier)</string>
    <key>ProgramArguments</key><array><string>/bin/true</string></array>
    """
}

/// Loads a directory whose `Runway.plist` holds `settings` and whose one app, `com.example.a`, is a plain process
/// app with the extra XML `keys`.
func loadOneApp(_ keys: String, settings: String = "") throws -> RunwayConfiguration {
    let config = try TemporaryConfig()
    defer { config.remove() }
    try config.write("Runway.plist", plistXML(settings))
    try config.writeApp("a", identifier: "com.example.a", keys)
    return try ConfigLoader.load(directory: config.path)
}

/// The error loading a directory like `loadOneApp`'s throws (nil, and a recorded issue, when it loads), and the file
/// it should name: the app's file when `keys` are given, else `Runway.plist`.
func oneAppLoadError(
    app keys: String = "",
    settings: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (ConfigError?, String) {
    let config = try TemporaryConfig()
    defer { config.remove() }
    try config.write("Runway.plist", plistXML(settings))
    let file = try config.writeApp("a", identifier: "com.example.a", keys)
    return (loadError(config.path, sourceLocation: sourceLocation), keys.isEmpty ? config.path + "/Runway.plist" : file)
}

/// The shipped `Config/` directory: this file is `<root>/Tests/RunwayConfigTests/Support/ConfigFixtures.swift`.
func shippedConfigDirectory() -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Config").path
}

/// The error `load(directory:)` throws, or nil (and a recorded issue) when it loads.
func loadError(_ directory: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        let configuration = try ConfigLoader.load(directory: directory)
        Issue.record("expected an error, loaded \(configuration.apps.count) apps", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks every part of an error, and that its description shows them all.
func expectError(
    _ error: ConfigError?,
    code: ConfigError.Code,
    file: String,
    keyPath: String?,
    found: String?,
    expectedContains: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else { return }
    #expect(error.code == code, sourceLocation: sourceLocation)
    #expect(error.file == file, sourceLocation: sourceLocation)
    #expect(error.keyPath == keyPath, sourceLocation: sourceLocation)
    #expect(error.found == found, sourceLocation: sourceLocation)
    #expect(error.expected.contains(expectedContains), "\(error.expected)", sourceLocation: sourceLocation)
    let prefix = keyPath.map { "\(file): \($0): expected " } ?? "\(file): expected "
    #expect(error.description.hasPrefix(prefix), "\(error.description)", sourceLocation: sourceLocation)
    #expect(error.description.contains("expected \(error.expected)"), sourceLocation: sourceLocation)
    if let found {
        #expect(error.description.hasSuffix(", found \(found)"), "\(error.description)", sourceLocation: sourceLocation)
    }
}

/// Checks that an error's description shows its file, key path, expected and found parts.
func expectDescriptionShowsParts(_ error: ConfigError?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error else { return }
    let prefix = error.keyPath.map { "\(error.file): \($0): " } ?? "\(error.file): "
    #expect(error.description.hasPrefix(prefix + "expected \(error.expected)"), sourceLocation: sourceLocation)
    if let found = error.found {
        #expect(error.description.hasSuffix(", found \(found)"), sourceLocation: sourceLocation)
    }
}

/// Writes a `Runway.plist` holding only `key` with `value` (plist XML) and expects loading it to fail with `code`
/// on that key, naming what was found and what was expected.
func expectRunwayPlistValueRejected(
    key: String,
    value: String,
    found: String,
    expected: String,
    code: ConfigError.Code = .invalidValue,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let config = try TemporaryConfig()
    defer { config.remove() }
    let file = try config.write("Runway.plist", plistXML("<key>\(key)</key>\(value)"))
    expectError(
        loadError(config.path, sourceLocation: sourceLocation),
        code: code,
        file: file,
        keyPath: key,
        found: found,
        expectedContains: expected,
        sourceLocation: sourceLocation
    )
}
