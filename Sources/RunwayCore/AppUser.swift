/// The user a process app runs as (launchd's `UserName`, `GroupName`, `InitGroups`), resolved to ids when the
/// configuration is loaded. The daemon switches to it in the child before the program starts; nil in a
/// `ProcessSpec` means the daemon's own user.
@_spi(Processes)
public struct AppUser: Hashable, Sendable {
    /// The name as configured (`UserName`), for messages; the ids are what is used.
    public var name: String
    /// The user id the app runs as (real, effective and saved).
    public var uid: UInt32
    /// The group id it runs as (`GroupName`, else the user's primary group).
    public var gid: UInt32
    /// The supplementary groups: the user's groups from the group database with `InitGroups` (launchd's
    /// default), else none.
    public var groups: [UInt32]

    /// A user with the given ids; each parameter sets the property of the same name.
    public init(name: String, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }
}
