import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes an app's cgroup ceilings (`MemoryMax`, `TasksMax`, `CPUWeight`) to its own cgroup v2 before the program
/// is spawned into it: the controller is enabled in the `cgroup.subtree_control` of the daemon's cgroup and of
/// Runway's `runway.<pid>` first, then `memory.max`, `pids.max`, `cpu.weight` are written in the app's leaf.
///
/// Nothing is faked: when a controller cannot be had (not bound to cgroup v2, as on a hybrid host that keeps memory
/// on v1; refused by the daemon's cgroup), or the app has no cgroup (signal mode), the launch is refused with the
/// key, the controller and the file read. Loop thread only.
enum AppCgroupLimits {
    /// One ceiling: its key, the controller it needs, the leaf's file, the value to write, and what the file holds
    /// when the key is not set (written when a reused cgroup has the file, so that a removed key stops applying).
    struct Ceiling {
        var key: String
        var controller: String
        var file: String
        var value: String?
        var unset: String
    }

    static func ceilings(_ limits: ProcessLimits) -> [Ceiling] {
        func text(_ value: UInt64?) -> String? {
            value.map { $0 == ProcessLimits.unlimited ? "max" : "\($0)" }
        }
        return [
            Ceiling(
                key: "MemoryMax",
                controller: "memory",
                file: "memory.max",
                value: text(limits.memoryMaxBytes),
                unset: "max"
            ),
            Ceiling(key: "TasksMax", controller: "pids", file: "pids.max", value: text(limits.tasksMax), unset: "max"),
            Ceiling(
                key: "CPUWeight",
                controller: "cpu",
                file: "cpu.weight",
                value: limits.cpuWeight.map { "\($0)" },
                unset: "100"
            ),
        ]
    }

    /// Applies `limits` to `cgroup`, a leaf of `runwayDirectory` (nil: the app runs without a cgroup).
    ///
    /// - Parameters:
    ///   - mechanismReason: Why the app has no cgroup, for the error, when `cgroup` is nil.
    /// - Returns: Why the launch must be refused, naming the key; nil when every set key was written.
    static func apply(
        _ limits: ProcessLimits,
        cgroup: AppCgroup?,
        runwayDirectory: String?,
        mechanismReason: String
    ) -> String? {
        Self.apply(
            Self.ceilings(limits),
            cgroup: cgroup,
            runwayDirectory: runwayDirectory,
            mechanismReason: mechanismReason
        )
    }

    /// Applies `ceilings` (the ones with a value; the others are reset where the leaf has their file), in order;
    /// stops at the first that cannot be applied.
    static func apply(
        _ ceilings: [Ceiling],
        cgroup: AppCgroup?,
        runwayDirectory: String?,
        mechanismReason: String
    ) -> String? {
        guard let cgroup, let runwayDirectory else {
            guard let first = ceilings.first(where: { $0.value != nil }) else { return nil }
            return "\(first.key): a cgroup ceiling needs the app's own cgroup v2, which only the freezer mechanism "
                + "gives; this app has none (\(mechanismReason))"
        }
        for ceiling in ceilings {
            guard let value = ceiling.value else {
                // Not set: back to the kernel's default where the file exists (a reused cgroup keeps no old value).
                if access("\(cgroup.path)/\(ceiling.file)", W_OK) == 0 {
                    _ = SystemFiles.write(ceiling.unset, to: "\(cgroup.path)/\(ceiling.file)")
                }
                continue
            }
            if let problem = Self.enable(ceiling, runwayDirectory: runwayDirectory) { return problem }
            let status = SystemFiles.write(value, to: "\(cgroup.path)/\(ceiling.file)")
            guard status == 0 else {
                return "\(ceiling.key): cannot write \(value) to \(cgroup.path)/\(ceiling.file): "
                    + SystemFiles.describe(status)
            }
        }
        return nil
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
