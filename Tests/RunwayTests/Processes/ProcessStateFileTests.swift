import Foundation
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The state file's format, and which files and directories are refused.
@Suite("Process state file")
struct ProcessStateFileTests {
    static let snapshot = ProcessStateSnapshot(
        bootID: "2ef898e1-9bcd-4698-869e-526955c493b3",
        owner: ProcessIdentity(pid: 4242, startTime: 1_000),
        entries: [
            .init(process: ProcessIdentity(pid: 7, startTime: 12), app: "com.example.\"quoted\"\\back\n"),
            .init(process: ProcessIdentity(pid: 5, startTime: 99_999_999_999), app: ""),
        ]
    )

    @Test("a snapshot survives encoding, entries sorted by pid, app names escaped")
    func snapshotRoundTrips() throws {
        let text = Self.snapshot.encoded()
        #expect(text.split(separator: "\n").count == 3)
        #expect(text.hasPrefix("{\"format\":\"runway-process-state\",\"version\":1,"))
        #expect(text.contains("{\"pid\":5,\"start\":99999999999,\"app\":\"\"}\n{\"pid\":7,"))
        let decoded = try #require(ProcessStateSnapshot.decode(text))
        #expect(decoded.bootID == Self.snapshot.bootID)
        #expect(decoded.owner == Self.snapshot.owner)
        #expect(Set(decoded.entries) == Set(Self.snapshot.entries))
    }

    @Test("another format or version is refused; a line that does not parse is skipped")
    func decodeRefusesOtherFiles() {
        #expect(ProcessStateSnapshot.decode("") == nil)
        #expect(
            ProcessStateSnapshot.decode("{\"format\":\"other\",\"version\":1,\"boot\":\"b\",\"pid\":1,\"start\":2}")
                == nil
        )
        #expect(
            ProcessStateSnapshot.decode(
                "{\"format\":\"runway-process-state\",\"version\":2,\"boot\":\"b\",\"pid\":1,\"start\":2}"
            )
                == nil
        )
        let header = "{\"format\":\"runway-process-state\",\"version\":1,\"boot\":\"b\",\"pid\":1,\"start\":2}\n"
        let decoded = ProcessStateSnapshot.decode(
            header + "{\"pid\":-3,\"start\":4}\n{\"pid\":3,\"start\":4.5}\n"
                + "{\"pid\":3 \"start\":4}\n{\"pid\":9,\"start\":4}\n"
        )
        #expect(decoded?.entries == [.init(process: ProcessIdentity(pid: 9, startTime: 4), app: "")])
        #expect(FlatJSON.decode("{\"pid\":99999999999999999999}") == nil, "overflow")
        #expect(FlatJSON.decode("{\"a\":\"\\u0041\"} x") == nil, "trailing text")
        #expect(FlatJSON.decode("{\"a\":\"\\u0041\"}") == ["a": .string("A")])
    }

    @Test("written atomically with mode 0600, read back, removed")
    func writeReadRemove() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = ProcessStateFile(path: directory + "/sub/state.processes")
        #expect(file.prepareDirectory() == nil)
        #expect(file.write(Self.snapshot) == 0)
        var info = stat()
        #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try file.read().get()?.owner == Self.snapshot.owner)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory + "/sub")) == ["state.processes"])
        file.remove()
        #expect(try file.read().get() == nil)
    }

    @Test("a file or directory others can write is refused (a forged list would choose what is killed)")
    func writableByOthersIsRefused() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = ProcessStateFile(path: directory + "/state.processes")
        #expect(file.write(Self.snapshot) == 0)
        chmod(file.path, 0o666)
        #expect((try? file.read().get()) == nil)
        chmod(directory, 0o777)
        #expect(file.prepareDirectory()?.contains("writable by group or others") == true)
        #expect(ProcessStateFile(path: "/tmp/state.processes").prepareDirectory() != nil, "/tmp is world-writable")
    }

    @Test("A state directory reached through a symbolic link in any component is refused, and the link not followed")
    func stateDirectoryThroughASymbolicLinkIsRefused() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // directory/real/state is a private directory; directory/link points at directory/real, so the path
        // directory/link/state passes an lstat of its last component.
        #expect(mkdir(directory + "/real", 0o700) == 0)
        #expect(mkdir(directory + "/real/state", 0o700) == 0)
        #expect(symlink(directory + "/real", directory + "/link") == 0)
        let file = ProcessStateFile(path: directory + "/link/state/state.processes")
        let problem = file.prepareDirectory()
        #expect(problem?.contains("\(directory)/link is a symbolic link") == true, "\(problem ?? "accepted")")
        #expect(ProcessStateFile(path: directory + "/real/state/state.processes").prepareDirectory() == nil)
    }

    @Test("A missing state directory is never created through a symbolic link; missing components are made 0700")
    func stateDirectoryIsNotCreatedThroughASymbolicLink() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // directory/evil points at directory/target, as a link another user plants to /etc would.
        #expect(mkdir(directory + "/target", 0o700) == 0)
        #expect(symlink(directory + "/target", directory + "/evil") == 0)
        let problem = ProcessStateFile(path: directory + "/evil/planted/state.processes").prepareDirectory()
        #expect(problem?.contains("\(directory)/evil is a symbolic link") == true, "\(problem ?? "accepted")")
        #expect(access(directory + "/target/planted", F_OK) != 0, "nothing is created at the link's target")

        #expect(ProcessStateFile(path: directory + "/new/state/state.processes").prepareDirectory() == nil)
        for made in [directory + "/new", directory + "/new/state"] {
            var info = stat()
            #expect(lstat(made, &info) == 0 && info.st_mode & 0o7777 == 0o700, "\(made)")
        }
    }

    @Test("A state directory below a directory another user may write, not sticky, is refused")
    func stateDirectoryBelowAWritableDirectoryIsRefused() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkdir(directory + "/open", 0o700) == 0)
        #expect(mkdir(directory + "/open/state", 0o700) == 0)
        // mkdir's mode is cut by the umask: chmod sets 0777 whatever the umask is.
        #expect(chmod(directory + "/open", 0o777) == 0)
        let problem = ProcessStateFile(path: directory + "/open/state/state.processes").prepareDirectory()
        let expected = "\(directory)/open is writable by every user and not sticky"
        #expect(problem?.contains(expected) == true, "\(problem ?? "accepted")")
        #expect(chmod(directory + "/open", 0o1777) == 0)
        #expect(ProcessStateFile(path: directory + "/open/state/state.processes").prepareDirectory() == nil)
    }

    @Test("P1: stopped means every process shows T, t or Z; D only for a vfork parent of a stopped child")
    func P1_showsStoppedAcceptsDOnlyForAVforkParent() {
        func stat(_ state: Character, parent: Int32) -> ProcFS.Stat {
            ProcFS.Stat(state: state, parent: parent, processGroup: 1, session: 1, startTime: 1)
        }
        #expect(!ProcessSupervisor.showsStopped([:]))
        #expect(
            ProcessSupervisor.showsStopped([1: stat("T", parent: 0), 2: stat("Z", parent: 1), 3: stat("t", parent: 1)])
        )
        #expect(!ProcessSupervisor.showsStopped([1: stat("T", parent: 0), 2: stat("S", parent: 1)]))
        #expect(ProcessSupervisor.showsStopped([1: stat("D", parent: 0), 2: stat("T", parent: 1)]))
        #expect(!ProcessSupervisor.showsStopped([1: stat("D", parent: 0), 2: stat("T", parent: 5)]))
    }
}
