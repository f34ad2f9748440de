import CLibUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One `StandardOutPath` or `StandardErrorPath` file: lines appended, rotated by size (`LogFileSizeLimit`,
/// `LogFileCount`: `app.log`, `app.log.1`, ... `app.log.<count-1>`, oldest last).
///
/// Opened with `O_NOFOLLOW | O_CLOEXEC | O_APPEND`, created with mode 0640 (less the umask): a symbolic link
/// planted at the path (for example by another user in a shared directory) is refused, not followed, and so is a
/// file or FIFO another user owns or a file with another hard link (`refusal(of:path:)`); the app's children
/// never inherit the descriptor. Only a regular file is rotated (`/dev/null` or a FIFO is
/// written as it is). Rotation renames, which replaces a planted link at `app.log.N` rather than following it.
///
/// Writes are plain `write(2)` calls on the loop thread (Docs/Decisions.md): at most one line per call, so at
/// most `outputLinesPerTurn` calls per stream per loop turn. A write that fails is reported once per opening
/// through `problem` and the line is not written. Not thread-safe: loop thread only.
final class AppLogFile {
    let path: String
    let sizeLimit: Int
    let count: Int
    private var fd: Int32 = -1
    private var size = 0
    private var isRegular = false
    private var reported = false
    /// Called with a description of each new problem (open, write or rotation failure).
    var problem: (String) -> Void = { _ in }

    init(path: String, sizeLimit: Int, count: Int) {
        precondition(sizeLimit > 0 && count > 0, "log file bounds must be positive")
        self.path = path
        self.sizeLimit = sizeLimit
        self.count = count
    }

    deinit { self.close() }

    /// Opens (or reopens) the file at the start of a run, so that a file moved away meanwhile is recreated. A
    /// failure is reported, and the run's lines go to the ring only.
    func reopen() {
        self.reported = false
        self.open()
    }

    private func open() {
        self.close()
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        let fd = Glibc.open(self.path, flags, mode_t(0o640))
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
    func append(_ line: String) {
        guard self.fd >= 0 else { return }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if self.isRegular, self.size > 0, self.size + bytes.count > self.sizeLimit {
            self.rotate()
            guard self.fd >= 0 else { return }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(self.fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                self.report("cannot write \(self.path): \(String(cString: strerror(errno))); line not written")
                return
            }
            offset += written
        }
        self.size += bytes.count
    }

    /// `app.log.<count-2>` becomes `.<count-1>` (replacing it), ..., `app.log` becomes `app.log.1`, and a new
    /// `app.log` is opened. With a count of 1, the file is emptied instead.
    private func rotate() {
        self.close()
        if self.count == 1 {
            _ = unlink(self.path)
        } else {
            for index in stride(from: self.count - 1, through: 1, by: -1) {
                let from = index == 1 ? self.path : "\(self.path).\(index - 1)"
                if rename(from, "\(self.path).\(index)") != 0, errno != ENOENT {
                    self.report("cannot rotate \(from): \(String(cString: strerror(errno)))")
                }
            }
        }
        self.open()
    }

    private func report(_ text: String) {
        guard !self.reported else { return }
        self.reported = true
        self.problem(text)
    }
}
