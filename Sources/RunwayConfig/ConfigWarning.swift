/// Something in a config file that is accepted but ignored: an unknown key (C2), or a key that has no effect
/// given the rest of the file. Warnings never stop a load.
package struct ConfigWarning: Hashable, Sendable, CustomStringConvertible {
    /// Path of the file the warning is about.
    package var file: String
    /// The key path, e.g. `WorkingDirectory` or `UIBackgroundModes[1]`; empty for whole-file warnings.
    package var keyPath: String
    /// What is wrong and what happens instead, e.g. `unknown key, ignored`.
    package var message: String

    init(file: String, keyPath: String, message: String) {
        self.file = file
        self.keyPath = keyPath
        self.message = message
    }

    /// `<file>: <keyPath>: <message>`, without the key path when it is empty.
    package var description: String {
        self.keyPath.isEmpty ? "\(self.file): \(self.message)" : "\(self.file): \(self.keyPath): \(self.message)"
    }
}
