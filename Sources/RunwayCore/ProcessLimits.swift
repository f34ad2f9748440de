/// The resource limits of a process app (launchd's `SoftResourceLimits` / `HardResourceLimits`, systemd's
/// `MemoryMax`, `TasksMax`, `CPUWeight` in its Info.plist). Plain data for the edge, which applies them when it
/// starts the program; the core never reads it. Any thread (a value).
///
/// The setrlimit values apply to the program from its exec on and are inherited by what it starts; the cgroup
/// ceilings apply to the app's cgroup, so to everything the app starts together.
@_spi(Processes)
public struct ProcessLimits: Hashable, Sendable {
    /// A value that means "no limit": `RLIM_INFINITY` for setrlimit, `max` in a cgroup file.
    public static let unlimited = UInt64.max

    /// The setrlimit resources, named as launchd names its keys.
    public enum Resource: String, CaseIterable, Hashable, Sendable, Comparable {
        /// `RLIMIT_CORE`: bytes of a core file.
        case core = "Core"
        /// `RLIMIT_CPU`: seconds of CPU time (SIGXCPU at the soft limit, SIGKILL at the hard one).
        case cpu = "CPU"
        /// `RLIMIT_DATA`: bytes of data segment and anonymous memory.
        case data = "Data"
        /// `RLIMIT_FSIZE`: bytes of a file the process writes (SIGXFSZ beyond).
        case fileSize = "FileSize"
        /// `RLIMIT_MEMLOCK`: bytes of locked memory.
        case memoryLock = "MemoryLock"
        /// `RLIMIT_NOFILE`: one more than the highest descriptor number.
        case numberOfFiles = "NumberOfFiles"
        /// `RLIMIT_NPROC`: processes (threads) of the process's real user, counted across the whole machine.
        case numberOfProcesses = "NumberOfProcesses"
        /// `RLIMIT_RSS`: accepted for launchd compatibility; Linux does not enforce it.
        case residentSetSize = "ResidentSetSize"
        /// `RLIMIT_STACK`: bytes of the main thread's stack.
        case stack = "Stack"

        /// Orders resources by their launchd key name, the order limits are applied and reported in.
        public static func < (left: Resource, right: Resource) -> Bool { left.rawValue < right.rawValue }
    }

    /// One resource's values; nil keeps the value the program would inherit from the daemon.
    public struct ResourceLimit: Hashable, Sendable {
        /// From `SoftResourceLimits`; `ProcessLimits.unlimited` for none.
        public var soft: UInt64?
        /// From `HardResourceLimits`; `ProcessLimits.unlimited` for none.
        public var hard: UInt64?

        /// A limit with these values.
        ///
        /// - Precondition: `soft <= hard` when both are given.
        public init(soft: UInt64? = nil, hard: UInt64? = nil) {
            precondition(soft == nil || hard == nil || soft! <= hard!, "soft limit \(soft!) above hard \(hard!)")
            self.soft = soft
            self.hard = hard
        }
    }

    /// Bounds of `cpuWeight` (cgroup v2 `cpu.weight`; systemd's `CPUWeight`).
    public static let cpuWeights = 1...10_000
    /// The largest `TasksMax` other than unlimited: the kernel's PID_MAX_LIMIT, above which it refuses `pids.max`.
    public static let tasksMaxLimit: UInt64 = 4_194_304

    /// The setrlimit values by resource; a resource absent here is inherited unchanged.
    public var resources: [Resource: ResourceLimit]
    /// `MemoryMax`: bytes for the app cgroup's `memory.max`, `unlimited` for `max`, nil to leave it unset.
    public var memoryMaxBytes: UInt64?
    /// `TasksMax`: processes and threads for the cgroup's `pids.max`, `unlimited` for `max`, nil to leave it unset.
    public var tasksMax: UInt64?
    /// `CPUWeight`: the cgroup's `cpu.weight` (within `cpuWeights`; the kernel's default is 100), or nil.
    public var cpuWeight: Int?

    /// Limits with these values; the defaults set nothing.
    ///
    /// - Precondition: `cpuWeight`, when given, is within `cpuWeights`.
    public init(
        resources: [Resource: ResourceLimit] = [:],
        memoryMaxBytes: UInt64? = nil,
        tasksMax: UInt64? = nil,
        cpuWeight: Int? = nil
    ) {
        precondition(cpuWeight.map(Self.cpuWeights.contains) ?? true, "cpuWeight \(cpuWeight!) out of range")
        self.resources = resources
        self.memoryMaxBytes = memoryMaxBytes
        self.tasksMax = tasksMax
        self.cpuWeight = cpuWeight
    }

    /// True when a cgroup ceiling is set: the app then needs a cgroup of its own (the freezer mechanism).
    public var needsCgroup: Bool {
        self.memoryMaxBytes != nil || self.tasksMax != nil || self.cpuWeight != nil
    }
}
