import RunwayCore

/// One app read from `Apps/<name>.plist` (C1): the validated descriptor the core sees, and where it came from.
package struct ConfiguredApp: Hashable, Sendable {
    /// The app as the core sees it.
    package var descriptor: AppDescriptor
    /// Path of the Info.plist it was read from (the directory as given to the loader, plus `Apps/<name>.plist`).
    package var file: String

    package init(descriptor: AppDescriptor, file: String) {
        self.descriptor = descriptor
        self.file = file
    }
}
