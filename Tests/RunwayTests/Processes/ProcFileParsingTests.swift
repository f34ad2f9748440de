import CRunwayProcess
import Foundation
import Testing

@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// procstat.c's parsers on text no kernel writes but a file may hold: numbers at and past the limits of their types
/// are parsed to defined values, and the fuzz corpus of these parsers (Fuzz/Corpus/proc-files, with every input the
/// fuzzer found a fault with) runs clean under ASan and UBSan.
@Suite("/proc parsers at the limits of their numbers")
struct ProcFileParsingTests {
    @Test("a /proc/PID/stat field of -2^63 or 2^64-1 parses to its value modulo 2^64, -1 to -1")
    func statNumbersAtTheLimitsParseToDefinedValues() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runway-stat-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Fields 4 to 6 (parent, group, session), 20 (threads) and 22 (start time).
        let line =
            "7 (a) b) T -9223372036854775808 -1 2147483648 0 -1 0 0 0 0 0 0 0 0 0 20 0 3 0 18446744073709551615\n"
        try line.write(toFile: path, atomically: false, encoding: .utf8)
        var stat = runway_proc_stat()
        #expect(runway_proc_stat(0, path, &stat) == 0)
        #expect(stat.state == CChar(UInt8(ascii: "T")))
        #expect(stat.parent == 0)
        #expect(stat.process_group == -1)
        #expect(stat.session == Int32.min)
        #expect(stat.threads == 3)
        #expect(stat.start_time == UInt64.max)
    }

    @Test("field 9's PF_EXITING (0x4) says that a process has begun to exit, in the C and the Swift parser")
    func statFlagsSayWhenAProcessIsExiting() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runway-stat-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Field 9 (flags): 0x400104 is PF_EXITING among others (PF_FORKNOEXEC 0x40, PF_RANDOMIZE 0x400000), as a
        // process shows them between the start of its exit and its zombie state; 0x400140 is a live one's.
        for (flags, exiting) in [(4_194_564, true), (4_194_624, false)] {
            let line = "42 (python3) R 1 42 42 0 -1 \(flags) 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n"
            try line.write(toFile: path, atomically: false, encoding: .utf8)
            var stat = runway_proc_stat()
            #expect(runway_proc_stat(0, path, &stat) == 0)
            #expect(stat.flags == UInt32(flags))
            #expect(ProcFS.parseStat(line)?.isExiting == exiting)
            #expect(ProcFS.parseStat(line)?.flags == UInt32(flags))
        }
        // A live process (this one) is not exiting.
        #expect(ProcFS.stat(getpid())?.isExiting == false)
    }

    @Test(
        "the proc-files fuzz corpus runs through the parsers with no sanitizer report",
        .enabled(if: Self.clang != nil, "needs the toolchain's clang")
    )
    func procFilesCorpusRunsCleanUnderSanitizers() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("runway-fuzz-proc-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: binary) }
        // The fuzz target itself, built as `make fuzz` builds it: with -fno-sanitize-recover, UBSan's first report
        // ends the run with a failure.
        let build = try Self.run(
            Self.clang!,
            [
                "-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
                "-I\(repository)/Sources/CRunwayProcess/include", "-o", binary,
                "\(repository)/Fuzz/C/fuzz_proc_files.c",
            ]
        )
        try #require(build.status == 0, "clang failed: \(build.output)")
        // `-runs=0`: every input of the corpus once, no fuzzing; an input that fails is written beside the binary.
        let corpus = "\(repository)/Fuzz/Corpus/proc-files"
        let run = try Self.run(binary, ["-runs=0", "-artifact_prefix=\(binary)-", corpus])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("runtime error"), "\(run.output)")
    }

    /// The first clang on PATH: the toolchain's, next to `swift`, which has libFuzzer.
    static let clang: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/clang" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
