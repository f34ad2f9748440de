/// Where a process app's stdout and stderr lines are also appended, besides the daemon's in-memory ring
/// (`StandardOutPath`, `StandardErrorPath`, `LogFileSizeLimit`, `LogFileCount` of its Info.plist). Plain data for
/// the edge, which writes the files; the core never reads it. Any thread (a value).
@_spi(Processes)
public struct ProcessOutputFiles: Hashable, Sendable {
    /// Bounds of `fileSizeLimit`: 64 KiB (more than the longest output line with its stamp) to 1 GiB.
    public static let fileSizeLimits = 65_536...(1 << 30)
    /// Bounds of `fileCount`.
    public static let fileCounts = 1...100
    /// `LogFileSizeLimit` when the Info.plist does not set it: 10 MiB.
    public static let defaultFileSizeLimit = 10 << 20
    /// `LogFileCount` when the Info.plist does not set it: 3 files.
    public static let defaultFileCount = 3

    /// `StandardOutPath`: an absolute path, or nil when stdout goes to the ring only.
    public var standardOutPath: String?
    /// `StandardErrorPath`: an absolute path (it may be `standardOutPath`: both streams then share one file), or nil.
    public var standardErrorPath: String?
    /// `LogFileSizeLimit`: a file reaching this many bytes is rotated before the line that would cross it.
    public var fileSizeLimit: Int
    /// `LogFileCount`: files kept per path, the current one included (`app.log`, `app.log.1`, ...).
    public var fileCount: Int

    /// Output files with these paths and rotation bounds (the defaults are the settings' defaults).
    ///
    /// - Parameters:
    ///   - standardOutPath: Where stdout lines are appended, or nil.
    ///   - standardErrorPath: Where stderr lines are appended, or nil; may equal `standardOutPath`.
    ///   - fileSizeLimit: Bytes a file may reach before it is rotated; within `fileSizeLimits`.
    ///   - fileCount: Files kept per path, the current one included; within `fileCounts`.
    public init(
        standardOutPath: String? = nil,
        standardErrorPath: String? = nil,
        fileSizeLimit: Int = ProcessOutputFiles.defaultFileSizeLimit,
        fileCount: Int = ProcessOutputFiles.defaultFileCount
    ) {
        precondition(Self.fileSizeLimits.contains(fileSizeLimit), "fileSizeLimit \(fileSizeLimit) out of range")
        precondition(Self.fileCounts.contains(fileCount), "fileCount \(fileCount) out of range")
        self.standardOutPath = standardOutPath
        self.standardErrorPath = standardErrorPath
        self.fileSizeLimit = fileSizeLimit
        self.fileCount = fileCount
    }
}
