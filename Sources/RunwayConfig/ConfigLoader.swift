// RunwayConfig reads a configuration directory (C1) and hands the core validated value types.
//
// Layout of a configuration directory:
//
//     <directory>/Runway.plist       scheduler and daemon settings; optional, defaults when absent
//     <directory>/Apps/<name>.plist  one Info.plist per app; the folder is required, it may be empty
//
// Design and invariants:
// - Files are read with Foundation's `PropertyListDecoder` into `Decodable` structs (C2); XML and binary property
//   lists are accepted. The same decode lists the keys a file has through a catch-all coding key, so unknown keys
//   are warned about by name: a good file is read once and parsed once (an app file decodes only the keys it has).
//   `PropertyListSerialization` reads the bytes again only for a file the decoder refuses or a value the loader
//   rejects, to say what is wrong and what was found (PlistFile+Decoding.swift).
// - All or nothing (C2, C3): `load(directory:)` returns a value only when every file is good. It throws the first
//   error it finds (Runway.plist first, then app files by file name, keys in a fixed order within a file) and
//   nothing is applied, so a daemon can validate a new directory on reload and keep the old configuration.
// - The loader has no state: every call reads the files afresh, so it is safe to call from any thread.
// - Nothing here reaches the core except `SchedulerSettings` and `AppDescriptor`, whose invariants (non-negative
//   finite durations, non-empty program arguments, a queue limit >= 1) are established before they are built.
import Foundation
@_spi(Processes) import RunwayCore

/// Loads and validates a Runway configuration directory (C1, C2).
///
/// Stateless and thread-safe: every call does its own synchronous file I/O and shares nothing.
package enum ConfigLoader {
    /// Loads `<directory>/Runway.plist` (optional: defaults if absent) and every `<directory>/Apps/*.plist`
    /// (sorted by file name). Validates everything before returning; throws the FIRST error found with nothing
    /// partially applied (it returns a value only when every file is good). Synchronous, does file I/O,
    /// thread-safe.
    ///
    /// In `Apps/`, only names ending in `.plist` (lowercase) are read; other files, names starting with `.` and
    /// folders are skipped. Bundle identifiers must be unique across files, compared ignoring case.
    ///
    /// - Parameters:
    ///   - directory: The configuration directory; relative paths are relative to the current directory. Error
    ///     and warning file names start with it, as given.
    /// - Returns: The configuration, its apps sorted by bundle identifier, and any warnings (unknown keys,
    ///   ignored values) in file order.
    /// - Throws: A ``ConfigError`` naming the file, the key path, what was found and what was expected. A
    ///   missing directory or `Apps/` folder is a `missingDirectory` error naming that path.
    package static func load(directory: String) throws(ConfigError) -> RunwayConfiguration {
        guard Self.isDirectory(directory) else {
            throw ConfigError(
                code: .missingDirectory,
                file: directory,
                keyPath: nil,
                found: Self.describeMissing(directory),
                expected: "a configuration directory holding Runway.plist (optional) and a folder Apps/"
            )
        }
        var settings = SchedulerSettings()
        var daemon = DaemonSettings()
        var warnings: [ConfigWarning] = []

        let settingsPath = Self.join(directory, "Runway.plist")
        var counts = ConfigReadCounts()
        if Self.entryExists(settingsPath) {
            let file = try PlistFile.read(path: settingsPath)
            defer { counts.add(file) }
            let loaded = try RunwaySettingsPlist.load(file)
            settings = loaded.settings
            daemon = loaded.daemon
            warnings += loaded.warnings
        }

        let appsPath = Self.join(directory, "Apps")
        guard Self.isDirectory(appsPath) else {
            throw ConfigError(
                code: .missingDirectory,
                file: appsPath,
                keyPath: nil,
                found: Self.describeMissing(appsPath),
                expected: "a folder Apps/ with one Info.plist per app (it may be empty)"
            )
        }
        var apps: [ConfiguredApp] = []
        var fileByIdentifier: [String: String] = [:]
        // Read once, and only when an app has a cgroup ceiling.
        var host: CgroupLimitCheck.Host?
        for name in try Self.appFileNames(in: appsPath) {
            let (app, appWarnings) = try Self.loadApp(file: Self.join(appsPath, name), counts: &counts)
            let identifier = app.descriptor.id.bundleIdentifier
            if let first = fileByIdentifier[identifier.lowercased()] {
                throw ConfigError(
                    code: .duplicateIdentifier,
                    file: app.file,
                    keyPath: "CFBundleIdentifier",
                    found: "string \(quotedPlistString(identifier)), already declared by \(first)",
                    expected: "a bundle identifier no other app file declares (compared ignoring case)"
                )
            }
            fileByIdentifier[identifier.lowercased()] = app.file
            apps.append(app.runningAs(daemon.appUser))
            warnings += appWarnings
            if case .process(let spec) = app.descriptor.kind, spec.limits.needsCgroup {
                if host == nil { host = CgroupLimitCheck.host() }
                warnings += CgroupLimitCheck.warnings(
                    spec.limits,
                    file: app.file,
                    mechanism: daemon.suspensionMechanism,
                    host: host!
                )
            }
        }
        apps.sort { $0.descriptor.id < $1.descriptor.id }
        return RunwayConfiguration(
            directory: directory,
            settings: settings,
            daemon: daemon,
            apps: apps,
            warnings: warnings,
            readCounts: counts
        )
    }

    /// Loads and validates one app Info.plist.
    ///
    /// - Parameters:
    ///   - file: Path of the plist; it appears as given in the result and in errors.
    /// - Returns: The app, and the file's warnings sorted by key path.
    /// - Throws: A ``ConfigError`` for the first problem in the file.
    package static func loadApp(file: String) throws(ConfigError) -> (ConfiguredApp, [ConfigWarning]) {
        var counts = ConfigReadCounts()
        return try Self.loadApp(file: file, counts: &counts)
    }

    /// `loadApp(file:)`, adding what it read and parsed to `counts`.
    private static func loadApp(
        file: String,
        counts: inout ConfigReadCounts
    ) throws(ConfigError) -> (ConfiguredApp, [ConfigWarning]) {
        let plist = try PlistFile.read(path: file)
        defer { counts.add(plist) }
        let (descriptor, warnings) = try AppInfoPlist.load(plist)
        return (ConfiguredApp(descriptor: descriptor, file: file), warnings)
    }

    /// Names of the app files in `appsPath`, sorted.
    private static func appFileNames(in appsPath: String) throws(ConfigError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: appsPath)
        } catch {
            throw ConfigError(
                code: .unreadableFile,
                file: appsPath,
                keyPath: nil,
                found: "a folder that cannot be listed (\((error as NSError).localizedDescription))",
                expected: "a readable folder Apps/ with one Info.plist per app"
            )
        }
        return
            names
            .filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") && !Self.isDirectory(Self.join(appsPath, $0)) }
            .sorted()
    }

    /// `directory/name`, without doubling a trailing slash.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// True when something is at `path`, including a dangling symbolic link (which then fails to read, loudly).
    private static func entryExists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
            || (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    private static func describeMissing(_ path: String) -> String {
        Self.entryExists(path) ? "a file, not a folder" : "nothing"
    }
}
