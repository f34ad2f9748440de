import Foundation
import Logging
@_spi(Processes) import RunwayCore
import Synchronization

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Process-app test helpers: scripts as apps, the built sample app, kernel checks, a recording logger.
enum ProcessTestSupport {
    /// A plain process app running `/bin/sh -c script`.
    static func shell(
        _ id: AppID,
        _ script: String,
        protocol speaksProtocol: Bool = false,
        exitsOnSuspend: Bool = false
    )
        -> AppDescriptor
    {
        AppDescriptor(
            id: id,
            kind: .process(ProcessSpec(arguments: ["/bin/sh", "-c", script], speaksProtocol: speaksProtocol)),
            exitsOnSuspend: exitsOnSuspend
        )
    }

    /// A long-lived shell loop that exits 0 on SIGTERM.
    static let idleLoop = "trap 'exit 0' TERM; while :; do sleep 0.05; done"

    /// The Swift sample protocol app (Examples/SampleApp), built beside the test bundle.
    static func sample(_ id: AppID, environment: [String: String]) -> AppDescriptor {
        AppDescriptor(
            id: id,
            kind: .process(
                ProcessSpec(arguments: ["runway-sample-app"], environment: environment, speaksProtocol: true)
            )
        )
    }

    /// The build directory holding the test bundle and the package's executables.
    static var buildDirectory: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }

    /// The Python sample app shipped in Config/Programs.
    static var pythonSample: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/Programs/sample_app.py").path
    }

    static func options(_ mechanism: SuspensionMechanism) -> ProcessOptions {
        ProcessOptions(searchDirectories: [Self.buildDirectory], suspensionMechanism: mechanism)
    }

    /// nil when this machine lets Runway use the cgroup v2 freezer, else why not.
    static let freezerUnavailableReason: String? = {
        switch CgroupHierarchy.discover().flatMap({ $0.makeRunwayDirectory() }) {
        case .success(let directory):
            _ = rmdir(directory)
            return nil
        case .failure(let reason):
            print("freezer tests skipped: \(reason)")
            return reason.reason
        }
    }()

    static var freezerAvailable: Bool { Self.freezerUnavailableReason == nil }

    /// The suspension mechanisms this machine offers: signals always, the freezer where cgroup v2 allows it.
    static let mechanisms: [SuspensionMechanism] = Self.freezerAvailable ? [.signal, .freezer] : [.signal]

    /// True when this process's cgroup v2 directory does not offer `controller` (a ceiling that needs it cannot be
    /// written there).
    static func controllerMissing(_ controller: String) -> Bool {
        guard case .success(let hierarchy) = CgroupHierarchy.discover() else { return true }
        let offered = (SystemFiles.read("\(hierarchy.ownDirectory)/cgroup.controllers") ?? "").split(separator: " ")
        return !offered.contains { $0.trimmingCharacters(in: .whitespacesAndNewlines) == controller }
    }

    static func processState(_ pid: Int32) -> Character? { ProcFS.stat(pid)?.state }

    /// SIGSTOP reached the whole process group: every member shows `T`, but for a shell blocked in vfork()
    /// for a child stopped before its exec (`D`).
    static func isGroupStopped(_ pid: Int32) -> Bool {
        let states = ProcFS.members(ofProcessGroup: pid).compactMap { ProcFS.stat($0)?.state }
        return states.contains("T") && states.allSatisfy { $0 == "T" || $0 == "D" }
    }

    /// True when no process with this pid exists any more, zombie or not.
    static func isGone(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    /// True once SIGTERM is in the process's ignored set (`SigIgn` of /proc/PID/status; SIGTERM is bit 14).
    static func ignoresSIGTERM(_ pid: Int32) -> Bool {
        guard let status = SystemFiles.read("/proc/\(pid)/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
            let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << (UInt64(SIGTERM) - 1)) != 0
    }

    static func cgroupEvents(_ path: String) -> String { SystemFiles.read("\(path)/cgroup.events") ?? "" }

    /// Freezes the cgroup v2 directory `path` as an operator would (`cgroup.freeze`), not through Runway; true once
    /// the kernel shows it frozen (`frozen 1`), false when the write fails or that is not seen within 10 s.
    static func freezeFromOutside(_ path: String) async -> Bool {
        guard SystemFiles.write("1", to: "\(path)/cgroup.freeze") == 0 else { return false }
        return await eventually { Self.cgroupEvents(path).contains("frozen 1") }
    }
}

/// A swift-log handler that keeps every message and its metadata, for asserting what a child printed.
struct RecordingLogHandler: LogHandler {
    let records: Recorder<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        self.records.append("\(event.message) \(fields)")
    }
}

extension Logger {
    /// A logger that records into `records`.
    static func recording(_ records: Recorder<String>) -> Logger {
        Logger(label: "runway.test") { _ in RecordingLogHandler(records: records) }
    }
}
