/// The version of this build of Runway, in one place: `runway --version` prints it and `runway bench` records it in
/// its reports. CHANGELOG.md lists what each version changed.
///
/// Semantic versioning (`MAJOR.MINOR.PATCH`); between releases the next version with `-dev` appended, so a build
/// from a branch is never mistaken for a release. Raise it when a release is cut, together with the CHANGELOG's
/// heading.
///
/// `package`: only the `runway` tool and the daemon report it. Threading and time: a constant, readable from any
/// thread.
package enum RunwayVersion {
    /// For example `0.2.0-dev`.
    package static let string = "0.2.0-dev"
}
