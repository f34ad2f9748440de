import CRunwayProcess
@_spi(Driver) @_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An app's setrlimit values as `runway_spawn` takes them (`struct runway_rlimit`, applied by the child before its
/// exec), in a fixed order so that a failed step's index names its resource, and the cgroup v1 leaves the child
/// joins. Any thread (a value).
struct ResourceLimitRequest {
    /// The resources, sorted by launchd key name; `entries[i]` sets `resources[i]`.
    let resources: [ProcessLimits.Resource]
    let entries: [runway_rlimit]
    /// cgroup v1 directories whose `cgroup.procs` the child writes before anything else (`CgroupV1Limits`).
    var cgroupV1Directories: [String] = []

    init(_ limits: ProcessLimits) {
        self.resources = limits.resources.keys.sorted()
        self.entries = self.resources.map { resource in
            let limit = limits.resources[resource]!
            var entry = runway_rlimit()
            entry.resource = runway_rlimit_resource(Self.index(resource))
            entry.given =
                (limit.soft == nil ? 0 : RUNWAY_RLIMIT_SOFT) | (limit.hard == nil ? 0 : RUNWAY_RLIMIT_HARD)
            entry.soft = limit.soft ?? 0
            entry.hard = limit.hard ?? 0
            return entry
        }
    }

    /// The resource's place in `runway_rlimit_resources`.
    private static func index(_ resource: ProcessLimits.Resource) -> Int32 {
        switch resource {
        case .core: 0
        case .cpu: 1
        case .data: 2
        case .fileSize: 3
        case .memoryLock: 4
        case .numberOfFiles: 5
        case .numberOfProcesses: 6
        case .residentSetSize: 7
        case .stack: 8
        }
    }

    /// The call a failed spawn step names when it is the limits step (`RUNWAY_SPAWN_RLIMIT` + index): `setrlimit of
    /// NumberOfFiles (SoftResourceLimits 1024, HardResourceLimits inherited)`; nil for any other step.
    func failedCall(step: Int32) -> String? {
        let index = Int(step) - Int(RUNWAY_SPAWN_RLIMIT.rawValue)
        guard self.resources.indices.contains(index) else { return nil }
        let entry = self.entries[index]
        func describe(_ value: UInt64, _ flag: Int32) -> String {
            entry.given & flag == 0 ? "inherited" : value == ProcessLimits.unlimited ? "unlimited" : "\(value)"
        }
        let soft = describe(entry.soft, RUNWAY_RLIMIT_SOFT)
        let hard = describe(entry.hard, RUNWAY_RLIMIT_HARD)
        return "setrlimit of \(self.resources[index].rawValue) (SoftResourceLimits \(soft), HardResourceLimits \(hard))"
    }
}

extension ChildProcess {
    /// Opens `cgroup.procs` (write-only, close-on-exec) of each v1 directory; on failure closes what it opened,
    /// runs `cleanUp` and throws naming the file.
    static func openCgroupV1Procs(
        _ directories: [String],
        cleanUp: () -> Void
    ) throws(ProcessStartError) -> [Int32] {
        var descriptors: [Int32] = []
        for directory in directories {
            let descriptor = open("\(directory)/cgroup.procs", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let status = -errno
                for opened in descriptors { close(opened) }
                cleanUp()
                throw ProcessStartError(call: "open \(directory)/cgroup.procs", status: status)
            }
            descriptors.append(descriptor)
        }
        return descriptors
    }
}
