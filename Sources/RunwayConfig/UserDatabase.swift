import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names of users and groups resolved to ids through the C library's databases (`getpwnam_r`, `getgrnam_r`,
/// `getgrouplist`: /etc/passwd, /etc/group, or NSS), when the configuration is loaded: the child that starts an app
/// can only make system calls (it runs between clone and exec), so it gets ids, never names. Stateless; any thread.
enum UserDatabase {
    /// Most supplementary groups accepted for one user (Linux's own limit, `NGROUPS_MAX`, is 65,536).
    static let groupLimit = 1_024

    /// A user by name, or by a decimal uid (which need not be in the database: its group is then its uid).
    static func userEntry(_ text: String) -> (name: String, uid: UInt32, gid: UInt32)? {
        if let uid = UInt32(text), uid != UInt32.max {
            guard let entry = Self.passwdEntry(uid: uid) else { return (text, uid, uid) }
            return (entry.name, uid, entry.gid)
        }
        return Self.passwdEntry(name: text).map { (text, $0.uid, $0.gid) }
    }

    /// A group id by name, or a decimal gid.
    static func groupID(_ text: String) -> UInt32? {
        if let gid = UInt32(text), gid != UInt32.max { return gid }
        return Self.withBuffer { buffer -> UInt32?? in
            var entry = group()
            var found: UnsafeMutablePointer<group>?
            let status = getgrnam_r(text, &entry, buffer.baseAddress!, buffer.count, &found)
            if status == ERANGE { return nil }
            return .some(found == nil ? nil : entry.gr_gid)
        }
    }

    /// The supplementary groups of `name` with `gid` among them (what `initgroups` would set), at most
    /// `groupLimit`; nil when the user has more.
    static func groups(of name: String, gid: UInt32) -> [UInt32]? {
        var count: Int32 = 64
        while count <= Int32(Self.groupLimit) {
            var list = [gid_t](repeating: 0, count: Int(count))
            var capacity = count
            if getgrouplist(name, gid, &list, &capacity) >= 0 { return Array(list.prefix(Int(capacity))) }
            count = max(count * 2, capacity)
        }
        return nil
    }

    private static func passwdEntry(name: String) -> (uid: UInt32, gid: UInt32)? {
        Self.withBuffer { buffer -> (UInt32, UInt32)?? in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            let status = getpwnam_r(name, &entry, buffer.baseAddress!, buffer.count, &found)
            if status == ERANGE { return nil }
            return .some(found == nil ? nil : (entry.pw_uid, entry.pw_gid))
        }
    }

    private static func passwdEntry(uid: UInt32) -> (name: String, gid: UInt32)? {
        Self.withBuffer { buffer -> (String, UInt32)?? in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            let status = getpwuid_r(uid, &entry, buffer.baseAddress!, buffer.count, &found)
            if status == ERANGE { return nil }
            return .some(found == nil ? nil : (String(cString: entry.pw_name), entry.pw_gid))
        }
    }

    /// Calls `body` with buffers of 4 KiB, then larger ones up to 1 MiB while it returns nil (ERANGE).
    private static func withBuffer<Result>(_ body: (UnsafeMutableBufferPointer<CChar>) -> Result??) -> Result? {
        var size = 4_096
        while size <= 1 << 20 {
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            if let result = body(buffer) { return result }
            size *= 2
        }
        return nil
    }
}
