import Foundation
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

/// What `validate` can tell in advance about an app's cgroup ceilings (`MemoryMax`, `TasksMax`, `CPUWeight`). The
/// daemon writes a ceiling to the app's own cgroup v2 (freezer mode, the controller on cgroup v2) or else to a leaf
/// of its own in the controller's cgroup v1 hierarchy, and refuses the launch when neither can be had; so the
/// configuration warns when the controller is on no v1 hierarchy and either the app will have no cgroup v2
/// (`SuspensionMechanism` `signal`) or cgroup v2 does not offer it. Stateless; `host()` reads
/// `/proc/self/mountinfo` and the cgroup2 mount's root `cgroup.controllers`.
package enum CgroupLimitCheck {
    /// The cgroup controllers of this machine: those its cgroup v2 hierarchy offers (its root's `cgroup.controllers`,
    /// which lists every controller bound to v2; nil when no cgroup2 is mounted) and those mounted as cgroup v1.
    package struct Host: Sendable {
        package var v2: (file: String, names: [String])?
        package var v1: Set<String>

        package init(v2: (file: String, names: [String])?, v1: Set<String>) {
            self.v2 = v2
            self.v1 = v1
        }
    }

    /// Reads this machine's controllers.
    package static func host() -> Host {
        guard let mountinfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
            return Host(v2: nil, v1: [])
        }
        var host = Host(v2: nil, v1: [])
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let parts = line.split(separator: " - ", maxSplits: 1)
            let tail = parts.count == 2 ? parts[1].split(separator: " ") : []
            let fields = parts[0].split(separator: " ")
            guard tail.count >= 3, fields.count >= 5 else { continue }
            if tail[0] == "cgroup" {
                host.v1.formUnion(tail[2].split(separator: ",").map(String.init))
            } else if tail[0] == "cgroup2", host.v2 == nil, fields[3] == "/" {
                let file = fields[4].replacingOccurrences(of: "\\040", with: " ") + "/cgroup.controllers"
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                host.v2 = (file, text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            }
        }
        return host
    }

    /// One warning per cgroup key of `limits` that the daemon would refuse at launch on `host`.
    ///
    /// - Parameters:
    ///   - mechanism: `SuspensionMechanism` of Runway.plist: with `signal` no app has a cgroup v2 of its own.
    package static func warnings(
        _ limits: ProcessLimits,
        file: String,
        mechanism: SuspensionMechanism,
        host: Host
    ) -> [ConfigWarning] {
        let keys: [(key: String, controller: String, set: Bool)] = [
            ("CPUWeight", "cpu", limits.cpuWeight != nil),
            ("MemoryMax", "memory", limits.memoryMaxBytes != nil),
            ("TasksMax", "pids", limits.tasksMax != nil),
        ]
        return keys.filter(\.set).compactMap { entry in
            guard !host.v1.contains(entry.controller) else { return nil }
            let problem: String
            if mechanism == .signal {
                problem = "SuspensionMechanism is signal, so the app has no cgroup v2 of its own"
            } else if let v2 = host.v2 {
                guard !v2.names.contains(entry.controller) else { return nil }
                problem =
                    "the \(entry.controller) controller is not on cgroup v2 on this machine "
                    + "(\(v2.file) lists \"\(v2.names.joined(separator: " "))\")"
            } else {
                problem = "this machine has no cgroup v2 hierarchy"
            }
            return ConfigWarning(
                file: file,
                keyPath: entry.key,
                message: "\(problem), nor on a cgroup v1 hierarchy: the daemon will refuse to launch the app; "
                    + "nothing would enforce the limit"
            )
        }
    }
}
