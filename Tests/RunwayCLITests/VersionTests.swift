import Foundation
import RunwayCore
import Testing

/// The version: one constant, `RunwayVersion.string`, printed by `runway --version`, recorded in every
/// `runway bench` report and matched by the top of CHANGELOG.md.
@Suite struct VersionTests {
    @Test func versionFlagPrintsTheVersionAlone() throws {
        let result = try RunwayBinary.run("--version")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == RunwayVersion.string + "\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
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
