/// What kind of file the type bits of a `st_mode` describe, with its article: "a regular file", "a FIFO (named
/// pipe)", ... for errors that name what was found where a regular file or a socket was expected. The bit values
/// are POSIX's `S_IF*` (the same on Linux and macOS). Pure; any thread.
package func describeFileType(mode: UInt32) -> String {
    switch mode & 0o170_000 {
    case 0o140_000: return "a socket"
    case 0o120_000: return "a symbolic link"
    case 0o100_000: return "a regular file"
    case 0o060_000: return "a block device"
    case 0o040_000: return "a directory"
    case 0o020_000: return "a character device"
    case 0o010_000: return "a FIFO (named pipe)"
    default: return "a file of unknown type"
    }
}
