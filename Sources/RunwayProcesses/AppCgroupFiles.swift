#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One run's open `cgroup.freeze` and `cgroup.events` of its app's cgroup: each opened at its first use
/// in the run and kept until the run's exit, so a freeze, a thaw and each look at `frozen` are one `pwrite` or
/// `pread` instead of an open, a read or write, and a close. The opens were most of what a freezer suspension and
/// resumption cost the loop (a `kernfs` lookup of two path components each time). A failed call closes the file;
/// the caller then goes through `AppCgroup`'s path-based calls, which retry by path. Two descriptors per
/// running freezer app at most (Docs/Deployment.md, `LimitNOFILE`). Loop thread only.
final class AppCgroupFiles {
    private var freeze: Int32 = -1
    private var events: Int32 = -1

    deinit { self.close() }

    /// Writes "1" or "0" to `cgroup.freeze`, opened through `open` at the first call. Returns false when the file
    /// cannot be opened or the write fails (the file is closed then).
    func writeFreeze(_ frozen: Bool, open: (_ flags: Int32) -> Int32) -> Bool {
        if self.freeze < 0 { self.freeze = open(O_WRONLY) }
        guard self.freeze >= 0 else { return false }
        let written = pwrite(self.freeze, frozen ? "1" : "0", 1, 0)
        if written == 1 { return true }
        Glibc.close(self.freeze)
        self.freeze = -1
        return false
    }

    /// `cgroup.events` read now, opened through `open` at the first call: `populated` and `frozen` as 0 or 1, or nil
    /// when the file cannot be read or does not show both (the file is closed then).
    func readEvents(open: (_ flags: Int32) -> Int32) -> (populated: Bool, frozen: Bool)? {
        if self.events < 0 { self.events = open(O_RDONLY) }
        guard self.events >= 0 else { return nil }
        let parsed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) {
            buffer -> (populated: Bool, frozen: Bool)? in
            let count = pread(self.events, buffer.baseAddress, buffer.count, 0)
            guard count > 0 else { return nil }
            return Self.parseEvents(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
        if parsed == nil {
            Glibc.close(self.events)
            self.events = -1
        }
        return parsed
    }

    /// `populated` and `frozen` from `cgroup.events` text ("populated 1\nfrozen 0\n"), each "0" or "1"; nil when one
    /// is missing or has another value.
    static func parseEvents(_ bytes: UnsafeBufferPointer<UInt8>) -> (populated: Bool, frozen: Bool)? {
        var populated: Bool?
        var frozen: Bool?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")),
                line.index(after: space) == line.index(before: line.endIndex)
            else { continue }
            let value = line[line.index(after: space)]
            guard value == UInt8(ascii: "0") || value == UInt8(ascii: "1") else { continue }
            let key = line[line.startIndex..<space]
            if key.elementsEqual("populated".utf8) { populated = value == UInt8(ascii: "1") }
            if key.elementsEqual("frozen".utf8) { frozen = value == UInt8(ascii: "1") }
        }
        guard let populated, let frozen else { return nil }
        return (populated: populated, frozen: frozen)
    }

    /// Closes both files; the next use opens them again.
    func close() {
        if self.freeze >= 0 { Glibc.close(self.freeze) }
        if self.events >= 0 { Glibc.close(self.events) }
        self.freeze = -1
        self.events = -1
    }

    /// How many of the two files are open. For tests.
    var openCount: Int { (self.freeze >= 0 ? 1 : 0) + (self.events >= 0 ? 1 : 0) }
}

extension AppCgroup {
    /// `setFrozen` through the run's kept `cgroup.freeze` when there is one; by path when it cannot be used.
    func setFrozen(_ frozen: Bool, keeping files: AppCgroupFiles?) -> Int32 {
        if let files, files.writeFreeze(frozen, open: { self.openFile("cgroup.freeze", $0) }) { return 0 }
        return self.setFrozen(frozen)
    }

    /// `cgroup.events` through the run's kept file when there is one; by path (`eventFlags`) when it cannot be used.
    func eventFlags(keeping files: AppCgroupFiles?) -> (populated: Bool, frozen: Bool)? {
        if let files, let flags = files.readEvents(open: { self.openFile("cgroup.events", $0) }) { return flags }
        return self.eventFlags
    }
}
