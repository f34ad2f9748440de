@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes an app's cgroup ceilings (`MemoryMax`, `TasksMax`, `CPUWeight`) before the program is spawned: to its own
/// cgroup v2 where it has one and the controller can be had there (enabled in the `cgroup.subtree_control` of the
/// daemon's cgroup and of Runway's `runway.<pid>` first, then `memory.max`, `pids.max`, `cpu.weight` in the app's
/// leaf); otherwise to a leaf of its own in the controller's cgroup v1 hierarchy (`memory.limit_in_bytes`,
/// `pids.max`, `cpu.shares`: `CgroupV1Limits`), which the child joins before its exec.
///
/// Nothing is faked: when neither can be had, the launch is refused with the key, the controller and the file read.
/// Loop thread only.
enum AppCgroupLimits {
    /// One ceiling: its key, the controller it needs, the v2 leaf's file, the value to write, what the file holds
    /// when the key is not set (written when a reused cgroup has the file, so that an old value stops applying),
    /// and the v1 file and value.
    struct Ceiling {
        var key: String
        var controller: String
        var file: String
        var value: String?
        var unset: String
        var v1File: String
        var v1Value: String?
    }

    static func ceilings(_ limits: ProcessLimits) -> [Ceiling] {
        func text(_ value: UInt64?, unlimited: String) -> String? {
            value.map { $0 == ProcessLimits.unlimited ? unlimited : "\($0)" }
        }
        return [
            Ceiling(
                key: "MemoryMax",
                controller: "memory",
                file: "memory.max",
                value: text(limits.memoryMaxBytes, unlimited: "max"),
                unset: "max",
                v1File: "memory.limit_in_bytes",
                v1Value: text(limits.memoryMaxBytes, unlimited: "-1")
            ),
            Ceiling(
                key: "TasksMax",
                controller: "pids",
                file: "pids.max",
                value: text(limits.tasksMax, unlimited: "max"),
                unset: "max",
                v1File: "pids.max",
                v1Value: text(limits.tasksMax, unlimited: "max")
            ),
            Ceiling(
                key: "CPUWeight",
                controller: "cpu",
                file: "cpu.weight",
                value: limits.cpuWeight.map { "\($0)" },
                unset: "100",
                v1File: "cpu.shares",
                // systemd's mapping: weight 100 is 1024 shares; the kernel's floor is 2.
                v1Value: limits.cpuWeight.map { "\(max(2, $0 * 1024 / 100))" }
            ),
        ]
    }

    /// Applies `ceilings` (the ones with a value; the others are reset where the v2 leaf has their file), in
    /// order; stops at the first that cannot be applied.
    ///
    /// - Parameters:
    ///   - cgroup: The app's cgroup v2 leaf of `runwayDirectory`, or nil (signal mode).
    ///   - v1: Where v1 leaves are made; nil to use cgroup v2 only.
    ///   - mechanismReason: Why the app has no cgroup v2, for the error, when `cgroup` is nil.
    /// - Returns: The v1 leaves the child must join, or why the launch must be refused, naming the key.
    static func apply(
        _ ceilings: [Ceiling],
        app: AppID,
        cgroup: AppCgroup?,
        runwayDirectory: String?,
        v1: CgroupV1Limits?,
        mechanismReason: String
    ) -> Result<[String], LaunchRefusal> {
        var joins: [String] = []
        for ceiling in ceilings {
            guard let value = ceiling.value else {
                // Not set: back to the kernel's default where the file exists (a reused cgroup keeps no old value).
                if let cgroup, access("\(cgroup.path)/\(ceiling.file)", W_OK) == 0 {
                    _ = SystemFiles.write(ceiling.unset, to: "\(cgroup.path)/\(ceiling.file)")
                }
                continue
            }
            let v2Problem: String
            if let cgroup, let runwayDirectory {
                if let problem = Self.enable(ceiling, runwayDirectory: runwayDirectory) {
                    v2Problem = problem
                } else {
                    let status = SystemFiles.write(value, to: "\(cgroup.path)/\(ceiling.file)")
                    if status == 0 { continue }
                    v2Problem =
                        "\(ceiling.key): cannot write \(value) to \(cgroup.path)/\(ceiling.file): "
                        + SystemFiles.describe(status)
                }
            } else {
                v2Problem =
                    "\(ceiling.key): a cgroup v2 ceiling needs the app's own cgroup v2, which only the "
                    + "freezer mechanism gives; this app has none (\(mechanismReason))"
            }
            guard let v1, let v1Value = ceiling.v1Value else { return .failure(LaunchRefusal(message: v2Problem)) }
            switch v1.apply(controller: ceiling.controller, file: ceiling.v1File, value: v1Value, app: app) {
            case .success(let leaf):
                joins.append(leaf)
            case .failure(let reason):
                return .failure(LaunchRefusal(message: "\(v2Problem); nor on cgroup v1: \(reason)"))
            }
        }
        return .success(joins)
    }

    /// Makes `ceiling.controller` available in Runway's directory: enabled in its parent's (the daemon's cgroup)
    /// `cgroup.subtree_control` if needed, then in its own. Returns why it cannot be, or nil.
    static func enable(_ ceiling: Ceiling, runwayDirectory: String) -> String? {
        let own = String(runwayDirectory[..<(runwayDirectory.lastIndex(of: "/") ?? runwayDirectory.endIndex)])
        let prefix = "\(ceiling.key): the cgroup v2 \(ceiling.controller) controller"
        if !Self.listed(ceiling.controller, in: "\(runwayDirectory)/cgroup.controllers") {
            let offered = "\(own)/cgroup.controllers"
            guard Self.listed(ceiling.controller, in: offered) else {
                let list = Self.words(in: offered).joined(separator: " ")
                return "\(prefix) is not available: \(offered) lists \"\(list)\" (on a hybrid host it is bound "
                    + "to cgroup v1; it must be enabled for the daemon's cgroup)"
            }
            if let problem = Self.turnOn(ceiling.controller, in: own, prefix: prefix) { return problem }
        }
        if !Self.listed(ceiling.controller, in: "\(runwayDirectory)/cgroup.subtree_control") {
            if let problem = Self.turnOn(ceiling.controller, in: runwayDirectory, prefix: prefix) { return problem }
        }
        return nil
    }

    /// Writes `+controller` to `directory/cgroup.subtree_control`.
    private static func turnOn(_ controller: String, in directory: String, prefix: String) -> String? {
        let file = "\(directory)/cgroup.subtree_control"
        let status = SystemFiles.write("+\(controller)", to: file)
        guard status != 0 else { return nil }
        var problem = "\(prefix) cannot be enabled: writing +\(controller) to \(file): \(SystemFiles.describe(status))"
        if status == EBUSY {
            problem += " (the cgroup holds processes; run the daemon in a delegated cgroup of its own)"
        }
        return problem
    }

    private static func listed(_ controller: String, in file: String) -> Bool {
        Self.words(in: file).contains(controller)
    }

    private static func words(in file: String) -> [String] {
        (SystemFiles.read(file) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }
}

/// Why a launch is refused: a ceiling that cannot be enforced, in words naming its key.
struct LaunchRefusal: Error, Equatable {
    var message: String
}
