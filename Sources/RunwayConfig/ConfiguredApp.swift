import RunwayCore

/// One app read from `Apps/<name>.plist` (C1): the validated descriptor the core sees, and where it came from.
public struct ConfiguredApp: Hashable, Sendable {
    /// The app as the core sees it.
    public var descriptor: AppDescriptor
    /// Path of the Info.plist it was read from (the directory as given to the loader, plus `Apps/<name>.plist`).
    public var file: String

    public init(descriptor: AppDescriptor, file: String) {
        self.descriptor = descriptor
        self.file = file
    }
}
