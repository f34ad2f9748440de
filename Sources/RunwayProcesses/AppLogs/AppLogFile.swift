import CLibUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One `StandardOutPath` or `StandardErrorPath` file: lines appended, rotated by size (`LogFileSizeLimit`,
/// `LogFileCount`: `app.log`, `app.log.1`, ... `app.log.<count-1>`, oldest last).
///
/// Its directory is opened by a walk that follows no symbolic link in any component and refuses a directory
/// another user owns or may write to (`LogDirectory`); the file is opened beneath that descriptor with
/// `O_NOFOLLOW | O_CLOEXEC | O_APPEND`, created with mode 0640 (less the umask), and refused when another user
/// owns it or it has another hard link (`refusal(of:path:)`); the app's children never inherit the descriptor.
/// Only a regular file is rotated (`/dev/null` or a FIFO is written as it is), by `renameat` beneath the same
/// descriptor, which replaces a planted link at `app.log.N` rather than following it.
///
/// A rotation that cannot be done (something that cannot be renamed over, such as a directory planted at
/// `app.log.1`) leaves the file at its limit: the lines that would pass it are not written (`append` returns
/// false; the ring of `runway logs` still has them), one error names the path and the limit, and rotation is
/// tried again at most once a second while lines keep coming, and at the next run's start.
///
/// Writes are plain `write(2)` calls on the loop thread, at most one line per call, so at most
/// `outputLinesPerTurn` calls per stream per loop turn: an `O_APPEND` write of a line is a page-cache copy of a few
/// microseconds, cheaper than a hop to another thread (Decision 89). A write that fails is reported once per opening
/// through `problem` and the line is not written. Not thread-safe: loop thread only.
final class AppLogFile {
    /// Nanoseconds between two tries of a rotation that failed.
    static let rotationRetryNanoseconds: UInt64 = 1_000_000_000

    let path: String
    let sizeLimit: Int
    let count: Int
    private var directory: LogDirectory?
    private var name = ""
    private var fd: Int32 = -1
    private var size = 0
    private var isRegular = false
    private var reported = false
    /// Monotonic nanoseconds before which a failed rotation is not tried again; nil while rotation works.
    private var rotationBlockedUntil: UInt64?
    /// Called with a description of each new problem (open, write or rotation failure).
    var problem: (String) -> Void = { _ in }

    init(path: String, sizeLimit: Int, count: Int) {
        precondition(sizeLimit > 0 && count > 0, "log file bounds must be positive")
        self.path = path
        self.sizeLimit = sizeLimit
        self.count = count
    }

    deinit { self.close() }

    /// Opens (or reopens) the file at the start of a run, walking its directory again, so that a file moved away
    /// meanwhile is recreated. A failure is reported, and the run's lines go to the ring only.
    func reopen() {
        self.reported = false
        self.rotationBlockedUntil = nil
        self.close()
        self.directory = nil
        do throws(LogDirectoryError) {
            let (directory, name) = try LogDirectory.open(containing: self.path)
            self.directory = directory
            self.name = name
        } catch {
            self.report("cannot open \(self.path): \(error)")
            return
        }
        self.openFile()
    }

    /// Opens `name` beneath the directory's descriptor.
    private func openFile() {
        self.close()
        guard let directory = self.directory else { return }
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        let fd = openat(directory.fd, self.name, flags, mode_t(0o640))
        guard fd >= 0 else {
            self.report("cannot open \(self.path): \(String(cString: strerror(errno)))")
            return
        }
        var info = stat()
        _ = fstat(fd, &info)
        if let refusal = Self.refusal(of: info, path: self.path) {
            _ = Glibc.close(fd)
            self.report(refusal)
            return
        }
        self.fd = fd
        self.isRegular = (info.st_mode & S_IFMT) == S_IFREG
        self.size = Int(info.st_size)
    }

    /// Why an opened output file must not be written, or nil: a regular file or a FIFO that another user owns
    /// (planted in a shared directory: that user would read every line the app prints), or a regular file with
    /// more than one hard link (a planted link to a file elsewhere). A device (`/dev/null`) is fine.
    static func refusal(of info: stat, path: String) -> String? {
        let kind = info.st_mode & S_IFMT
        if kind == S_IFREG || kind == S_IFIFO, info.st_uid != geteuid() {
            return "cannot open \(path): it belongs to uid \(info.st_uid), not to the daemon's user (another user "
                + "would read the app's output)"
        }
        if kind == S_IFREG, info.st_nlink > 1 {
            return "cannot open \(path): it has \(info.st_nlink) hard links (another name could be anywhere)"
        }
        return nil
    }

    func close() {
        if self.fd >= 0 { _ = Glibc.close(self.fd) }
        self.fd = -1
    }

    /// Appends `line` and a newline, rotating first when the file would grow past `sizeLimit`.
    ///
    /// - Returns: False when the line was not written (no file open, a failed write, or the file at its limit
    ///   with rotation blocked).
    @discardableResult
    func append(_ line: String) -> Bool {
        guard self.fd >= 0 else { return false }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if self.isRegular, self.size > 0, self.size + bytes.count > self.sizeLimit {
            let now = Self.monotonicNanoseconds()
            if let until = self.rotationBlockedUntil, now < until { return false }
            guard self.rotate() else {
                self.rotationBlockedUntil = now + Self.rotationRetryNanoseconds
                return false
            }
            self.rotationBlockedUntil = nil
            guard self.fd >= 0 else { return false }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(self.fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                self.report("cannot write \(self.path): \(String(cString: strerror(errno))); line not written")
                return false
            }
            offset += written
        }
        self.size += bytes.count
        return true
    }

    /// `app.log.<count-2>` becomes `.<count-1>` (replacing it), ..., `app.log` becomes `app.log.1`, and a new
    /// `app.log` is opened. With a count of 1, the file is removed and a new one opened. Stops at the first
    /// rename that fails for another reason than a missing file, leaving `app.log` open as it is.
    ///
    /// - Returns: False when the rotation could not be done (reported once, until a rotation succeeds).
    private func rotate() -> Bool {
        guard let directory = self.directory else { return false }
        if self.count == 1 {
            if unlinkat(directory.fd, self.name, 0) != 0, errno != ENOENT {
                self.reportBlocked(self.name, nil)
                return false
            }
        } else {
            for index in stride(from: self.count - 1, through: 1, by: -1) {
                let from = index == 1 ? self.name : "\(self.name).\(index - 1)"
                let to = "\(self.name).\(index)"
                if renameat(directory.fd, from, directory.fd, to) != 0, errno != ENOENT {
                    self.reportBlocked(from, to)
                    return false
                }
            }
        }
        self.openFile()
        return true
    }

    /// The one error of a blocked rotation: what could not be moved, and that the file stays at its limit.
    private func reportBlocked(_ from: String, _ to: String?) {
        let reason = String(cString: strerror(errno))
        guard self.rotationBlockedUntil == nil else { return }
        let directory = self.directory?.path ?? ""
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let what = to.map { "cannot rename \(prefix)\(from) to \(prefix)\($0)" } ?? "cannot remove \(prefix)\(from)"
        self.problem(
            "cannot rotate \(self.path): \(what): \(reason); the file stays at its LogFileSizeLimit of "
                + "\(self.sizeLimit) bytes and further output is not written to it (runway logs still has it)"
        )
    }

    private func report(_ text: String) {
        guard !self.reported else { return }
        self.reported = true
        self.problem(text)
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
