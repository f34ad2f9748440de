@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The user a process app runs as: launchd's `UserName`, `GroupName` and `InitGroups` in its Info.plist, and the
// daemon-wide default `AppUserName` / `AppGroupName` in Runway.plist. Names are resolved to ids when the file is
// loaded (`UserDatabase`); whether the daemon may switch to them is checked at each launch.

extension AppInfoPlist.Key {
    static let userName = PlistKeySpec(
        AppInfoPlist.CodingKeys.userName,
        expected: "the name of a user in the user database, or a decimal uid"
    )
    static let groupName = PlistKeySpec(
        AppInfoPlist.CodingKeys.groupName,
        expected: "the name of a group in the group database, or a decimal gid"
    )
    static let initGroups = PlistKeySpec(AppInfoPlist.CodingKeys.initGroups, expected: Expected.boolean)
    static let user = [userName, groupName, initGroups]
}

extension RunwaySettingsPlist.Key {
    static let appUserName = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.appUserName,
        expected: "the name of a user in the user database, or a decimal uid"
    )
    static let appGroupName = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.appGroupName,
        expected: "the name of a group in the group database, or a decimal gid"
    )
    static let appUser = [appUserName, appGroupName]
}

extension AppInfoPlist {
    /// The user the app's `UserName`, `GroupName` and `InitGroups` name, or nil without `UserName` (the daemon's
    /// default then applies: `ConfigLoader`). `GroupName` or `InitGroups` without `UserName` is an error.
    static func user(_ plist: AppInfoPlist, file: PlistFile) throws(ConfigError) -> AppUser? {
        guard let userName = plist.userName else {
            for key in [Key.groupName, Key.initGroups] where file.contains(key: key.name) {
                throw file.error(at: .key(key.name), expected: "\(key.name) only together with UserName")
            }
            return nil
        }
        return try AppUser.resolve(
            userName: userName,
            groupName: plist.groupName,
            initGroups: plist.initGroups ?? true,
            file: file,
            userKey: Key.userName,
            groupKey: Key.groupName
        )
    }
}

extension RunwaySettingsPlist {
    /// The daemon-wide default user for process apps (`AppUserName`, `AppGroupName`; supplementary groups from
    /// the group database, as launchd's `InitGroups`), or nil: apps without `UserName` then run as the daemon.
    static func appUser(_ plist: RunwaySettingsPlist, file: PlistFile) throws(ConfigError) -> AppUser? {
        guard let userName = plist.appUserName else {
            if plist.appGroupName != nil {
                throw file.error(
                    at: .key(Key.appGroupName.name),
                    expected: "AppGroupName only together with AppUserName"
                )
            }
            return nil
        }
        return try AppUser.resolve(
            userName: userName,
            groupName: plist.appGroupName,
            initGroups: true,
            file: file,
            userKey: Key.appUserName,
            groupKey: Key.appGroupName
        )
    }
}

extension AppUser {
    /// Resolves names to ids; an unknown name is an error naming the key and the value.
    static func resolve(
        userName: String,
        groupName: String?,
        initGroups: Bool,
        file: PlistFile,
        userKey: PlistKeySpec,
        groupKey: PlistKeySpec
    ) throws(ConfigError) -> AppUser {
        guard !userName.isEmpty, !userName.utf8.contains(0), let found = UserDatabase.userEntry(userName) else {
            throw file.error(
                code: .invalidValue,
                at: .key(userKey.name),
                expected: userKey.expected + " (no user \(quotedPlistString(userName)) is known)"
            )
        }
        var gid = found.gid
        if let groupName {
            guard !groupName.isEmpty, !groupName.utf8.contains(0), let group = UserDatabase.groupID(groupName) else {
                throw file.error(
                    at: .key(groupKey.name),
                    expected: groupKey.expected + " (no group \(quotedPlistString(groupName)) is known)"
                )
            }
            gid = group
        }
        var groups: [UInt32] = []
        // A decimal uid that is not in the database has no groups to look up.
        if initGroups, UInt32(userName) == nil || found.name != userName {
            guard let list = UserDatabase.groups(of: found.name, gid: gid) else {
                throw file.error(
                    at: .key(userKey.name),
                    expected: "a user in at most \(UserDatabase.groupLimit) groups (InitGroups)"
                )
            }
            groups = list
        }
        return AppUser(name: found.name, uid: found.uid, gid: gid, groups: groups)
    }
}
