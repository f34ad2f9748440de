import Foundation

/// A configuration directory under the temporary directory (a fresh UUID name), by default with an empty
/// `Apps/` folder, for this package's tests of the config loader and the CLI (package access: a fixture, not
/// part of the test kit for embedders). Call `remove()` when done (tests use `defer`). It holds only a path,
/// so it may be used from any thread.
package struct TemporaryConfig: Sendable {
    /// The directory's absolute path.
    package let path: String

    package init(withAppsFolder: Bool = true) throws {
        self.path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("runway-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        if withAppsFolder {
            try FileManager.default.createDirectory(atPath: self.path + "/Apps", withIntermediateDirectories: false)
        }
    }

    /// Writes `text` to `<config>/<relativePath>` and returns the file's path.
    @discardableResult
    package func write(_ relativePath: String, _ text: String) throws -> String {
        try self.write(relativePath, Data(text.utf8))
    }

    /// Writes `data` to `<config>/<relativePath>` and returns the file's path.
    @discardableResult
    package func write(_ relativePath: String, _ data: Data) throws -> String {
        let file = self.path + "/" + relativePath
        try data.write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Deletes the directory and everything in it; errors are ignored.
    package func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }
}

/// An XML property list whose root dictionary holds `dictionaryBody`.
package func plistXML(_ dictionaryBody: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(dictionaryBody)
    </dict>
    </plist>
    """
}
