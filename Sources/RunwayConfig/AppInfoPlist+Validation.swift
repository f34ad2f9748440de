@_spi(Processes) import RunwayCore

// The checks of `AppInfoPlist.load(_:)` for the keys that need more than a type and a choice: the bundle
// identifier, the process keys and `UIBackgroundModes`.
extension AppInfoPlist {
    /// True for `com.example.notes`: two or more non-empty components of ASCII letters, digits and hyphens, at
    /// most `bundleIdentifierMaximumLength` characters. One pass over the UTF-8 bytes: every accepted byte is
    /// ASCII, so the bytes counted are the characters.
    static func isReverseDNS(_ identifier: String) -> Bool {
        var length = 0
        var components = 1
        var componentLength = 0
        for byte in identifier.utf8 {
            length += 1
            switch byte {
            case UInt8(ascii: "."):
                guard componentLength > 0 else { return false }
                components += 1
                componentLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                componentLength += 1
            default:
                return false
            }
        }
        return length <= Self.bundleIdentifierMaximumLength && components >= 2 && componentLength > 0
    }

    static func bundleIdentifier(_ value: String?, file: PlistFile) throws(ConfigError) -> AppID {
        let path = PlistKeyPath.key(Key.bundleIdentifier.name)
        guard let value else {
            throw file.error(code: .missingValue, at: path, expected: Key.bundleIdentifier.expected)
        }
        guard Self.isReverseDNS(value) else {
            throw file.error(at: path, expected: Key.bundleIdentifier.expected)
        }
        if let taken = Self.cgroupFileName(taken: value) {
            throw file.error(
                at: path,
                expected: "an identifier an app cgroup directory can be named after: \(taken) names a cgroup's "
                    + "own files (e.g. \"com.example.notes\")"
            )
        }
        return AppID(value)
    }

    /// The cgroup file names an app's cgroup directory, named after its bundle identifier, would collide with:
    /// the interface files (`cgroup.*`, a controller's `memory.*`, `pids.*`...) and cgroup v1's own names.
    static let cgroupFilePrefixes = [
        "cgroup.", "memory.", "pids.", "cpu.", "io.", "cpuset.", "hugetlb.", "rdma.", "misc.",
    ]
    static let cgroupFileNames: Set<String> = ["tasks", "notify_on_release", "release_agent"]

    /// How `identifier` collides with a cgroup's files ("a name starting with \"cgroup.\""), or nil.
    static func cgroupFileName(taken identifier: String) -> String? {
        if Self.cgroupFileNames.contains(identifier) { return "the name \(quotedPlistString(identifier))" }
        guard let prefix = Self.cgroupFilePrefixes.first(where: { identifier.hasPrefix($0) }) else { return nil }
        return "a name starting with \(quotedPlistString(prefix))"
    }

    /// The process to start, or nil for an embedded app. Validates `ProgramArguments`, `EnvironmentVariables`,
    /// `WorkingDirectory` and `RunwayProtocol`; the last is an error without `ProgramArguments`, the other two
    /// are ignored with a warning.
    static func processSpec(
        _ plist: AppInfoPlist,
        file: PlistFile,
        warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> ProcessSpec? {
        let argumentsPath = PlistKeyPath.key(Key.programArguments.name)
        if let arguments = plist.programArguments {
            guard !arguments.isEmpty else {
                throw file.error(at: argumentsPath, expected: Key.programArguments.expected)
            }
            for (index, argument) in arguments.enumerated()
            where argument.utf8.contains(0) || (index == 0 && argument.isEmpty) {
                throw file.error(
                    at: argumentsPath.appending(.index(index)),
                    expected: Key.programArguments.elementExpected ?? ""
                )
            }
        }

        let environmentPath = PlistKeyPath.key(Key.environmentVariables.name)
        for (name, value) in (plist.environmentVariables ?? [:]).sorted(by: { $0.key < $1.key }) {
            let path = environmentPath.appending(.key(name))
            if name.isEmpty || name.contains("=") || name.utf8.contains(0) {
                throw ConfigError(
                    code: .invalidValue,
                    file: file.path,
                    keyPath: path.description,
                    found: "the name " + quotedPlistString(name),
                    expected: "an environment variable name: non-empty, without '=' or NUL"
                )
            }
            if value.utf8.contains(0) {
                throw file.error(at: path, expected: Key.environmentVariables.elementExpected ?? "")
            }
        }

        let workingDirectory = try file.absolutePath(plist.workingDirectory, key: Key.workingDirectory)

        if let version = plist.runwayProtocol, version != Self.supportedProtocolVersion {
            throw file.error(at: .key(Key.runwayProtocol.name), expected: Key.runwayProtocol.expected)
        }

        guard let arguments = plist.programArguments else {
            if plist.runwayProtocol != nil {
                throw file.error(
                    at: .key(Key.runwayProtocol.name),
                    expected: "RunwayProtocol only on a process app (one with ProgramArguments); "
                        + "embedded apps are driven through the delegate protocol (A1, A4)"
                )
            }
            for key in [Key.environmentVariables, Key.workingDirectory] + Key.outputFileKeys + Key.user
            where file.contains(key: key.name) {
                warnings.append(
                    file.warning(
                        at: .key(key.name),
                        "ignored: the app has no ProgramArguments, so it is embedded, not a process"
                    )
                )
            }
            return nil
        }
        var spec = ProcessSpec(
            arguments: arguments,
            environment: plist.environmentVariables ?? [:],
            workingDirectory: workingDirectory,
            speaksProtocol: plist.runwayProtocol == Self.supportedProtocolVersion,
            outputFiles: try Self.outputFiles(plist, file: file)
        )
        spec.user = try Self.user(plist, file: file)
        return spec
    }

    static func backgroundModes(
        _ value: [String]?,
        file: PlistFile,
        warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> [String] {
        let path = PlistKeyPath.key(Key.backgroundModes.name)
        for (index, mode) in (value ?? []).enumerated() {
            if mode.isEmpty {
                throw file.error(at: path.appending(.index(index)), expected: Key.backgroundModes.elementExpected ?? "")
            }
            if !Self.knownBackgroundModes.contains(mode) {
                warnings.append(
                    file.warning(
                        at: path.appending(.index(index)),
                        "\(quotedPlistString(mode)) is not a UIBackgroundModes value iOS defines; "
                            + "Runway treats it like any other mode (L7)"
                    )
                )
            }
        }
        return value ?? []
    }
}
