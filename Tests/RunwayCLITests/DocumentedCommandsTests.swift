import Foundation
import Testing

/// The shell commands of README.md and Docs/Operations.md work as printed: each `sh`/`bash`/`shell` block runs, in
/// order, against a daemon on a copy of `Config/` in a scratch directory (DocScratchDaemon), and must exit 0; a
/// block that cannot run there is marked `<!-- illustrative: REASON -->` (DocCommandBlocks.swift).
@Suite(.serialized) struct DocumentedCommandsTests {
    static let documents = ["README.md", "Docs/Operations.md"]

    static func blocks() throws -> [DocCommandBlock] {
        try self.documents.flatMap { file in
            let path = RunwayBinary.repositoryRoot().appendingPathComponent(file).path
            return DocCommandBlocks.parse(try String(contentsOfFile: path, encoding: .utf8), file: file)
        }
    }

    @Test func everyShellBlockOfTheREADMEAndOperationsRunsOrIsMarkedIllustrative() throws {
        let blocks = try Self.blocks()
        let problems = blocks.compactMap(DocCommandBlocks.problem)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let runnable = blocks.filter { $0.illustrative == nil && DocCommandBlocks.problem($0) == nil }
        // Each document has a block that runs: a test that found nothing to run would pass on any text.
        for file in Self.documents {
            #expect(runnable.contains { $0.file == file }, "no block of \(file) is run")
        }
        let daemon = try DocScratchDaemon()
        defer { daemon.close() }
        for block in runnable {
            if let failure = try daemon.run(block) {
                Issue.record("\(failure)\n--- daemon ---\n\(daemon.output)")
            }
        }
    }

    @Test func theBlocksReachTheScratchDaemonWhateverRunwaySocketOrRunwayConfigTheCallerHas() throws {
        let daemon = try DocScratchDaemon()
        defer { daemon.close() }
        // A developer's shell that points the CLI at a daemon of its own (here none: the paths do not exist).
        var caller = ProcessInfo.processInfo.environment
        caller["RUNWAY_SOCKET"] = "/nonexistent/runway-developer.sock"
        caller["RUNWAY_CONFIG"] = "/nonexistent/runway-developer-config"
        let markdown = """
            ```sh
            runway status >/dev/null
            ```
            ```sh
            test -z "${RUNWAY_SOCKET-}${RUNWAY_CONFIG-}"
            ```
            """
        let blocks = DocCommandBlocks.parse(markdown, file: "T.md")
        try #require(blocks.count == 2)
        #expect(try daemon.run(blocks[0], environment: caller) == nil, "the commands reach the scratch daemon")
        #expect(try daemon.run(blocks[1], environment: caller) == nil, "the blocks see neither variable")
    }

    @Test func aBlockFailsTheCheckWhenItExitsNonZeroOrIsNeitherRunNorMarked() throws {
        let markdown = """
            <!-- illustrative: needs systemd -->
            ```sh
            systemctl start runway
            ```
            <!-- illustrative -->
            ```sh
            make install
            ```
              ```console
              $ runway status
              ```

            ```json
            {"not": "a command"}
            ```
            ```sh
            runway --help >/dev/null
            false
            echo never reached
            ```
            """
        let blocks = DocCommandBlocks.parse(markdown, file: "T.md")
        #expect(blocks.map(\.line) == [2, 6, 9, 16], "the json block is not a shell block")
        #expect(blocks.map(\.illustrative) == ["needs systemd", "", nil, nil])
        #expect(blocks.map(DocCommandBlocks.problem).map { $0 != nil } == [false, true, true, false])
        let daemon = try DocScratchDaemon()
        defer { daemon.close() }
        let failure = try #require(try daemon.run(blocks[3]), "a command that exits 1 fails its block")
        #expect(failure.hasPrefix("T.md:16: exited 1"), "\(failure)")
        let printed = failure.components(separatedBy: "--- output ---\n").last ?? ""
        #expect(!printed.contains("never reached"), "bash -e stops at the first failing command: \(failure)")
    }
}
