// The preserved states of one daemon (Behaviour.md R1): one file per app in `<state file>.state/`, beside the
// process state file and the run history in the StateDirectory (StateDirectory.swift), one directory per control
// socket.
//
// Durability: a save writes `<app>.state.tmp` (mode 0600, never through a symbolic link), fsyncs it, renames it over
// `<app>.state` and fsyncs the directory, so after a crash or a power loss the file is the old blob or the new one,
// never a mix; a torn temporary file is never read. Every file carries a checksum (PreservedStateFormat): one that
// fails it is ignored, reported, and left for an operator to look at; the blob before it was already replaced only
// if the rename happened, which follows the fsync.
//
// Threads: the changes (save, discard, recordEnding, import) are serialised by one lock and block on the file
// system (fsync: milliseconds); the daemon calls them on `PreservedStateWriter`'s queue, never on the loop thread.
// `load` takes no lock: a rename is atomic, so it reads the old file or the new one, and the loop thread reads a
// blob (at most `StateRestorationByteLimit`) when it restores it.

import Foundation
import RunwayCore
import RunwayLocking
import RunwayProcesses

/// The durable store of preserved states. Thread-safe.
package final class PreservedStateStore: Sendable {
    /// The store's directory (`StateDirectory.preservedStateDirectory`).
    package let directory: String
    /// `StateRestorationByteLimit`: the largest blob stored, loaded or imported.
    package let byteLimit: Int
    /// This boot's id (`/proc/sys/kernel/random/boot_id`), recorded with each save; nil when unknown.
    package let bootID: String?
    private let report: @Sendable (String) -> Void
    private let changes = RunwayLock(())

    /// - Parameters:
    ///   - directory: Created 0700 at the first save; its parent must be a directory of this user.
    ///   - byteLimit: `StateRestorationByteLimit`.
    ///   - bootID: This boot's id, or nil.
    ///   - report: Told, once per event, of a file that was ignored (corrupt, torn, untrusted) and why.
    package init(
        directory: String,
        byteLimit: Int,
        bootID: String?,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.directory = directory
        self.byteLimit = byteLimit
        self.bootID = bootID
        self.report = report
    }

    /// The file of `app`: its bundle identifier with every byte outside `A-Za-z0-9._-` as `%XX`, so no name can
    /// leave the directory. A name over `fullNameBytes` is cut there and followed by `-` and a 64-bit FNV-1a hash
    /// of the whole name, so that with `.state.tmp` it stays within the file system's 255-byte name limit (a
    /// bundle identifier may have 255 bytes); the file names its app, so a state is never read as another's.
    package func path(of app: String) -> String {
        var name = ""
        for byte in app.utf8 {
            let scalar = Unicode.Scalar(byte)
            if ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && !name.isEmpty)
            {
                name.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                name += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        if name.utf8.count > Self.fullNameBytes {
            var hash: UInt64 = 14_695_981_039_346_656_037
            for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
            let hex = String(hash, radix: 16)
            name =
                String(decoding: name.utf8.prefix(Self.fullNameBytes), as: UTF8.self) + "-"
                + String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "\(self.directory)/\(name).state"
    }

    /// The longest escaped identifier used whole as a file name: with `.state.tmp` it stays below 255 bytes.
    static let fullNameBytes = 200

    // MARK: Changes

    /// Stores `state` as the app's preserved state, replacing the one before only once the new one is durable.
    ///
    /// - Throws: `stateTooLarge` naming `StateRestorationByteLimit` (nothing changes), or `io`.
    package func save(app: String, state: [UInt8], versionKey: String?) throws(PreservedStateError) {
        guard state.count <= self.byteLimit else {
            throw PreservedStateError.tooLarge(app: app, bytes: state.count, limit: self.byteLimit)
        }
        let record = PreservedState(app: app, state: state, versionKey: versionKey, bootID: self.bootID)
        try self.changes.withLock { _ throws(PreservedStateError) in try self.write(record) }
    }

    /// Records how the run that preserved the app's state ended, or (nil) that a run using it goes on; nothing when
    /// it has none (or it is unreadable).
    package func recordEnding(app: String, ending: RunEnding?) throws(PreservedStateError) {
        try self.changes.withLock { _ throws(PreservedStateError) in
            guard var record = self.load(app: app), record.ending != ending else { return }
            record.ending = ending
            try self.write(record)
        }
    }

    /// Removes the app's preserved state; nothing when it has none.
    package func discard(app: String) throws(PreservedStateError) {
        try self.changes.withLock { _ throws(PreservedStateError) in
            let path = self.path(of: app)
            guard unlink(path) == 0 || errno == ENOENT else { throw Self.ioError("remove \(path)") }
            try self.syncDirectory()
        }
    }

    /// The app's preserved state as a self-describing byte string (format version, app, version key, ending, blob,
    /// checksum: PreservedStateFormat), for `runway export-state`.
    ///
    /// - Throws: `noState` when the app has none; for a file that cannot be used, why (`untrusted`, `malformed`,
    ///   `badChecksum`, `stateTooLarge`), naming the file.
    package func exportState(app: String) throws(PreservedStateError) -> [UInt8] {
        let record: PreservedState?
        do throws(PreservedStateError) {
            record = try self.readRecord(app: app)
        } catch {
            throw PreservedStateError(
                error.code,
                "the preserved state of \(app) (\(self.path(of: app))) cannot be exported: \(error.description)"
            )
        }
        guard let record else { throw PreservedStateError(.noState, "\(app) has no preserved state") }
        return PreservedStateFormat.encode(record)
    }

    /// Stores an export as the app's preserved state; all of it or nothing.
    ///
    /// - Parameters:
    ///   - versionKey: The app's `RunwayStateVersion` now: an export preserved under another is refused (R5).
    /// - Throws: `malformed` or `badChecksum` for bytes that are not an intact export, `wrongApp` for another app's,
    ///   `wrongVersion` for another `RunwayStateVersion`, `notText` for a state that is not UTF-8, `notRestorable`
    ///   for one whose run ended in a way that discards (R3), `stateTooLarge` naming `StateRestorationByteLimit`, or
    ///   `io`. Nothing changes when it throws.
    package func importState(app: String, bytes: [UInt8], versionKey: String?) throws(PreservedStateError) {
        guard bytes.count <= self.byteLimit + PreservedStateFormat.headerByteLimit + 17 else {
            throw PreservedStateError.tooLarge(app: app, bytes: bytes.count, limit: self.byteLimit)
        }
        let record = try PreservedStateFormat.decode(bytes, byteLimit: self.byteLimit)
        guard record.app == app else {
            throw PreservedStateError(.wrongApp, "the export is of \(record.app), not of \(app)")
        }
        guard String(validating: record.state, as: UTF8.self) != nil else {
            // A process app's state reaches it in JSON strings (`restoredState`): bytes that are not UTF-8 would
            // reach it changed.
            throw PreservedStateError(
                .notText,
                "the export's state is not UTF-8 text, which is all an app can preserve over the app protocol "
                    + "(binary data is encoded, e.g. base64); nothing was imported"
            )
        }
        if let ending = record.ending, !ending.restores {
            throw PreservedStateError(
                .notRestorable,
                "the export's last run ended as \(ending.rawValue), which discards its state (R3): it would never "
                    + "be restored; nothing was imported"
            )
        }
        guard record.versionKey == versionKey else {
            // Quoted and escaped: a version read from a file may hold any character.
            let name = { (key: String?) in key?.debugDescription ?? "(none)" }
            throw PreservedStateError(
                .wrongVersion,
                "the export was preserved under RunwayStateVersion \(name(record.versionKey)), and \(app) now has "
                    + "\(name(versionKey)) (its Info.plist): a state of another version is not restored (R5); "
                    + "nothing was imported"
            )
        }
        try self.changes.withLock { _ throws(PreservedStateError) in try self.write(record) }
    }

    // MARK: Reading

    /// The app's preserved state, or nil when it has none. A file that is not intact (torn, truncated, changed),
    /// over the limit, or not trusted (not a regular file of this user, writable by others) is never returned: it
    /// is reported and left in place, and the app has no preserved state until a save replaces it.
    package func load(app: String) -> PreservedState? {
        do throws(PreservedStateError) {
            return try self.readRecord(app: app)
        } catch {
            self.report("preserved state \(self.path(of: app)) ignored: \(error.description)")
            return nil
        }
    }

    /// The app's preserved state, nil when it has none, or why its file cannot be used (`untrusted`, `malformed`,
    /// `badChecksum`, `stateTooLarge`, `wrongApp`).
    private func readRecord(app: String) throws(PreservedStateError) -> PreservedState? {
        let path = self.path(of: app)
        let fd: Int32
        let size: Int
        switch PrivateFile.openTrusted(path) {
        case .success(nil): return nil
        case .success(let opened?): (fd, size) = opened
        case .failure(let problem):
            throw PreservedStateError(.untrusted, "not a private regular file (\(problem))")
        }
        defer { close(fd) }
        let most = self.byteLimit + PreservedStateFormat.headerByteLimit + 17
        guard size <= most else {
            throw PreservedStateError(
                .stateTooLarge,
                "\(size) bytes, more than StateRestorationByteLimit (\(self.byteLimit) bytes) allows"
            )
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            done += count
        }
        guard done == size else { throw PreservedStateError(.malformed, "shorter than its size") }
        let record = try PreservedStateFormat.decode(bytes, byteLimit: self.byteLimit)
        guard record.app == app else { throw PreservedStateError(.wrongApp, "it is of \(record.app)") }
        return record
    }

    // MARK: Writing

    /// Under `changes`: temporary file, fsync, rename, fsync of the directory.
    private func write(_ record: PreservedState) throws(PreservedStateError) {
        do { _ = try LogDirectory.open(self.directory, creatingWith: 0o700) } catch {
            throw PreservedStateError(.io, "cannot create \(self.directory): \(error.description)")
        }
        let path = self.path(of: record.app)
        let temporary = path + ".tmp"
        let bytes = PreservedStateFormat.encode(record)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.ioError("create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = Self.ioError("write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let error = Self.ioError("fsync \(temporary)")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = Self.ioError("rename \(temporary)")
            unlink(temporary)
            throw error
        }
        try self.syncDirectory()
    }

    /// Makes the directory's entries (a rename, an unlink) durable.
    private func syncDirectory() throws(PreservedStateError) {
        let fd = open(self.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw Self.ioError("open \(self.directory)")
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Self.ioError("fsync \(self.directory)") }
    }

    private static func ioError(_ what: String) -> PreservedStateError {
        PreservedStateError(.io, "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
