import RunwayCore

/// One app's Info.plist (`Apps/<name>.plist`) as `PropertyListDecoder` reads it (C1). Keys are decoded, and so
/// checked, in declaration order, `CFBundleIdentifier` first.
struct AppInfoPlist: Decodable {
    var bundleIdentifier: String?
    var programArguments: [String]?
    var environmentVariables: [String: String]?
    var workingDirectory: String?
    var exitsOnSuspend: Bool?
    var exitsOnSuspendStyle: String?
    var backgroundModes: [String]?
    var backgroundTimeBudget: Double?
    var runwayProtocol: Int?
    // Usual Info.plist keys: type-checked, otherwise ignored, never warned about.
    var bundleName: String?
    var bundleDisplayName: String?
    var bundleVersion: String?
    var bundleShortVersion: String?
    var bundleExecutable: String?

    enum CodingKeys: String, CodingKey {
        case bundleIdentifier = "CFBundleIdentifier"
        case programArguments = "ProgramArguments"
        case environmentVariables = "EnvironmentVariables"
        case workingDirectory = "WorkingDirectory"
        case exitsOnSuspend = "UIApplicationExitsOnSuspend"
        case exitsOnSuspendStyle = "ExitsOnSuspendStyle"
        case backgroundModes = "UIBackgroundModes"
        case backgroundTimeBudget = "RunwayBackgroundTimeBudget"
        case runwayProtocol = "RunwayProtocol"
        case bundleName = "CFBundleName"
        case bundleDisplayName = "CFBundleDisplayName"
        case bundleVersion = "CFBundleVersion"
        case bundleShortVersion = "CFBundleShortVersionString"
        case bundleExecutable = "CFBundleExecutable"
    }

    /// Longest bundle identifier accepted, in characters.
    static let bundleIdentifierMaximumLength = 255
    /// The only `RunwayProtocol` version there is (A4).
    static let supportedProtocolVersion = 1
    /// The `UIBackgroundModes` values iOS defines. Runway treats every mode alike (L7); other names are warned
    /// about because they are most likely typos.
    static let knownBackgroundModes: Set<String> = [
        "audio", "location", "voip", "fetch", "remote-notification", "newsstand-content", "external-accessory",
        "bluetooth-central", "bluetooth-peripheral", "processing", "push-to-talk", "nearby-interaction",
    ]

    enum Key {
        static let bundleIdentifier = PlistKeySpec(
            CodingKeys.bundleIdentifier,
            expected: "a reverse-DNS bundle identifier: two or more dot-separated non-empty components of "
                + "A-Z a-z 0-9 and -, at most \(AppInfoPlist.bundleIdentifierMaximumLength) characters "
                + "(e.g. \"com.example.notes\")"
        )
        static let programArguments = PlistKeySpec(
            CodingKeys.programArguments,
            expected: "a non-empty array of strings: the program, then its arguments",
            elementExpected: "a string without NUL characters (the first one non-empty: the program)"
        )
        static let environmentVariables = PlistKeySpec(
            CodingKeys.environmentVariables,
            expected: "a dictionary of environment variables (names without '=' or NUL, string values)",
            elementExpected: "a string without NUL characters"
        )
        static let workingDirectory = PlistKeySpec(
            CodingKeys.workingDirectory,
            expected: "an absolute path (a string starting with \"/\")"
        )
        static let exitsOnSuspend = PlistKeySpec(CodingKeys.exitsOnSuspend, expected: Expected.boolean)
        static let exitsOnSuspendStyle = PlistKeySpec(
            CodingKeys.exitsOnSuspendStyle,
            expected: Expected.oneOf(ExitsOnSuspendStyle.self)
        )
        static let backgroundModes = PlistKeySpec(
            CodingKeys.backgroundModes,
            expected: "an array of background mode names (strings), e.g. [\"audio\"]",
            elementExpected: "a background mode name (a non-empty string)"
        )
        static let backgroundTimeBudget = PlistKeySpec(CodingKeys.backgroundTimeBudget, expected: Expected.seconds)
        static let runwayProtocol = PlistKeySpec(
            CodingKeys.runwayProtocol,
            expected: "the integer \(AppInfoPlist.supportedProtocolVersion) (the only protocol version)"
        )
        static let harmless: [PlistKeySpec] = [
            PlistKeySpec(CodingKeys.bundleName, expected: Expected.string),
            PlistKeySpec(CodingKeys.bundleDisplayName, expected: Expected.string),
            PlistKeySpec(CodingKeys.bundleVersion, expected: Expected.string),
            PlistKeySpec(CodingKeys.bundleShortVersion, expected: Expected.string),
            PlistKeySpec(CodingKeys.bundleExecutable, expected: Expected.string),
        ]
    }

    static let schema = PlistSchema(
        fileKind: "an app Info.plist in Apps/",
        specs: [
            Key.bundleIdentifier, Key.programArguments, Key.environmentVariables, Key.workingDirectory,
            Key.exitsOnSuspend, Key.exitsOnSuspendStyle, Key.backgroundModes, Key.backgroundTimeBudget,
            Key.runwayProtocol,
        ] + Key.harmless,
        hints: [
            "BackgroundTimeBudget": "the per-app key is RunwayBackgroundTimeBudget"
        ]
    )

    /// Decodes and validates `file` as an app Info.plist.
    ///
    /// - Returns: The app and the file's warnings, sorted by key path.
    /// - Throws: The first problem, checking keys in the order of ``CodingKeys``.
    static func load(_ file: PlistFile) throws(ConfigError) -> (AppDescriptor, [ConfigWarning]) {
        var warnings = try file.unknownKeyWarnings(schema: Self.schema, otherSchema: RunwaySettingsPlist.schema)
        let plist = try file.decode(AppInfoPlist.self, schema: Self.schema)

        let id = try Self.bundleIdentifier(plist.bundleIdentifier, file: file)
        let process = try Self.processSpec(plist, file: file, warnings: &warnings)
        let exitsOnSuspend = plist.exitsOnSuspend ?? false
        let style = try file.choice(
            plist.exitsOnSuspendStyle,
            key: Key.exitsOnSuspendStyle,
            as: ExitsOnSuspendStyle.self
        )
        if style != nil, !exitsOnSuspend {
            warnings.append(
                file.warning(
                    at: .key(Key.exitsOnSuspendStyle.name),
                    "ignored: UIApplicationExitsOnSuspend is not true"
                )
            )
        }
        let modes = try Self.backgroundModes(plist.backgroundModes, file: file, warnings: &warnings)
        if !modes.isEmpty, exitsOnSuspend {
            // E1 and L7 contradict: an app that exits instead of suspending cannot also run in the background.
            throw file.error(
                at: .key(Key.backgroundModes.name),
                expected: "no UIBackgroundModes on an app with UIApplicationExitsOnSuspend = true (E1, L7)"
            )
        }
        let budget = try file.seconds(plist.backgroundTimeBudget, key: Key.backgroundTimeBudget)
        if budget != nil, !modes.isEmpty {
            warnings.append(
                file.warning(
                    at: .key(Key.backgroundTimeBudget.name),
                    "ignored: apps with UIBackgroundModes run in the background without a budget (L7)"
                )
            )
        }

        let descriptor = AppDescriptor(
            id: id,
            kind: process.map(AppKind.process) ?? .embedded,
            exitsOnSuspend: exitsOnSuspend,
            exitsOnSuspendStyle: style,
            backgroundModes: modes,
            backgroundTimeBudget: budget
        )
        return (descriptor, warnings.sortedByKeyPath())
    }

    /// True for `com.example.notes`: two or more non-empty components of ASCII letters, digits and hyphens.
    static func isReverseDNS(_ identifier: String) -> Bool {
        guard identifier.count <= Self.bundleIdentifierMaximumLength else { return false }
        let components = identifier.split(separator: ".", omittingEmptySubsequences: false)
        guard components.count >= 2 else { return false }
        return components.allSatisfy { component in
            !component.isEmpty
                && component.unicodeScalars.allSatisfy { scalar in
                    switch scalar {
                    case "a"..."z", "A"..."Z", "0"..."9", "-": return true
                    default: return false
                    }
                }
        }
    }

    private static func bundleIdentifier(_ value: String?, file: PlistFile) throws(ConfigError) -> AppID {
        let path = PlistKeyPath.key(Key.bundleIdentifier.name)
        guard let value else {
            throw file.error(code: .missingValue, at: path, expected: Key.bundleIdentifier.expected)
        }
        guard Self.isReverseDNS(value) else {
            throw file.error(at: path, expected: Key.bundleIdentifier.expected)
        }
        return AppID(value)
    }

    /// The process to start, or nil for an embedded app. Validates `ProgramArguments`, `EnvironmentVariables`,
    /// `WorkingDirectory` and `RunwayProtocol`; the last is an error without `ProgramArguments`, the other two
    /// are ignored with a warning.
    private static func processSpec(
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
            for key in [Key.environmentVariables, Key.workingDirectory] where file.value(at: .key(key.name)) != nil {
                warnings.append(
                    file.warning(
                        at: .key(key.name),
                        "ignored: the app has no ProgramArguments, so it is embedded, not a process"
                    )
                )
            }
            return nil
        }
        return ProcessSpec(
            arguments: arguments,
            environment: plist.environmentVariables ?? [:],
            workingDirectory: workingDirectory,
            speaksProtocol: plist.runwayProtocol == Self.supportedProtocolVersion
        )
    }

    private static func backgroundModes(
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
