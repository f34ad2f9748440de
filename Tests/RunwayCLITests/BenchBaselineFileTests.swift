import Foundation
import RunwayBuildInfo
import Testing

@testable import RunwayBench

#if canImport(Glibc)
import Glibc
#endif

/// What a report names and what `--baseline` reads: the commit the binary was built from wherever it runs, only a
/// regular file of bounded size as a baseline, and the stated chance that a comparison calls noise a regression.
extension BenchTrustTests {
    @Test func theReportNamesTheCommitTheBinaryWasBuiltFromWhereverItRuns() throws {
        let commit = RunwayBuildInfo.current.commit
        try #require(commit != "unknown", "built from a git checkout")
        // A link in /tmp: no git checkout holds the binary there.
        let outside = try RunwayBinary.executableForOtherUsers().path
        let result = try shell(outside, BenchCommandTests.tinyWorkload(seed: 18))
        try #require(result.status == 0, "\(result.output)")
        #expect(result.output.contains(", commit \(commit); started "), "\(result.output)")
    }

    @Test(arguments: ["directory", "fifo", "device"])
    func aBaselineThatIsNotARegularFileIsRefusedNamingWhatItIs(kind: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, described): (String, String)
        switch kind {
        case "directory": (path, described) = (folder.path, "a directory")
        case "fifo":
            path = folder.appendingPathComponent("baseline.json").path
            try #require(mkfifo(path, 0o600) == 0)
            described = "a FIFO (named pipe)"
        default: (path, described) = ("/dev/zero", "a character device")
        }
        // `timeout` ends a run that blocks on the FIFO or reads /dev/zero forever (exit 124): a failure, not a hang.
        let result = try RunwayBinary.run(
            BenchCommandTests.tinyWorkload() + ["--baseline", path],
            launcher: ["/usr/bin/timeout", "20"]
        )
        #expect(result.status == 64, "\(result)")
        let refusal = "--baseline \(path): \(described); expected a regular file, a `runway bench --json` report"
        #expect(result.stderr.contains(refusal), "\(result)")
        #expect(result.stdout.isEmpty, "refused before the run: \(result)")
    }

    @Test func aBaselineLargerThanAReportCanBeIsRefusedUnread() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        // Sparse: 17 MiB of size, no data written.
        try #require(FileManager.default.createFile(atPath: file.path, contents: nil))
        try #require(truncate(file.path, off_t(17 << 20)) == 0)
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload() + ["--baseline", file.path])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.stderr.contains(
                "--baseline \(file.path): \(17 << 20) bytes; a `runway bench --json` report is at most 16777216 bytes"
            ),
            "\(result)"
        )
    }

    /// Two sets of runs of one binary: every run of one worse than every run of the other, one way, with a chance
    /// of 1 / C(n + m, n) per figure; summed over the figures judged.
    @Test(arguments: [(3, 3, 8, 40.0), (5, 5, 1, 100.0 / 252), (5, 5, 8, 800.0 / 252), (5, 7, 10, 1_000.0 / 792)])
    func aRerunOfTheSameBinaryRegressesByChanceAtMostOneArrangementPerFigure(
        baselineRuns: Int,
        currentRuns: Int,
        figures: Int,
        percent: Double
    ) {
        let bound = BenchBaseline<BenchReport.Configuration>.falseAlarmPercent(
            baselineRuns: baselineRuns,
            currentRuns: currentRuns,
            figures: figures
        )
        #expect(abs(bound - percent) < 1e-9, "\(bound)")
        #expect(BenchBaseline<BenchReport.Configuration>.minimumRuns == 5)
    }
}
