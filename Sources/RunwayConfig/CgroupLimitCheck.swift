import Foundation
import RunwayCore

/// What `validate` can tell in advance about an app's cgroup ceilings (`MemoryMax`, `TasksMax`, `CPUWeight`): the
/// daemon refuses the launch when the app has no cgroup of its own (signal mode) or the controller is not bound
/// to cgroup v2 on this machine, so the configuration warns about both. Stateless; reads `/proc/self/mountinfo`
/// and the cgroup2 mount's root `cgroup.controllers` once per call of `hostControllers()`.
package enum CgroupLimitCheck {
    /// The controllers the cgroup v2 hierarchy of this machine offers (its root's `cgroup.controllers`, which
    /// lists every controller bound to v2), with the file read; nil when no cgroup2 is mounted.
    package static func hostControllers() -> (file: String, names: [String])? {
        guard let mountinfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let parts = line.split(separator: " - ", maxSplits: 1)
            guard parts.count == 2, parts[1].split(separator: " ").first == "cgroup2" else { continue }
            let fields = parts[0].split(separator: " ")
            guard fields.count >= 5, fields[3] == "/" else { continue }
            let file = fields[4].replacingOccurrences(of: "\\040", with: " ") + "/cgroup.controllers"
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            return (file, text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        }
        return nil
    }

    /// One warning per cgroup key of `limits` that the daemon would refuse at launch.
    ///
    /// - Parameters:
    ///   - mechanism: `SuspensionMechanism` of Runway.plist: with `signal` no app has a cgroup.
    ///   - controllers: `hostControllers()`: nil when the machine has no cgroup v2.
    package static func warnings(
        _ limits: ProcessLimits,
        file: String,
        mechanism: SuspensionMechanism,
        controllers: (file: String, names: [String])?
    ) -> [ConfigWarning] {
        let keys: [(key: String, controller: String, set: Bool)] = [
            ("CPUWeight", "cpu", limits.cpuWeight != nil),
            ("MemoryMax", "memory", limits.memoryMaxBytes != nil),
            ("TasksMax", "pids", limits.tasksMax != nil),
        ]
        return keys.filter(\.set).compactMap { entry in
            let problem: String
            if mechanism == .signal {
                problem = "SuspensionMechanism is signal, so the app has no cgroup of its own"
            } else if let controllers {
                guard !controllers.names.contains(entry.controller) else { return nil }
                problem =
                    "the \(entry.controller) controller is not bound to cgroup v2 on this machine "
                    + "(\(controllers.file) lists \"\(controllers.names.joined(separator: " "))\")"
            } else {
                problem = "this machine has no cgroup v2 hierarchy"
            }
            return ConfigWarning(
                file: file,
                keyPath: entry.key,
                message: "\(problem): the daemon will refuse to launch the app; nothing would enforce the limit"
            )
        }
    }
}
