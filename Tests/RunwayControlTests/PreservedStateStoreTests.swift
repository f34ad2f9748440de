import Foundation
import RunwayCore
import RunwayLocking
import RunwayTestKit
import Testing

@testable import RunwayControl

#if canImport(Glibc)
import Glibc
#endif

/// `PreservedStateStore` on real files (Behaviour.md R1): durable round trips, a torn or changed file never
/// returned, the limit refused by name, exports and imports.
@Suite struct PreservedStateStoreTests {
    final class Reports: Sendable {
        let lines = RunwayLock<[String]>([])
        var all: [String] { self.lines.withLock { $0 } }
        func add(_ line: String) { self.lines.withLock { $0.append(line) } }
    }

    func store(
        _ directory: TemporaryConfig,
        limit: Int = 1 << 20,
        boot: String? = "boot-a",
        reports: Reports? = nil
    )
        -> PreservedStateStore
    {
        PreservedStateStore(directory: directory.path + "/states", byteLimit: limit, bootID: boot) { line in
            reports?.add(line)
        }
    }

    @Test func R1_aSavedStateIsLoadedBackWithItsVersionBootAndEnding() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory)
        #expect(store.load(app: "com.example.a") == nil)
        let blob = Array("count=41".utf8)
        try store.save(app: "com.example.a", state: blob, versionKey: "v1")
        var loaded = store.load(app: "com.example.a")
        #expect(loaded == PreservedState(app: "com.example.a", state: blob, versionKey: "v1", bootID: "boot-a"))
        try store.recordEnding(app: "com.example.a", ending: .purged)
        loaded = store.load(app: "com.example.a")
        #expect(loaded?.ending == .purged)
        #expect(loaded?.state == blob)
        // Another daemon on the same directory (a restart) reads it too.
        #expect(self.store(directory, boot: "boot-b").load(app: "com.example.a")?.bootID == "boot-a")
        var info = stat()
        #expect(stat(store.path(of: "com.example.a"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try store.discard(app: "com.example.a")
        #expect(store.load(app: "com.example.a") == nil)
        try store.save(app: "com.example.a", state: [], versionKey: nil)
        #expect(store.load(app: "com.example.a")?.state == [], "an empty state is a state")
    }

    @Test func R1_aTornOrChangedFileIsNeverLoadedAndATornTemporaryNeverReplacesTheGoodOne() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let reports = Reports()
        let store = self.store(directory, reports: reports)
        let good = Array(repeating: UInt8(ascii: "g"), count: 10_000)
        try store.save(app: "com.example.a", state: good, versionKey: nil)
        let path = store.path(of: "com.example.a")
        // A save cut short by a crash leaves a partial temporary file beside the good one.
        let partial = Array(
            PreservedStateFormat.encode(PreservedState(app: "com.example.a", state: [1, 2], versionKey: nil)).prefix(20)
        )
        #expect(FileManager.default.createFile(atPath: path + ".tmp", contents: Data(partial)))
        #expect(store.load(app: "com.example.a")?.state == good)
        // Truncated in place: not loaded, reported.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(truncate(path, off_t(bytes.count - 100)) == 0)
        #expect(store.load(app: "com.example.a") == nil)
        #expect(reports.all.last?.contains("ignored") == true, "\(reports.all)")
        // One bit flipped in the blob: not loaded.
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x04
        try Data(flipped).write(to: URL(fileURLWithPath: path))
        #expect(store.load(app: "com.example.a") == nil)
        #expect(reports.all.last?.contains("checksum") == true, "\(reports.all)")
        // A new save replaces the bad file.
        try store.save(app: "com.example.a", state: good, versionKey: nil)
        #expect(store.load(app: "com.example.a")?.state == good)
    }

    @Test func R1_aStateOverTheLimitIsRefusedNamingTheKeyAndTheStoredOneStays() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory, limit: 1_000)
        try store.save(app: "com.example.a", state: Array(repeating: 7, count: 1_000), versionKey: nil)
        #expect {
            try store.save(app: "com.example.a", state: Array(repeating: 8, count: 1_001), versionKey: nil)
        } throws: { error in
            let error = error as? PreservedStateError
            return error?.code == .stateTooLarge
                && error?.description.contains("StateRestorationByteLimit (1000") == true
        }
        #expect(store.load(app: "com.example.a")?.state == Array(repeating: 7, count: 1_000))
        // A file a daemon with a larger limit wrote is not loaded by one with a smaller limit.
        try self.store(directory, limit: 5_000).save(
            app: "com.example.b",
            state: Array(repeating: 1, count: 2_000),
            versionKey: nil
        )
        #expect(store.load(app: "com.example.b") == nil)
    }

    @Test func R1_anExportImportsBackWholeAndABadOneChangesNothing() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory, limit: 1_000)
        #expect(throws: PreservedStateError.self) { try store.exportState(app: "com.example.a") }
        try store.save(app: "com.example.a", state: Array("node-1".utf8), versionKey: "v3")
        try store.recordEnding(app: "com.example.a", ending: .shutdown)
        let export = try store.exportState(app: "com.example.a")

        let other = try TemporaryConfig()
        defer { other.remove() }
        let target = self.store(other, limit: 1_000, boot: "boot-z")
        try target.importState(app: "com.example.a", bytes: export, versionKey: "v3")
        let imported = target.load(app: "com.example.a")
        #expect(imported?.state == Array("node-1".utf8))
        #expect(imported?.versionKey == "v3")
        #expect(imported?.ending == .shutdown)

        func refusal(_ app: String, _ bytes: [UInt8], _ store: PreservedStateStore) -> PreservedStateError? {
            do { try store.importState(app: app, bytes: bytes, versionKey: "v3") } catch { return error }
            return nil
        }
        #expect(refusal("com.example.b", export, target)?.code == .wrongApp)
        var flipped = export
        flipped[export.count - 12] ^= 1
        #expect(refusal("com.example.a", flipped, target)?.code == .badChecksum)
        #expect(refusal("com.example.a", Array(export.prefix(30)), target)?.code != nil)
        #expect(refusal("com.example.a", Array("hello".utf8), target)?.code == .malformed)
        try self.store(other, limit: 5_000).save(
            app: "com.example.c",
            state: Array(repeating: 1, count: 2_000),
            versionKey: nil
        )
        let large = try self.store(other, limit: 5_000).exportState(app: "com.example.c")
        let tooLarge = refusal("com.example.c", large, target)
        #expect(tooLarge?.code == .stateTooLarge)
        #expect(tooLarge?.description.contains("StateRestorationByteLimit") == true)
        #expect(target.load(app: "com.example.a")?.state == Array("node-1".utf8), "nothing half-applied")
        #expect(target.load(app: "com.example.c") != nil ? false : true)
    }

    @Test func R5_anExportOfAnotherRunwayStateVersionIsRefusedNamingBoth() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory, limit: 1_000)
        try store.save(app: "com.example.a", state: Array("old".utf8), versionKey: "v1")
        try store.recordEnding(app: "com.example.a", ending: .shutdown)
        let export = try store.exportState(app: "com.example.a")
        let other = try TemporaryConfig()
        defer { other.remove() }
        let target = self.store(other, limit: 1_000)
        for version in ["v2", nil] as [String?] {
            do {
                try target.importState(app: "com.example.a", bytes: export, versionKey: version)
                Issue.record("imported a state of RunwayStateVersion v1 into an app of \(String(describing: version))")
            } catch {
                #expect(error.code == .wrongVersion)
                #expect(error.description.contains("RunwayStateVersion \"v1\""), "\(error)")
                #expect(error.description.contains(version.map { "\"\($0)\"" } ?? "(none)"), "\(error)")
            }
        }
        #expect(target.load(app: "com.example.a") == nil, "nothing imported")
        try target.importState(app: "com.example.a", bytes: export, versionKey: "v1")
        #expect(target.load(app: "com.example.a")?.state == Array("old".utf8))
    }

    @Test func R1_anExportOfAFileThatCannotBeUsedSaysWhyNotThatThereIsNone() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory)
        try store.save(app: "com.example.a", state: Array("good".utf8), versionKey: nil)
        let path = store.path(of: "com.example.a")
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count - 12] ^= 1
        try bytes.write(to: URL(fileURLWithPath: path))
        func exportError(_ app: String) -> PreservedStateError? {
            do { _ = try store.exportState(app: app) } catch { return error }
            return nil
        }
        let changed = exportError("com.example.a")
        #expect(changed?.code == .badChecksum, "\(String(describing: changed))")
        #expect(changed?.description.contains(path) == true, "\(String(describing: changed))")
        // A symbolic link in the store is never followed.
        try store.save(app: "com.example.b", state: Array("other".utf8), versionKey: nil)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: store.path(of: "com.example.b"))
        #expect(exportError("com.example.a")?.code == .untrusted)
        #expect(exportError("com.example.none")?.code == .noState)
    }

    /// Saves `state` for com.example.a in a new store, records `ending`, exports it and imports the export into
    /// another new store: the import's error (nil when it was accepted) and whether that store then holds a state.
    func importElsewhere(state: [UInt8], ending: RunEnding) throws -> (error: PreservedStateError?, holds: Bool) {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory)
        try store.save(app: "com.example.a", state: state, versionKey: nil)
        try store.recordEnding(app: "com.example.a", ending: ending)
        let export = try store.exportState(app: "com.example.a")
        let other = try TemporaryConfig()
        defer { other.remove() }
        let target = self.store(other)
        do {
            try target.importState(app: "com.example.a", bytes: export, versionKey: nil)
            return (nil, target.load(app: "com.example.a") != nil)
        } catch {
            return (error, target.load(app: "com.example.a") != nil)
        }
    }

    @Test func R3_anExportWhoseRunEndedInAWayThatDiscardsIsRefusedAtImport() throws {
        let result = try self.importElsewhere(state: Array("old".utf8), ending: .terminated)
        let error = try #require(result.error, "imported a state whose run ended as terminated")
        #expect(error.code == .notRestorable)
        #expect(error.description.contains("terminated"), "\(error)")
        #expect(!result.holds, "nothing imported")
    }

    @Test func R1_anExportWhoseStateIsNotUTF8TextIsRefusedAtImport() throws {
        let result = try self.importElsewhere(state: [0x61, 0xFF, 0xFE], ending: .purged)
        let error = try #require(result.error, "imported a state that is not UTF-8")
        #expect(error.code == .notText)
        #expect(error.description.contains("UTF-8"), "\(error)")
        #expect(!result.holds, "nothing imported")
    }

    @Test func R1_anAppWithTheLongestBundleIdentifierPreservesItsState() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = self.store(directory)
        // 255 bytes, the most CFBundleIdentifier allows; another that differs only in its last byte.
        let long = "com." + String(repeating: "a", count: 250) + "b"
        let twin = "com." + String(repeating: "a", count: 250) + "c"
        try store.save(app: long, state: Array("long".utf8), versionKey: nil)
        try store.save(app: twin, state: Array("twin".utf8), versionKey: nil)
        #expect(store.load(app: long)?.state == Array("long".utf8))
        #expect(store.load(app: twin)?.state == Array("twin".utf8))
        let name = (store.path(of: long) as NSString).lastPathComponent
        #expect(name.utf8.count + ".tmp".utf8.count <= 255, "\(name)")
        try store.discard(app: long)
        #expect(store.load(app: long) == nil)
        #expect(store.load(app: twin) != nil)
    }
}
