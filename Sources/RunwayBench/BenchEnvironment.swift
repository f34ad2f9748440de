import Foundation
import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What made a `runway bench` report and where: version, commit, build type, host and date. A figure means little
/// without them: a debug build is several times slower than a release build, and a shared 2-core VM is not a
/// quiet 16-core server.
///
/// Threading: a value; `current(commit:)` reads files once, on the calling thread (before the run).
package struct BenchEnvironment: Codable, Sendable, Equatable {
    /// `RunwayVersion.string`.
    package var version: String
    /// The commit this `runway` was built from, as `runway --version` prints it (`RunwayBuildInfo`, written at build
    /// time): 12 hexadecimal digits, `-dirty` for uncommitted changes, or `unknown` for a build without git.
    package var commit: String
    /// `debug` or `release`: the build configuration of this `runway` (`#if DEBUG`).
    package var buildType: String
    /// When the run started, ISO 8601 in UTC (`2026-11-23T12:00:00Z`).
    package var date: String
    package var host: Host

    package struct Host: Codable, Sendable, Equatable {
        /// Online processors (`sysconf(_SC_NPROCESSORS_ONLN)`).
        package var cores: Int
        /// `uname`: system name and kernel release, `Linux 6.8.0-49-generic`.
        package var kernel: String
        /// From `/proc/self/mountinfo`: `v2` (only a cgroup2 mount), `v1` (only cgroup v1 mounts), `hybrid` (both)
        /// or `none`.
        package var cgroupMode: String
    }

    /// `debug` or `release`, fixed when this binary was compiled: SwiftPM defines `DEBUG` in debug builds.
    package static var buildType: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    /// True for a debug build, whose timings are not representative.
    package var isDebugBuild: Bool { self.buildType == "debug" }

    /// The environment of this process, now.
    /// - Parameters:
    ///   - commit: the build's commit (`RunwayBuildInfo.current.commit`), which the caller's module knows.
    ///   - date: when the run starts.
    package static func current(commit: String, date: Date = Date()) -> BenchEnvironment {
        BenchEnvironment(
            version: RunwayVersion.string,
            commit: commit,
            buildType: Self.buildType,
            date: date.ISO8601Format(),
            host: Host(
                cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
                kernel: Self.kernel(),
                cgroupMode: Self.cgroupMode(
                    mountinfo: (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
                )
            )
        )
    }

    /// The banner `runway bench` prints on standard error, and the report's warning line, for a debug build.
    package static let debugWarning =
        "WARNING: this runway is a DEBUG build: its timings are several times worse than a release build's and "
        + "say nothing about Runway's performance. Build with `swift build -c release` and run .build/release/runway."

    /// `v2`, `v1`, `hybrid` or `none` from the text of `/proc/self/mountinfo`: the file system type is the first
    /// field after the ` - ` separator.
    package static func cgroupMode(mountinfo: String) -> String {
        var hasV1 = false
        var hasV2 = false
        for line in mountinfo.split(separator: "\n") {
            guard let separator = line.range(of: " - ") else { continue }
            let type = line[separator.upperBound...].prefix { $0 != " " }
            if type == "cgroup2" { hasV2 = true } else if type == "cgroup" { hasV1 = true }
        }
        switch (hasV1, hasV2) {
        case (true, true): return "hybrid"
        case (false, true): return "v2"
        case (true, false): return "v1"
        case (false, false): return "none"
        }
    }

    private static func kernel() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "unknown" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return "\(text(name.sysname)) \(text(name.release))"
    }
}
