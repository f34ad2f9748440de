import Foundation
import RunwayTestKit
import Testing

@testable import RunwayControl

#if canImport(Glibc)
import Glibc
#endif

/// `RunHistoryFile` on its own: the directories on the way to a history file are created, never through a
/// symbolic link another user planted.
@Suite struct RunHistoryFileTests {
    @Test func aHistoryDirectoryIsNeverCreatedThroughASymbolicLink() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        // evil points at target, as a link another user plants to /etc would.
        #expect(mkdir(directory.path + "/target", 0o700) == 0)
        #expect(symlink(directory.path + "/target", directory.path + "/evil") == 0)
        let problem = RunHistoryFile(path: directory.path + "/evil/planted/history.json").write([:])
        #expect(problem?.contains("\(directory.path)/evil is a symbolic link") == true, "\(problem ?? "written")")
        #expect(access(directory.path + "/target/planted", F_OK) != 0, "nothing is created at the link's target")
        #expect(RunHistoryFile(path: directory.path + "/new/history.json").write([:]) == nil)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/new/history.json"))
    }
}
