// What a client of the daemon reads of a configuration directory: only Runway.plist, for `ControlSocket`.

import Foundation

extension ConfigLoader {
    /// Loads and validates `<directory>/Runway.plist` alone (defaults when it is absent), as the daemon would, and
    /// returns its daemon settings: the file a client command (`runway status`, `launch`, ...) needs to find the
    /// control socket. The app files are not read: a bad app file concerns the daemon and `runway reload`, and must
    /// not keep an operator from looking at a running daemon while fixing it.
    ///
    /// Stateless and thread-safe; synchronous file I/O.
    ///
    /// - Parameter directory: The configuration directory; errors name files with it, as given.
    /// - Throws: A ``ConfigError`` naming the file, the key path, what was found and what was expected: the
    ///   directory missing (`missingDirectory`), or the first problem in Runway.plist.
    package static func loadDaemonSettings(directory: String) throws(ConfigError) -> DaemonSettings {
        guard Self.isConfigDirectory(directory) else {
            let found = FileManager.default.fileExists(atPath: directory) ? "a file, not a folder" : "nothing"
            throw ConfigError(
                code: .missingDirectory,
                file: directory,
                keyPath: nil,
                found: found,
                expected: "a configuration directory holding Runway.plist (optional) and a folder Apps/"
            )
        }
        let settingsPath = Self.join(directory, "Runway.plist")
        let exists =
            FileManager.default.fileExists(atPath: settingsPath)
            || (try? FileManager.default.destinationOfSymbolicLink(atPath: settingsPath)) != nil
        guard exists else { return DaemonSettings() }
        return try RunwaySettingsPlist.load(PlistFile.read(path: settingsPath)).daemon
    }

    private static func isConfigDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
