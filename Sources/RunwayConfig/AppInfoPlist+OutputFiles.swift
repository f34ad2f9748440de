@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The output file keys of a process app's Info.plist (launchd's `StandardOutPath` and `StandardErrorPath`, and
// their rotation: `LogFileSizeLimit`, `LogFileCount`). Validated when the configuration is loaded; the daemon
// opens the files at each launch (`AppLogFile` in Runway).

extension AppInfoPlist.Key {
    static let standardOutPath = PlistKeySpec(
        AppInfoPlist.CodingKeys.standardOutPath,
        expected: "an absolute path (a string starting with \"/\") whose directory exists"
    )
    static let standardErrorPath = PlistKeySpec(
        AppInfoPlist.CodingKeys.standardErrorPath,
        expected: "an absolute path (a string starting with \"/\") whose directory exists; it may be "
            + "StandardOutPath's"
    )
    static let logFileSizeLimit = PlistKeySpec(
        AppInfoPlist.CodingKeys.logFileSizeLimit,
        expected: "an integer number of bytes from \(ProcessOutputFiles.fileSizeLimits.lowerBound) to "
            + "\(ProcessOutputFiles.fileSizeLimits.upperBound)"
    )
    static let logFileCount = PlistKeySpec(
        AppInfoPlist.CodingKeys.logFileCount,
        expected: "an integer from \(ProcessOutputFiles.fileCounts.lowerBound) to "
            + "\(ProcessOutputFiles.fileCounts.upperBound): the files kept per path, the current one included"
    )
    static let outputFileKeys = [standardOutPath, standardErrorPath, logFileSizeLimit, logFileCount]
}

extension AppInfoPlist {
    /// The output files of a process app: each path absolute, in an existing directory; the rotation bounds
    /// within their ranges.
    static func outputFiles(_ plist: AppInfoPlist, file: PlistFile) throws(ConfigError) -> ProcessOutputFiles {
        let out = try Self.outputPath(plist.standardOutPath, key: Key.standardOutPath, file: file)
        let error = try Self.outputPath(plist.standardErrorPath, key: Key.standardErrorPath, file: file)
        let size = plist.logFileSizeLimit ?? ProcessOutputFiles.defaultFileSizeLimit
        guard ProcessOutputFiles.fileSizeLimits.contains(size) else {
            throw file.error(at: .key(Key.logFileSizeLimit.name), expected: Key.logFileSizeLimit.expected)
        }
        let count = plist.logFileCount ?? ProcessOutputFiles.defaultFileCount
        guard ProcessOutputFiles.fileCounts.contains(count) else {
            throw file.error(at: .key(Key.logFileCount.name), expected: Key.logFileCount.expected)
        }
        return ProcessOutputFiles(standardOutPath: out, standardErrorPath: error, fileSizeLimit: size, fileCount: count)
    }

    /// An absolute path that does not end with `/` and whose parent is an existing directory.
    private static func outputPath(
        _ value: String?,
        key: PlistKeySpec,
        file: PlistFile
    ) throws(ConfigError) -> String? {
        guard let path = try file.absolutePath(value, key: key) else { return nil }
        guard !path.hasSuffix("/") else { throw file.error(at: .key(key.name), expected: key.expected) }
        var parent = String(path[..<path.lastIndex(of: "/")!])
        if parent.isEmpty { parent = "/" }
        var info = stat()
        let found = stat(parent, &info) == 0
        guard found, (info.st_mode & S_IFMT) == S_IFDIR else {
            let problem = found ? "is not a directory" : String(cString: strerror(errno))
            throw file.error(at: .key(key.name), expected: key.expected + " (the directory \(parent): \(problem))")
        }
        return path
    }
}
