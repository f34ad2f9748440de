import Foundation

/// The run history on disk: `<state file name>.history.json` in the state directory, one per control socket like
/// the process state file (StateDirectory.swift). Replaced whole on each write (a temporary file beside it, mode
/// 0600, renamed over it), so a reader or a crash never sees half a file. Its size is bounded by
/// `RunHistoryLimit` runs per app, each with at most `RunHistory.outputLineLimit` lines of
/// `RunHistory.outputLineByteLimit` bytes.
///
/// Thread-safe: no state; each call opens what it needs.
struct RunHistoryFile: Sendable {
    /// The file's format version.
    static let version = 1
    /// A file larger than this is not read (it cannot have been written by this daemon with its limits).
    static let readByteLimit = 64 << 20

    let path: String

    private struct Contents: Codable {
        var version: Int
        var apps: [String: [RunRecord]]
    }

    /// The saved runs by bundle identifier; empty when there is no file. Fails with what is wrong otherwise.
    func read() -> Result<[String: [RunRecord]], RunHistoryFileError> {
        guard FileManager.default.fileExists(atPath: self.path) else { return .success([:]) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: self.path)
        if let size = attributes?[.size] as? Int, size > Self.readByteLimit {
            return .failure(RunHistoryFileError("\(self.path) is larger than \(Self.readByteLimit) bytes"))
        }
        guard let data = FileManager.default.contents(atPath: self.path) else {
            return .failure(RunHistoryFileError("cannot read \(self.path)"))
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.version == Self.version
        else {
            return .failure(RunHistoryFileError("\(self.path) is not a run history of version \(Self.version)"))
        }
        return .success(contents.apps)
    }

    /// Replaces the file; returns nil, or why it could not.
    func write(_ apps: [String: [RunRecord]]) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Contents(version: Self.version, apps: apps)) else {
            return "the history did not encode"
        }
        let directory = (self.path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            return "cannot create \(directory): \(error)"
        }
        let temporary = "\(self.path).\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            return "cannot write \(temporary)"
        }
        guard rename(temporary, self.path) == 0 else {
            let problem = "cannot rename \(temporary) to \(self.path): errno \(errno)"
            unlink(temporary)
            return problem
        }
        return nil
    }
}

/// Why a run history file was not read.
struct RunHistoryFileError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
