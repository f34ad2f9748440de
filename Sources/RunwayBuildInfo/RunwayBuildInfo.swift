import RunwayCore

/// What this build of Runway is: its version, the commit it was built from and the build type. `runway
/// --version` prints it and the daemon exports it as `runway_build_info` (Docs/Operations.md).
///
/// The commit is read from git by the `RunwayBuildCommit` build-tool plugin when the package is built (a
/// `swift build` or `make` of a clone), never at run time: a build from a tree without `.git` (a source tarball)
/// says `unknown`, and a tree with uncommitted changes to tracked files adds `-dirty`. The build type is the
/// compilation's: `debug` when `DEBUG` is defined (SwiftPM's debug configuration), else `release`.
package struct RunwayBuildInfo: Hashable, Sendable {
    /// For example `0.2.0-dev` (`RunwayVersion`).
    package var version: String
    /// 12 hexadecimal digits, with `-dirty` for uncommitted changes, or `unknown`.
    package var commit: String
    /// `debug` or `release`.
    package var buildType: String

    package init(version: String, commit: String, buildType: String) {
        self.version = version
        self.commit = commit
        self.buildType = buildType
    }

    /// This build.
    package static let current = RunwayBuildInfo(
        version: RunwayVersion.string,
        commit: runwayBuildCommit,
        buildType: Self.compiledBuildType
    )

    #if DEBUG
    private static let compiledBuildType = "debug"
    #else
    private static let compiledBuildType = "release"
    #endif

    /// `runway 0.2.0-dev (3f2a9c81d0e4, release)`: what `runway --version` prints.
    package var versionLine: String { "runway \(self.version) (\(self.commit), \(self.buildType))" }
}
