/// This boot's identifier, which names a boot: process start times and preserved states' endings count from it.
package enum BootID {
    /// Where Linux keeps it.
    package static let path = "/proc/sys/kernel/random/boot_id"

    /// The identifier in `path` without surrounding whitespace; nil when the file cannot be read, is empty or is
    /// longer than 128 bytes (Linux's is a 36-byte UUID). Reads the file each call; safe from any thread.
    package static func read(path: String = BootID.path) -> String? {
        guard let id = SystemFiles.read(path, limitBytes: 256)?.trimmingWhitespace else { return nil }
        return id.isEmpty || id.utf8.count > 128 ? nil : id
    }
}
