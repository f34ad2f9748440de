import RunwayConfig
import Testing

/// One bad value: where it is written, and the error loading must give for it.
struct BadValue: CustomTestStringConvertible, Sendable {
    /// The file a case writes, under the configuration directory.
    enum Place: Sendable {
        /// `Runway.plist` holding these keys (plist XML).
        case runway(String)
        /// `Apps/<name>.plist`: a plain process app with `identifier` and these extra keys.
        case app(String, identifier: String, keys: String)
        /// The file at this path holding exactly these keys.
        case file(String, keys: String)
    }

    let behaviour: String
    let place: Place
    let code: ConfigError.Code
    let keyPath: String
    let found: String
    let expected: String

    init(
        _ behaviour: String,
        _ place: Place,
        _ code: ConfigError.Code = .invalidValue,
        keyPath: String,
        found: String,
        expected: String
    ) {
        self.behaviour = behaviour
        self.place = place
        self.code = code
        self.keyPath = keyPath
        self.found = found
        self.expected = expected
    }

    var testDescription: String { self.behaviour }

    static let seconds = "a finite number of seconds >= 0 (real or integer)"
    static let loopPriority = "an integer from 1 to 99 (a SCHED_FIFO priority)"
    static let loopSpin = "a number of seconds from 0 to 0.001"

    /// Values of the wrong type, named by what they are.
    static let wrongTypes: [BadValue] = [
        BadValue(
            "a number in UIBackgroundModes names its index",
            .app(
                "player",
                identifier: "com.example.player",
                keys: "<key>UIBackgroundModes</key><array><string>audio</string><integer>7</integer></array>"
            ),
            .wrongType,
            keyPath: "UIBackgroundModes[1]",
            found: "integer 7",
            expected: "a background mode name"
        ),
        BadValue(
            "a string for an array is a wrong type",
            .file(
                "Apps/x.plist",
                keys: """
                    <key>CFBundleIdentifier</key><string>com.example.x</string>
                    <key>ProgramArguments</key><string>/bin/true --flag</string>
                    """
            ),
            .wrongType,
            keyPath: "ProgramArguments",
            found: "string \"/bin/true --flag\"",
            expected: "a non-empty array of strings"
        ),
        BadValue(
            "a non-string environment value names the variable",
            .app(
                "api",
                identifier: "com.example.api",
                keys: "<key>EnvironmentVariables</key><dict><key>PORT</key><integer>8080</integer></dict>"
            ),
            .wrongType,
            keyPath: "EnvironmentVariables.PORT",
            found: "integer 8080",
            expected: "a string"
        ),
        BadValue(
            "a boolean given as an integer is a wrong type",
            .app("x", identifier: "com.example.x", keys: "<key>UIApplicationExitsOnSuspend</key><integer>1</integer>"),
            .wrongType,
            keyPath: "UIApplicationExitsOnSuspend",
            found: "integer 1",
            expected: "a boolean"
        ),
    ]

    /// Values missing, or present where another key forbids them.
    static let missingOrMisplaced: [BadValue] = [
        BadValue(
            "an environment variable name with '=' is rejected",
            .app(
                "api",
                identifier: "com.example.api",
                keys: "<key>EnvironmentVariables</key><dict><key>A=B</key><string>x</string></dict>"
            ),
            keyPath: "EnvironmentVariables.A=B",
            found: "the name \"A=B\"",
            expected: "without '='"
        ),
        BadValue(
            "a missing bundle identifier is rejected",
            .file("Apps/anonymous.plist", keys: "<key>ProgramArguments</key><array><string>/bin/true</string></array>"),
            .missingValue,
            keyPath: "CFBundleIdentifier",
            found: "nothing",
            expected: "a reverse-DNS bundle identifier"
        ),
        BadValue(
            "RunwayProtocol without ProgramArguments is rejected",
            .file(
                "Apps/embedded.plist",
                keys: """
                    <key>CFBundleIdentifier</key><string>com.example.embedded</string>
                    <key>RunwayProtocol</key><integer>1</integer>
                    """
            ),
            keyPath: "RunwayProtocol",
            found: "integer 1",
            expected: "RunwayProtocol only on a process app (one with ProgramArguments)"
        ),
        BadValue(
            "empty ProgramArguments is rejected",
            .file(
                "Apps/x.plist",
                keys: """
                    <key>CFBundleIdentifier</key><string>com.example.x</string>
                    <key>ProgramArguments</key><array/>
                    """
            ),
            keyPath: "ProgramArguments",
            found: "array of 0 elements",
            expected: "a non-empty array of strings"
        ),
        BadValue(
            "an empty program is rejected",
            .file(
                "Apps/x.plist",
                keys: """
                    <key>CFBundleIdentifier</key><string>com.example.x</string>
                    <key>ProgramArguments</key><array><string></string><string>-v</string></array>
                    """
            ),
            keyPath: "ProgramArguments[0]",
            found: "string \"\"",
            expected: "the first one non-empty"
        ),
        BadValue(
            "a relative working directory is rejected",
            .app("x", identifier: "com.example.x", keys: "<key>WorkingDirectory</key><string>srv</string>"),
            keyPath: "WorkingDirectory",
            found: "string \"srv\"",
            expected: "an absolute path"
        ),
        BadValue(
            "background modes on an app that exits on suspend are rejected",
            .app(
                "x",
                identifier: "com.example.x",
                keys: """
                    <key>UIApplicationExitsOnSuspend</key><true/>
                    <key>UIBackgroundModes</key><array><string>audio</string></array>
                    """
            ),
            keyPath: "UIBackgroundModes",
            found: "array of 1 element",
            expected: "no UIBackgroundModes on an app with UIApplicationExitsOnSuspend"
        ),
        BadValue(
            "the rss pressure source requires a ceiling",
            .runway("<key>MemoryPressureSource</key><string>rss</string>"),
            .missingValue,
            keyPath: "RSSCeilingBytes",
            found: "nothing",
            expected: "required when MemoryPressureSource is \"rss\""
        ),
    ]
}
