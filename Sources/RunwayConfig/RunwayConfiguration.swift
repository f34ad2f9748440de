import RunwayCore

/// A fully validated configuration directory (C1): scheduler settings, daemon settings and every app.
///
/// Only ``ConfigLoader/load(directory:)`` produces one from disk, and only when every file in the directory is
/// good, so holding a `RunwayConfiguration` means the whole directory validated (C2, C3).
package struct RunwayConfiguration: Sendable {
    /// The configuration directory, exactly as it was given to the loader.
    package var directory: String
    /// Scheduler settings from `Runway.plist`; the defaults of `SchedulerSettings.init` when the file is absent.
    package var settings: SchedulerSettings
    /// Daemon settings (control socket, memory pressure) from `Runway.plist`.
    package var daemon: DaemonSettings
    /// One entry per `Apps/*.plist`, sorted by bundle identifier.
    package var apps: [ConfiguredApp]
    /// Unknown keys and ignored values: `Runway.plist` first, then the app files by file name; within one file,
    /// sorted by key path.
    package var warnings: [ConfigWarning]
    /// What the loader read and parsed to build this configuration; zero for one built in code.
    package var readCounts: ConfigReadCounts

    /// Creates a configuration from values that are already valid (for hosts and tests that build one in code).
    package init(
        directory: String,
        settings: SchedulerSettings = SchedulerSettings(),
        daemon: DaemonSettings = DaemonSettings(),
        apps: [ConfiguredApp] = [],
        warnings: [ConfigWarning] = [],
        readCounts: ConfigReadCounts = ConfigReadCounts()
    ) {
        self.directory = directory
        self.settings = settings
        self.daemon = daemon
        self.apps = apps
        self.warnings = warnings
        self.readCounts = readCounts
    }
}
