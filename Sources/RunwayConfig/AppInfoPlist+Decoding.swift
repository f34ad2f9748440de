// How an app Info.plist is decoded: only the keys the file has, from one container that also lists every key
// (`PlistKeysListing`). A file names a few of the 32 keys; asking the decoder for each absent one
// (`decodeIfPresent`, as a synthesised `init(from:)` does) cost it about 4,000 instructions a key, and each keyed
// container about 20,000, most of the cost of an app.

extension AppInfoPlist: PlistKeysListing {
    /// Decodes the keys present in the file, in the order of ``CodingKeys`` (declaration order, so the first bad
    /// key found is the same as with every key asked for); absent keys stay nil. Every top-level key, known or
    /// not, goes to `topLevelKeys`.
    ///
    /// - Throws: The decoder's `DecodingError` for the first key whose value does not decode.
    init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: AnyPlistKey.self)
        self.topLevelKeys = container.allKeys.map(\.stringValue)
        let present = self.topLevelKeys.compactMap(CodingKeys.init(stringValue:)).sorted {
            CodingKeys.allCases.firstIndex(of: $0)! < CodingKeys.allCases.firstIndex(of: $1)!
        }
        for known in present {
            let key = AnyPlistKey(stringValue: known.stringValue)
            // Exhaustive: a key added to CodingKeys does not compile until it is decoded here.
            switch known {
            case .bundleIdentifier: self.bundleIdentifier = try container.decodeIfPresent(String.self, forKey: key)
            case .programArguments: self.programArguments = try Self.strings(in: container, at: key)
            case .environmentVariables:
                self.environmentVariables = try container.decodeIfPresent([String: String].self, forKey: key)
            case .workingDirectory: self.workingDirectory = try container.decodeIfPresent(String.self, forKey: key)
            case .exitsOnSuspend: self.exitsOnSuspend = try container.decodeIfPresent(Bool.self, forKey: key)
            case .exitsOnSuspendStyle:
                self.exitsOnSuspendStyle = try container.decodeIfPresent(String.self, forKey: key)
            case .lockBehavior: self.lockBehavior = try container.decodeIfPresent(String.self, forKey: key)
            case .backgroundModes: self.backgroundModes = try Self.strings(in: container, at: key)
            case .backgroundTimeBudget:
                self.backgroundTimeBudget = try container.decodeIfPresent(Double.self, forKey: key)
            case .runwayProtocol: self.runwayProtocol = try container.decodeIfPresent(Int.self, forKey: key)
            case .standardOutPath: self.standardOutPath = try container.decodeIfPresent(String.self, forKey: key)
            case .standardErrorPath: self.standardErrorPath = try container.decodeIfPresent(String.self, forKey: key)
            case .logFileSizeLimit: self.logFileSizeLimit = try container.decodeIfPresent(Int.self, forKey: key)
            case .logFileCount: self.logFileCount = try container.decodeIfPresent(Int.self, forKey: key)
            case .runAtLoad: self.runAtLoad = try container.decodeIfPresent(Bool.self, forKey: key)
            case .keepAlive: self.keepAlive = try container.decodeIfPresent(KeepAliveValue.self, forKey: key)
            case .throttleInterval: self.throttleInterval = try container.decodeIfPresent(Double.self, forKey: key)
            case .backgroundWakeBudget:
                self.backgroundWakeBudget = try container.decodeIfPresent(Double.self, forKey: key)
            case .softResourceLimits:
                self.softResourceLimits = try container.decodeIfPresent([String: PlistLimitValue].self, forKey: key)
            case .hardResourceLimits:
                self.hardResourceLimits = try container.decodeIfPresent([String: PlistLimitValue].self, forKey: key)
            case .memoryMax: self.memoryMax = try container.decodeIfPresent(PlistLimitValue.self, forKey: key)
            case .tasksMax: self.tasksMax = try container.decodeIfPresent(PlistLimitValue.self, forKey: key)
            case .cpuWeight: self.cpuWeight = try container.decodeIfPresent(Int.self, forKey: key)
            case .userName: self.userName = try container.decodeIfPresent(String.self, forKey: key)
            case .groupName: self.groupName = try container.decodeIfPresent(String.self, forKey: key)
            case .initGroups: self.initGroups = try container.decodeIfPresent(Bool.self, forKey: key)
            case .bundleName: self.bundleName = try container.decodeIfPresent(String.self, forKey: key)
            case .bundleDisplayName: self.bundleDisplayName = try container.decodeIfPresent(String.self, forKey: key)
            case .bundleVersion: self.bundleVersion = try container.decodeIfPresent(String.self, forKey: key)
            case .bundleShortVersion:
                self.bundleShortVersion = try container.decodeIfPresent(String.self, forKey: key)
            case .bundleExecutable: self.bundleExecutable = try container.decodeIfPresent(String.self, forKey: key)
            case .stateVersion: self.stateVersion = try container.decodeIfPresent(String.self, forKey: key)
            }
        }
    }

    /// The array of strings at `key`, element by element through the container's `String` overload: decoding
    /// `[String]` decodes each element through the generic path, about 13,000 instructions an element in
    /// Foundation's decoder. The errors are those of decoding `[String]`: a value that is not an array at `key`,
    /// an element that is not a string at `key[index]`.
    private static func strings(
        in container: KeyedDecodingContainer<AnyPlistKey>,
        at key: AnyPlistKey
    ) throws -> [String] {
        var elements = try container.nestedUnkeyedContainer(forKey: key)
        var strings: [String] = []
        strings.reserveCapacity(elements.count ?? 0)
        while !elements.isAtEnd {
            strings.append(try elements.decode(String.self))
        }
        return strings
    }
}
