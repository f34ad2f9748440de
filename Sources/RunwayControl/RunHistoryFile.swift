import Foundation
import Runway
import RunwayProcesses

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
    /// The smallest read limit: a file larger than `readByteLimit` is not read.
    static let minimumReadByteLimit = 64 << 20
    /// The most bytes one saved run takes: its reason and each of its `RunHistory.outputLineLimit` output lines at
    /// most `RunHistory.outputLineByteLimit` bytes, every byte of them a control character that JSON writes as
    /// `\u00XX` (6 bytes), plus the times, numbers and keys.
    static let runByteBound = (RunHistory.outputLineLimit + 1) * (6 * RunHistory.outputLineByteLimit + 3) + 512

    let path: String
    /// A larger file is not read: it cannot have been written by a daemon with this configuration.
    let readByteLimit: Int

    /// - Parameters:
    ///   - path: The file (`StateDirectory.historyFile`).
    ///   - readByteLimit: What `read` accepts at most; see `readByteLimit(apps:runsPerApp:)`.
    init(path: String, readByteLimit: Int = Self.minimumReadByteLimit) {
        self.path = path
        self.readByteLimit = readByteLimit
    }

    /// The largest history a daemon with `apps` apps and `RunHistoryLimit` `runsPerApp` can write, at least
    /// `minimumReadByteLimit`: what `read` must accept, so that a daemon never refuses the file it wrote.
    static func readByteLimit(apps: Int, runsPerApp: Int) -> Int {
        max(Self.minimumReadByteLimit, apps * runsPerApp * Self.runByteBound + 4_096)
    }

    private struct Contents: Codable {
        var version: Int
        var apps: [String: [RunRecord]]
    }

    /// The saved runs by bundle identifier; empty when there is no file. Fails with what is wrong otherwise,
    /// without reading it, when it is not a regular file owned by this user that no other user may write (a
    /// symbolic link, a FIFO, a file another user planted in a shared state directory): the history is shown by
    /// `status` as the daemon's own words, so only what this user wrote is trusted, as for the process state file.
    func read() -> Result<[String: [RunRecord]], RunHistoryFileError> {
        let fd: Int32
        let size: Int
        switch PrivateFile.openTrusted(self.path) {
        case .success(nil): return .success([:])
        case .success(let opened?): (fd, size) = opened
        case .failure(.cannotOpen(let code)):
            return .failure(RunHistoryFileError("cannot open \(self.path): \(String(cString: strerror(code)))"))
        case .failure(.notRegular): return .failure(RunHistoryFileError("\(self.path) is not a regular file"))
        case .failure(.untrusted(let uid)):
            return .failure(
                RunHistoryFileError("\(self.path) belongs to uid \(uid) or is writable by group or others")
            )
        }
        defer { close(fd) }
        guard size <= self.readByteLimit else {
            return .failure(RunHistoryFileError("\(self.path) is larger than \(self.readByteLimit) bytes"))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        guard let data = try? handle.read(upToCount: self.readByteLimit + 1), data.count <= self.readByteLimit
        else {
            return .failure(RunHistoryFileError("cannot read \(self.path)"))
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.version == Self.version
        else {
            return .failure(RunHistoryFileError("\(self.path) is not a run history of version \(Self.version)"))
        }
        return .success(contents.apps)
    }

    /// Why the file's directory cannot hold a history this daemon trusts (another user owns it or may write in
    /// it, so could replace the file at any time, or it is reached through a symbolic link or a directory another
    /// user may change: `LogDirectory`), or nil. A missing directory is fine: `write` creates it 0700.
    func directoryProblem() -> String? {
        let directory = (self.path as NSString).deletingLastPathComponent
        var info = stat()
        guard lstat(directory, &info) == 0 else { return nil }
        if let problem = PrivateFile.directoryProblem(directory, info: info) { return problem }
        // No symbolic link in any component, and no directory on the way another user may change.
        do { _ = try LogDirectory.open(directory) } catch { return error.description }
        return nil
    }

    /// Replaces the file; returns nil, or why it could not.
    func write(_ apps: [String: [RunRecord]]) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Contents(version: Self.version, apps: apps)) else {
            return "the history did not encode"
        }
        // A file larger than a daemon reads back would be moved aside at the next start: it is not written.
        guard data.count <= self.readByteLimit else {
            return "the history is \(data.count) bytes, more than the \(self.readByteLimit) a daemon reads back "
                + "(apps x RunHistoryLimit x \(Self.runByteBound) bytes, at least 64 MiB); \(self.path) not replaced"
        }
        let directory = (self.path as NSString).deletingLastPathComponent
        // Missing components are created 0700 beneath the walked ones, never through a symbolic link or in a
        // directory another user may change (`LogDirectory`).
        do { _ = try LogDirectory.open(directory, creatingWith: 0o700) } catch {
            return "cannot create \(directory): \(error.description)"
        }
        let code = PrivateFile.replace(self.path, with: Array(data))
        return code == 0 ? nil : "cannot write \(self.path): \(String(cString: strerror(code)))"
    }
}

/// Why a run history file was not read.
struct RunHistoryFileError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
