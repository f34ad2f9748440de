import Foundation
import RunwayBuildInfo
import RunwayCore
import Testing

/// The version: one constant, `RunwayVersion.string`, printed by `runway --version` with the commit and build type
/// of the build, recorded in every `runway bench` report and matched by the top of CHANGELOG.md.
@Suite struct VersionTests {
    @Test func versionFlagPrintsTheVersionTheCommitOfTheBuildAndItsType() throws {
        let result = try RunwayBinary.run("--version")
        #expect(result.status == 0, "\(result)")
        let build = RunwayBuildInfo.current
        #expect(result.stdout == "runway \(RunwayVersion.string) (\(build.commit), debug)\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        // The commit is the checkout's HEAD when the tests are built from one (CI and a clone are).
        let root = RunwayBinary.repositoryRoot().path
        let head = try shell(
            "/usr/bin/git",
            ["-c", "safe.directory=\(root)", "-C", root, "rev-parse", "--short=12", "HEAD"]
        )
        if head.status == 0 {
            let commit = head.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(build.commit == commit || build.commit == commit + "-dirty", "HEAD \(commit)\n\(result)")
        }
    }

    /// Scripts/build-commit.sh, which the RunwayBuildCommit plugin runs before each build: the commit of a
    /// repository, `-dirty` for a changed tracked file, `unknown` without one; the file rewritten only on a change.
    @Test func theBuildNamesItsCommitOrUnknownWithoutARepository() throws {
        let script = RunwayBinary.repositoryRoot().appendingPathComponent("Scripts/build-commit.sh").path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-commit-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out/BuildCommit.swift"
        let generated = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        #expect(try shell("/bin/sh", [script, directory, output]).status == 0)
        #expect(generated().contains("let runwayBuildCommit = \"unknown\"\n"), "\(generated())")

        let git = { (arguments: [String]) in
            try shell(
                "/usr/bin/git",
                ["-C", directory, "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments
            )
        }
        #expect(try git(["init", "-q"]).status == 0)
        try Data("a\n".utf8).write(to: URL(fileURLWithPath: directory + "/file"))
        #expect(try git(["add", "file"]).status == 0)
        #expect(try git(["commit", "-q", "-m", "first"]).status == 0)
        let head = try git(["rev-parse", "--short=12", "HEAD"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(head.count == 12)
        #expect(try shell("/bin/sh", [script, directory, output]).status == 0)
        #expect(generated().contains("let runwayBuildCommit = \"\(head)\"\n"), "\(generated())")

        // A tree inside that repository but without one of its own (an unpacked tarball) is not its commit.
        try FileManager.default.createDirectory(atPath: directory + "/inner", withIntermediateDirectories: true)
        #expect(try shell("/bin/sh", [script, directory + "/inner", output]).status == 0)
        #expect(generated().contains("let runwayBuildCommit = \"unknown\"\n"), "\(generated())")
        #expect(try shell("/bin/sh", [script, directory, output]).status == 0)

        // The same commit again: the file is left as it was (its inode and time unchanged), so nothing recompiles.
        let before = try FileManager.default.attributesOfItem(atPath: output)
        #expect(try shell("/bin/sh", [script, directory, output]).status == 0)
        let after = try FileManager.default.attributesOfItem(atPath: output)
        #expect(before[.systemFileNumber] as? UInt64 == after[.systemFileNumber] as? UInt64)

        try Data("b\n".utf8).write(to: URL(fileURLWithPath: directory + "/file"))
        #expect(try shell("/bin/sh", [script, directory, output]).status == 0)
        #expect(generated().contains("let runwayBuildCommit = \"\(head)-dirty\"\n"), "\(generated())")
    }

    /// `MAJOR.MINOR.PATCH`, optionally `-` and a pre-release such as `dev`: what CHANGELOG.md promises.
    @Test func versionIsSemantic() {
        let parts = RunwayVersion.string.split(separator: "-", maxSplits: 1)
        let numbers = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        #expect(numbers.count == 3 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        if parts.count == 2 {
            #expect(!parts[1].isEmpty && parts[1].allSatisfy { $0.isLetter || $0.isNumber || $0 == "." })
        }
    }

    /// A `-dev` version is the Unreleased section, which names it; a release has its own heading.
    @Test func changelogNamesTheVersion() throws {
        let changelog = try String(
            contentsOf: RunwayBinary.repositoryRoot().appendingPathComponent("CHANGELOG.md"),
            encoding: .utf8
        )
        let version = RunwayVersion.string
        if version.hasSuffix("-dev") {
            let unreleased = try #require(changelog.components(separatedBy: "## [Unreleased]").dropFirst().first)
            let section = unreleased.components(separatedBy: "\n## [").first ?? ""
            #expect(section.contains("The version is \(version)."), "CHANGELOG.md's Unreleased section")
        } else {
            #expect(changelog.contains("## [\(version)] - "), "CHANGELOG.md has no heading for \(version)")
        }
    }

    @Test func benchJSONReportRecordsTheVersion() throws {
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 9) + ["--json"])
        try #require(result.status == 0, "\(result)")
        let report = try BenchCommandTests.report(result)
        #expect(report["version"] as? String == RunwayVersion.string, "\(result)")
        #expect(report["schemaVersion"] as? Int == 1, "adding a field keeps schema version 1")
        #expect(BenchSchema.problems(in: report, comparing: false) == [])
    }

    @Test func benchTableNamesTheVersion() throws {
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 10))
        try #require(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains("version: runway \(RunwayVersion.string)"), "\(result)")
    }
}
