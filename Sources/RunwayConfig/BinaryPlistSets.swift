import Foundation

/// Finds a set in a binary property list before Foundation parses it: on Linux, `PropertyListSerialization` crashes
/// (a bad pointer, in bridging the parsed set to a Swift `Set<AnyHashable>`) on a binary plist that holds a set with
/// an element, so one such file in `Apps/` would end `runway validate` and the daemon at a reload. A set is not a
/// property-list type (XML has no element for one); only the binary format can encode it, with marker `0xC`.
///
/// Every object CoreFoundation's binary parser can reach is named by the offset table (object references are
/// indexes into it), so looking at the marker of each object the table names finds every set. A table that does not
/// fit the file is left to Foundation, which refuses it. Any thread; reads only `data`.
enum BinaryPlistSets {
    /// The trailer: 6 unused bytes, the size of an offset table entry, the size of an object reference, then
    /// the number of objects, the top object and the offset table's offset, 8 bytes each (big-endian).
    private static let trailerBytes = 32

    /// Whether `data` is a binary property list with a set among its objects.
    static func found(in data: Data) -> Bool {
        let header = Array("bplist".utf8)
        // An XML file (most config files) is not copied.
        guard data.count >= header.count + 2 + Self.trailerBytes, data.starts(with: header) else { return false }
        let bytes = [UInt8](data)
        let trailer = bytes.count - Self.trailerBytes
        let entryBytes = Int(bytes[trailer + 6])
        guard (1...8).contains(entryBytes), let count = Self.integer(bytes, at: trailer + 8, size: 8),
            let table = Self.integer(bytes, at: trailer + 24, size: 8), table < trailer
        else { return false }
        // At most one entry per byte of the table: a count larger than the file is cut to what the file holds.
        let entries = min(count, (trailer - table) / entryBytes)
        for index in 0..<entries {
            guard let offset = Self.integer(bytes, at: table + index * entryBytes, size: entryBytes), offset < trailer
            else { continue }
            if bytes[offset] >> 4 == 0xC { return true }
        }
        return false
    }

    /// The big-endian unsigned integer of `size` bytes at `start`, if it fits in an `Int`.
    private static func integer(_ bytes: [UInt8], at start: Int, size: Int) -> Int? {
        var value: UInt64 = 0
        for byte in bytes[start..<start + size] {
            guard value >> 56 == 0 else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
