import RunwayCore

// The autostart and restart keys of an app Info.plist, named as launchd names them: `RunAtLoad`, `KeepAlive` (a
// boolean, or a dictionary of `SuccessfulExit` and `Crashed`) and `ThrottleInterval` (Docs/Configuration.md).

/// `KeepAlive` as written: a boolean, or launchd's dictionary of conditions.
enum KeepAliveValue: Decodable, Hashable {
    case flag(Bool)
    case conditions([RestartPolicy.Condition])

    /// The dictionary keys Runway supports; launchd's others (`PathState`, `NetworkState`, ...) are refused.
    static let conditionKeys = ["SuccessfulExit", "Crashed"]

    init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            self = .flag(flag)
            return
        }
        let container = try decoder.container(keyedBy: ConditionKey.self)
        var conditions: [RestartPolicy.Condition] = []
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let value = try container.decode(Bool.self, forKey: key)
            switch key.stringValue {
            case "SuccessfulExit": conditions.append(.successfulExit(value))
            case "Crashed": conditions.append(.crashed(value))
            default:
                throw DecodingError.dataCorrupted(
                    .init(codingPath: container.codingPath + [key], debugDescription: "unsupported KeepAlive key")
                )
            }
        }
        guard !conditions.isEmpty else {
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath, debugDescription: "empty"))
        }
        self = .conditions(conditions)
    }

    /// Any key of the dictionary, checked against `conditionKeys` above.
    struct ConditionKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension AppInfoPlist.Key {
    static let runAtLoad = PlistKeySpec(AppInfoPlist.CodingKeys.runAtLoad, expected: Expected.boolean)
    static let keepAlive = PlistKeySpec(
        AppInfoPlist.CodingKeys.keepAlive,
        expected: "a boolean, or a dictionary with SuccessfulExit and/or Crashed (booleans)",
        elementExpected: "SuccessfulExit or Crashed, a boolean (Runway supports no other KeepAlive condition)"
    )
    static let throttleInterval = PlistKeySpec(
        AppInfoPlist.CodingKeys.throttleInterval,
        expected: Expected.restartWait
    )
    static let restart = [runAtLoad, keepAlive, throttleInterval]
}

extension AppInfoPlist {
    /// Sets `runAtLoad` and `keepAlive` from the plist. `ThrottleInterval` without a restarting `KeepAlive`, and
    /// `KeepAlive` on an embedded app (which never exits on its own), are ignored with a warning.
    static func applyRestartKeys(
        _ plist: AppInfoPlist,
        to descriptor: inout AppDescriptor,
        file: PlistFile,
        warnings: inout [ConfigWarning]
    ) throws(ConfigError) {
        descriptor.runAtLoad = plist.runAtLoad ?? false
        let throttle = try file.seconds(plist.throttleInterval, key: Key.throttleInterval, positive: true)
        if let throttle, throttle < RestartPolicy.minimumRestartWait {
            throw file.error(at: .key(Key.throttleInterval.name), expected: Key.throttleInterval.expected)
        }
        let conditions: [RestartPolicy.Condition]
        switch plist.keepAlive {
        case nil, .flag(false): conditions = []
        case .flag(true): conditions = [.always]
        case .conditions(let list): conditions = list
        }
        guard !conditions.isEmpty else {
            if throttle != nil {
                warnings.append(file.warning(at: .key(Key.throttleInterval.name), "ignored: KeepAlive is not set"))
            }
            return
        }
        guard descriptor.isProcess else {
            warnings.append(
                file.warning(
                    at: .key(Key.keepAlive.name),
                    "ignored: the app has no ProgramArguments, and an embedded app never exits on its own"
                )
            )
            return
        }
        descriptor.keepAlive = RestartPolicy(
            conditions: conditions,
            throttleInterval: throttle ?? RestartPolicy.defaultThrottleInterval
        )
    }
}
