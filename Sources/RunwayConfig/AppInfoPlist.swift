@_spi(Processes) import RunwayCore

/// One app's Info.plist (`Apps/<name>.plist`) as `PropertyListDecoder` reads it (C1). Keys are decoded, and so
/// checked, in declaration order, `CFBundleIdentifier` first.
struct AppInfoPlist: Decodable {
    var bundleIdentifier: String?
    var programArguments: [String]?
    var environmentVariables: [String: String]?
    var workingDirectory: String?
    var exitsOnSuspend: Bool?
    var exitsOnSuspendStyle: String?
    var lockBehavior: String?
    var backgroundModes: [String]?
    var backgroundTimeBudget: Double?
    var runwayProtocol: Int?
    var standardOutPath: String?
    var standardErrorPath: String?
    var logFileSizeLimit: Int?
    var logFileCount: Int?
    var runAtLoad: Bool?
    var keepAlive: KeepAliveValue?
    var throttleInterval: Double?
    var backgroundWakeBudget: Double?
    var softResourceLimits: [String: PlistLimitValue]?
    var hardResourceLimits: [String: PlistLimitValue]?
    var memoryMax: PlistLimitValue?
    var tasksMax: PlistLimitValue?
    var cpuWeight: Int?
    var userName: String?
    var groupName: String?
    var initGroups: Bool?
    var stateVersion: String?
    // Usual Info.plist keys: type-checked, otherwise ignored, never warned about.
    var bundleName: String?
    var bundleDisplayName: String?
    var bundleVersion: String?
    var bundleShortVersion: String?
    var bundleExecutable: String?
    /// Every top-level key of the file, known or not, in the decoder's order (not a plist key).
    var topLevelKeys: [String] = []

    enum CodingKeys: String, CodingKey, CaseIterable {
        case bundleIdentifier = "CFBundleIdentifier"
        case programArguments = "ProgramArguments"
        case environmentVariables = "EnvironmentVariables"
        case workingDirectory = "WorkingDirectory"
        case exitsOnSuspend = "UIApplicationExitsOnSuspend"
        case exitsOnSuspendStyle = "ExitsOnSuspendStyle"
        case lockBehavior = "LockBehavior"
        case backgroundModes = "UIBackgroundModes"
        case backgroundTimeBudget = "RunwayBackgroundTimeBudget"
        case runwayProtocol = "RunwayProtocol"
        case standardOutPath = "StandardOutPath"
        case standardErrorPath = "StandardErrorPath"
        case logFileSizeLimit = "LogFileSizeLimit"
        case logFileCount = "LogFileCount"
        case runAtLoad = "RunAtLoad"
        case keepAlive = "KeepAlive"
        case throttleInterval = "ThrottleInterval"
        case backgroundWakeBudget = "RunwayBackgroundWakeBudget"
        case softResourceLimits = "SoftResourceLimits"
        case hardResourceLimits = "HardResourceLimits"
        case memoryMax = "MemoryMax"
        case tasksMax = "TasksMax"
        case cpuWeight = "CPUWeight"
        case userName = "UserName"
        case groupName = "GroupName"
        case initGroups = "InitGroups"
        case stateVersion = "RunwayStateVersion"
        case bundleName = "CFBundleName"
        case bundleDisplayName = "CFBundleDisplayName"
        case bundleVersion = "CFBundleVersion"
        case bundleShortVersion = "CFBundleShortVersionString"
        case bundleExecutable = "CFBundleExecutable"
    }

    /// Longest `RunwayStateVersion` accepted, in UTF-8 bytes: it is stored in every preserved state's header.
    static let stateVersionMaximumBytes = 256
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
        static let lockBehavior = PlistKeySpec(CodingKeys.lockBehavior, expected: Expected.oneOf(LockBehavior.self))
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
        static let backgroundWakeBudget = PlistKeySpec(CodingKeys.backgroundWakeBudget, expected: Expected.seconds)
        static let stateVersion = PlistKeySpec(
            CodingKeys.stateVersion,
            expected: "a string of 1 to \(AppInfoPlist.stateVersionMaximumBytes) bytes without control characters "
                + "(NUL, newline, tab, ...): the preserved state's version"
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
            Key.exitsOnSuspend, Key.exitsOnSuspendStyle, Key.lockBehavior, Key.backgroundModes,
            Key.backgroundTimeBudget, Key.runwayProtocol, Key.backgroundWakeBudget, Key.stateVersion,
        ] + Key.outputFileKeys + Key.restart + Key.limits + Key.user + Key.harmless,
        hints: [
            "BackgroundTimeBudget": "the per-app key is RunwayBackgroundTimeBudget",
            "LockStyle": "the key is LockBehavior",
            "BackgroundWakeBudget": "the per-app key is RunwayBackgroundWakeBudget",
        ]
    )

    /// Decodes and validates `file` as an app Info.plist.
    ///
    /// - Returns: The app and the file's warnings, sorted by key path.
    /// - Throws: The first problem, checking keys in the order of ``CodingKeys``.
    static func load(_ file: PlistFile) throws(ConfigError) -> (AppDescriptor, [ConfigWarning]) {
        let (plist, keys) = try file.decodeWithKeys(AppInfoPlist.self, schema: Self.schema)
        var warnings = file.unknownKeyWarnings(keys, schema: Self.schema, otherSchema: RunwaySettingsPlist.schema)

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
        let lockBehavior = try file.choice(plist.lockBehavior, key: Key.lockBehavior, as: LockBehavior.self)
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

        let wakeBudget = try file.seconds(plist.backgroundWakeBudget, key: Key.backgroundWakeBudget)
        var descriptor = AppDescriptor(
            id: id,
            kind: process.map(AppKind.process) ?? .embedded,
            exitsOnSuspend: exitsOnSuspend,
            exitsOnSuspendStyle: style,
            lockBehavior: lockBehavior,
            backgroundModes: modes,
            backgroundTimeBudget: budget,
            backgroundWakeBudget: wakeBudget
        )
        if let version = plist.stateVersion {
            // Control characters would be cut at a NUL or break the lines that name the version (R5's warning).
            let control = version.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            guard (1...Self.stateVersionMaximumBytes).contains(version.utf8.count), !control else {
                throw file.error(at: .key(Key.stateVersion.name), expected: Key.stateVersion.expected)
            }
            descriptor.stateVersion = version
        }
        try Self.applyRestartKeys(plist, to: &descriptor, file: file, warnings: &warnings)
        try Self.applyLimitKeys(plist, to: &descriptor, file: file, warnings: &warnings)
        return (descriptor, warnings.sortedByKeyPath())
    }
}
