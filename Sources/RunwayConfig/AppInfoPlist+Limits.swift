import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The resource limit keys of a process app's Info.plist: launchd's `SoftResourceLimits` and `HardResourceLimits`
// (setrlimit in the child before its exec) and systemd's `MemoryMax`, `TasksMax`, `CPUWeight` (the app cgroup's
// memory.max, pids.max, cpu.weight). Validated when the configuration is loaded; the daemon applies them at each
// launch (Docs/Configuration.md, "Resource limits").

/// A limit as written: an integer, or a string (`"unlimited"`, `"infinity"`, or a size such as `"512M"`).
enum PlistLimitValue: Decodable, Hashable {
    case integer(Int)
    case word(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let word = try? container.decode(String.self) {
            self = .word(word)
        } else {
            throw DecodingError.typeMismatch(
                Int.self,
                .init(codingPath: decoder.codingPath, debugDescription: "a limit is an integer or a string")
            )
        }
    }

    /// The value in the unit of the key: `ProcessLimits.unlimited` for `unlimited` / `infinity`; with `sizes`,
    /// a string of digits followed by K, M, G or T (powers of 1024, as systemd reads them) too. Nil when it is
    /// none of these, or negative.
    func value(sizes: Bool) -> UInt64? {
        switch self {
        case .integer(let integer):
            return integer >= 0 ? UInt64(integer) : nil
        case .word(let word):
            if word == "unlimited" || word == "infinity" { return ProcessLimits.unlimited }
            guard sizes, let unit = word.last, let shift = ["K": 10, "M": 20, "G": 30, "T": 40][String(unit)],
                let number = UInt64(word.dropLast()), number <= (UInt64(1) << (63 - shift))
            else { return nil }
            return number << UInt64(shift)
        }
    }
}

extension AppInfoPlist.Key {
    static let resourceNames = ProcessLimits.Resource.allCases.map(\.rawValue).joined(separator: ", ")
    static let limitElement =
        "a non-negative integer (bytes; seconds for CPU; a count for NumberOfFiles and NumberOfProcesses), "
        + "a size string such as \"512M\" (K, M, G, T: powers of 1024) for a byte resource, or \"unlimited\""
    static let softResourceLimits = PlistKeySpec(
        AppInfoPlist.CodingKeys.softResourceLimits,
        expected: "a dictionary of launchd resource limits (\(resourceNames))",
        elementExpected: limitElement
    )
    static let hardResourceLimits = PlistKeySpec(
        AppInfoPlist.CodingKeys.hardResourceLimits,
        expected: "a dictionary of launchd resource limits (\(resourceNames))",
        elementExpected: limitElement
    )
    static let memoryMax = PlistKeySpec(
        AppInfoPlist.CodingKeys.memoryMax,
        expected: "a number of bytes > 0: an integer, or a string such as \"512M\" (K, M, G, T: powers of 1024), "
            + "or \"infinity\""
    )
    static let tasksMax = PlistKeySpec(
        AppInfoPlist.CodingKeys.tasksMax,
        expected: "an integer from 1 to \(ProcessLimits.tasksMaxLimit) (processes and threads of the app together; "
            + "the kernel's PID_MAX_LIMIT), or \"infinity\""
    )
    static let cpuWeight = PlistKeySpec(
        AppInfoPlist.CodingKeys.cpuWeight,
        expected: "an integer from \(ProcessLimits.cpuWeights.lowerBound) to \(ProcessLimits.cpuWeights.upperBound) "
            + "(the kernel's default is 100)"
    )
    static let limits = [softResourceLimits, hardResourceLimits, memoryMax, tasksMax, cpuWeight]
    static let cgroupLimits = [memoryMax, tasksMax, cpuWeight]
}

extension ProcessLimits.Resource {
    /// True for the resources measured in bytes (a size string is accepted for them).
    var isBytes: Bool {
        switch self {
        case .cpu, .numberOfFiles, .numberOfProcesses: false
        case .core, .data, .fileSize, .memoryLock, .residentSetSize, .stack: true
        }
    }
}

extension AppInfoPlist {
    /// Sets the app's `ProcessLimits` from the plist. On an embedded app the keys are ignored with a warning.
    static func applyLimitKeys(
        _ plist: AppInfoPlist,
        to descriptor: inout AppDescriptor,
        file: PlistFile,
        warnings: inout [ConfigWarning]
    ) throws(ConfigError) {
        var resources: [ProcessLimits.Resource: ProcessLimits.ResourceLimit] = [:]
        let soft = try Self.resourceValues(plist.softResourceLimits, key: Key.softResourceLimits, file: file)
        let hard = try Self.resourceValues(plist.hardResourceLimits, key: Key.hardResourceLimits, file: file)
        for resource in Set(soft.keys).union(hard.keys).sorted() {
            let limit = (soft: soft[resource], hard: hard[resource])
            if let softValue = limit.soft, let hardValue = limit.hard, softValue > hardValue {
                throw file.error(
                    at: PlistKeyPath.key(Key.softResourceLimits.name).appending(.key(resource.rawValue)),
                    expected: "at most HardResourceLimits.\(resource.rawValue) (\(Self.describe(hardValue))): "
                        + "a soft limit never exceeds its hard limit"
                )
            }
            warnings += Self.resourceWarnings(resource, limit, file: file)
            resources[resource] = ProcessLimits.ResourceLimit(soft: limit.soft, hard: limit.hard)
        }
        let memory = try Self.cgroupValue(plist.memoryMax, key: Key.memoryMax, file: file, sizes: true)
        let tasks = try Self.cgroupValue(
            plist.tasksMax,
            key: Key.tasksMax,
            file: file,
            sizes: false,
            maximum: ProcessLimits.tasksMaxLimit
        )
        if let weight = plist.cpuWeight, !ProcessLimits.cpuWeights.contains(weight) {
            throw file.error(at: .key(Key.cpuWeight.name), expected: Key.cpuWeight.expected)
        }
        guard case .process(var spec) = descriptor.kind else {
            for key in Key.limits where file.contains(key: key.name) {
                warnings.append(
                    file.warning(
                        at: .key(key.name),
                        "ignored: the app has no ProgramArguments, so it is embedded, not a process"
                    )
                )
            }
            return
        }
        spec.limits = ProcessLimits(
            resources: resources,
            memoryMaxBytes: memory,
            tasksMax: tasks,
            cpuWeight: plist.cpuWeight
        )
        descriptor.kind = .process(spec)
    }

    /// The values of one of the two dictionaries, by resource. An unknown name is an error that names it and the
    /// nearest known one.
    private static func resourceValues(
        _ values: [String: PlistLimitValue]?,
        key: PlistKeySpec,
        file: PlistFile
    ) throws(ConfigError) -> [ProcessLimits.Resource: UInt64] {
        var result: [ProcessLimits.Resource: UInt64] = [:]
        for (name, value) in (values ?? [:]).sorted(by: { $0.key < $1.key }) {
            let path = PlistKeyPath.key(key.name).appending(.key(name))
            guard let resource = ProcessLimits.Resource(rawValue: name) else {
                var found = "the key " + quotedPlistString(name)
                if let near = Self.nearestResource(to: name) { found += " (did you mean \(near.rawValue)?)" }
                throw ConfigError(
                    code: .invalidValue,
                    file: file.path,
                    keyPath: path.description,
                    found: found,
                    expected: "a launchd resource name: one of \(Key.resourceNames)"
                )
            }
            guard let number = value.value(sizes: resource.isBytes) else {
                throw file.error(at: path, expected: key.elementExpected ?? key.expected)
            }
            if resource == .numberOfFiles, number == ProcessLimits.unlimited {
                throw file.error(
                    at: path,
                    expected: "a number of descriptors: Linux refuses an unlimited NumberOfFiles "
                        + "(at most /proc/sys/fs/nr_open)"
                )
            }
            result[resource] = number
        }
        return result
    }

    /// `MemoryMax` or `TasksMax`: a value > 0 and at most `maximum` (nil: no bound), or unlimited.
    private static func cgroupValue(
        _ value: PlistLimitValue?,
        key: PlistKeySpec,
        file: PlistFile,
        sizes: Bool,
        maximum: UInt64? = nil
    ) throws(ConfigError) -> UInt64? {
        guard let value else { return nil }
        guard let number = value.value(sizes: sizes), number > 0,
            number == ProcessLimits.unlimited || number <= maximum ?? ProcessLimits.unlimited
        else {
            throw file.error(at: .key(key.name), expected: key.expected)
        }
        return number
    }

    /// What cannot work as written on this machine, though it is valid: ResidentSetSize (not enforced), a value
    /// above this process's hard limit without root, NumberOfFiles above `nr_open`.
    private static func resourceWarnings(
        _ resource: ProcessLimits.Resource,
        _ limit: (soft: UInt64?, hard: UInt64?),
        file: PlistFile
    ) -> [ConfigWarning] {
        let path = { (key: PlistKeySpec) in PlistKeyPath.key(key.name).appending(.key(resource.rawValue)) }
        let written = limit.hard != nil ? path(Key.hardResourceLimits) : path(Key.softResourceLimits)
        if resource == .residentSetSize {
            return [
                file.warning(
                    at: written,
                    "Linux does not enforce ResidentSetSize (RLIMIT_RSS): it is set but limits nothing; "
                        + "use MemoryMax to bound the app's memory"
                )
            ]
        }
        var warnings: [ConfigWarning] = []
        let highest = max(limit.soft ?? 0, limit.hard ?? 0)
        var own = rlimit()
        if geteuid() != 0, getrlimit(Self.rlimitResource(resource), &own) == 0, own.rlim_max != rlim_t.max,
            highest > UInt64(own.rlim_max)
        {
            warnings.append(
                file.warning(
                    at: written,
                    "\(Self.describe(highest)) is above this process's hard limit (\(own.rlim_max)): raising a hard "
                        + "limit needs root (CAP_SYS_RESOURCE), so the launch fails unless the daemon runs as root"
                )
            )
        }
        if resource == .numberOfFiles, let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8),
            let ceiling = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), highest > ceiling
        {
            warnings.append(
                file.warning(
                    at: written,
                    "\(highest) is above /proc/sys/fs/nr_open (\(ceiling)): Linux refuses it, so the launch fails"
                )
            )
        }
        return warnings
    }

    /// The `RLIMIT_*` number of a resource, for the checks against this process's own limits.
    static func rlimitResource(_ resource: ProcessLimits.Resource) -> __rlimit_resource_t {
        let constant: __rlimit_resource
        switch resource {
        case .core: constant = RLIMIT_CORE
        case .cpu: constant = RLIMIT_CPU
        case .data: constant = RLIMIT_DATA
        case .fileSize: constant = RLIMIT_FSIZE
        case .memoryLock: constant = __RLIMIT_MEMLOCK
        case .numberOfFiles: constant = RLIMIT_NOFILE
        case .numberOfProcesses: constant = __RLIMIT_NPROC
        case .residentSetSize: constant = __RLIMIT_RSS
        case .stack: constant = RLIMIT_STACK
        }
        return __rlimit_resource_t(constant.rawValue)
    }

    /// The known resource whose name is closest to `name`: equal ignoring case, or at most two edits away.
    static func nearestResource(to name: String) -> ProcessLimits.Resource? {
        let lowered = Array(name.lowercased())
        let scored = ProcessLimits.Resource.allCases.map { resource in
            (resource, Self.editDistance(lowered, Array(resource.rawValue.lowercased())))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    /// Levenshtein distance; names are short (under 20 characters).
    private static func editDistance(_ left: [Character], _ right: [Character]) -> Int {
        var previous = Array(0...right.count)
        for (i, leftCharacter) in left.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: right.count)
            for (j, rightCharacter) in right.enumerated() {
                let substitution = previous[j] + (leftCharacter == rightCharacter ? 0 : 1)
                current[j + 1] = min(substitution, previous[j + 1] + 1, current[j] + 1)
            }
            previous = current
        }
        return previous[right.count]
    }

    /// `unlimited`, or the number.
    static func describe(_ value: UInt64) -> String {
        value == ProcessLimits.unlimited ? "unlimited" : "\(value)"
    }
}
