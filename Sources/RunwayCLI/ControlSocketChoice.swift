import Foundation
import RunwayConfig

/// Where a command that talks to the daemon looks for its control socket, and why there (Decision 280). The first
/// of these that is given wins; a flag beats a variable, a variable beats a default, and an exact socket beats a
/// configuration directory at each level:
///
/// 1. `--socket PATH`;
/// 2. `--config DIR`: `ControlSocket` of `DIR/Runway.plist`;
/// 3. `RUNWAY_SOCKET=PATH`;
/// 4. `RUNWAY_CONFIG=DIR`: `ControlSocket` of `DIR/Runway.plist`;
/// 5. `./Config`, when it exists: `ControlSocket` of `Config/Runway.plist`;
/// 6. the default path for this user (`DaemonSettings.defaultControlSocketPath`).
///
/// A configuration directory without `ControlSocket` gives the default path too. An empty variable counts as
/// unset. Only `Runway.plist` is read, and a directory named by `--config` or `RUNWAY_CONFIG` must exist: a bad
/// one is an error naming the file and key (exit 78), never a silent fall back to another socket. Whatever chose
/// the path, the client's SO_PEERCRED check applies to it (`ControlClient`; Docs/Security.md): a variable only
/// saves typing the flag. `runway run` reads neither variable.
struct ControlSocketChoice: Equatable {
    /// What chose the path.
    enum Source: Equatable {
        case socketFlag
        case configFlag(String)
        case socketVariable
        case configVariable(String)
        case configDefault(String)
        case builtIn
    }

    /// The variable that names the socket.
    static let socketVariable = "RUNWAY_SOCKET"
    /// The variable that names the configuration directory whose `ControlSocket` is used.
    static let configVariable = "RUNWAY_CONFIG"
    /// The configuration directory read when nothing else is given, relative to the current directory.
    static let defaultConfig = "Config"

    var path: String
    var source: Source
    /// True when `path` is the default for this user (given by no setting, or by a `Runway.plist` without
    /// `ControlSocket`).
    var isDefault: Bool

    /// The configuration directory this choice read, if any (`export-state --offline` reads its apps too).
    var configDirectory: String? {
        switch self.source {
        case .configFlag(let directory), .configVariable(let directory), .configDefault(let directory):
            return directory
        case .socketFlag, .socketVariable, .builtIn:
            return nil
        }
    }

    /// Chooses the socket as the type's comment says. Pure apart from what `controlSocket` and `exists` read.
    ///
    /// - Parameters:
    ///   - socketFlag: `--socket`, if given.
    ///   - configFlag: `--config`, if given.
    ///   - environment: The process's environment (`RUNWAY_SOCKET`, `RUNWAY_CONFIG`).
    ///   - exists: Whether a path exists (for `./Config`).
    ///   - controlSocket: `ControlSocket` of `DIR/Runway.plist`, or the default path when it has none.
    ///   - defaultPath: The default path for this user.
    /// - Throws: `ControlSocketChoice.BadConfig` with the loader's error and the source that named the directory.
    static func choose(
        socketFlag: String?,
        configFlag: String?,
        environment: [String: String],
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) },
        controlSocket: (String) throws(ConfigError) -> String = Self.controlSocket(in:),
        defaultPath: String = DaemonSettings.defaultControlSocketPath()
    ) throws(BadConfig) -> ControlSocketChoice {
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func read(_ directory: String, _ source: Source) throws(BadConfig) -> ControlSocketChoice {
            do throws(ConfigError) {
                let path = try controlSocket(directory)
                return ControlSocketChoice(path: path, source: source, isDefault: path == defaultPath)
            } catch {
                throw BadConfig(error: error, source: source)
            }
        }
        if let socketFlag { return ControlSocketChoice(path: socketFlag, source: .socketFlag, isDefault: false) }
        if let configFlag { return try read(configFlag, .configFlag(configFlag)) }
        if let socket = nonEmpty(Self.socketVariable) {
            return ControlSocketChoice(path: socket, source: .socketVariable, isDefault: false)
        }
        if let config = nonEmpty(Self.configVariable) { return try read(config, .configVariable(config)) }
        if exists(Self.defaultConfig) { return try read(Self.defaultConfig, .configDefault(Self.defaultConfig)) }
        return ControlSocketChoice(path: defaultPath, source: .builtIn, isDefault: true)
    }

    /// `ControlSocket` of `directory/Runway.plist` (only that file is read), or the default path when it has none.
    static func controlSocket(in directory: String) throws(ConfigError) -> String {
        try ConfigLoader.loadDaemonSettings(directory: directory).controlSocketPath
    }

    /// A bad `Runway.plist` in the directory a source named.
    struct BadConfig: Error {
        var error: ConfigError
        var source: Source

        /// The loader's error (file, key, found, expected), then which setting named the directory.
        var message: String {
            switch self.source {
            case .configVariable(let directory):
                return "\(self.error) (\(ControlSocketChoice.configVariable)=\(directory))"
            case .configDefault: return "\(self.error) (./\(ControlSocketChoice.defaultConfig), read by default)"
            default: return "\(self.error)"
            }
        }
    }

    /// Where the path came from, for an error: `given with --socket`, `RUNWAY_SOCKET`, `ControlSocket of
    /// DIR/Runway.plist (--config)`, `the default for this user (...)`.
    var origin: String {
        let fallback = "the default socket for this user"
        switch self.source {
        case .socketFlag: return "given with --socket"
        case .socketVariable: return "from \(Self.socketVariable)"
        case .configFlag(let directory): return self.read(directory, by: "--config")
        case .configVariable(let directory): return self.read(directory, by: "\(Self.configVariable)=\(directory)")
        case .configDefault(let directory): return self.read(directory, by: "./\(directory), read by default")
        case .builtIn:
            return "\(fallback): no --socket, --config, \(Self.socketVariable) or \(Self.configVariable) was given "
                + "and ./\(Self.defaultConfig) does not exist"
        }
    }

    private func read(_ directory: String, by setting: String) -> String {
        let file = directory + "/Runway.plist"
        return self.isDefault
            ? "the default socket for this user: \(file) (\(setting)) sets no other ControlSocket"
            : "ControlSocket of \(file) (\(setting))"
    }

    /// What to try when no daemon answers at `path`.
    static let hint =
        "A daemon serving another socket: --socket PATH or \(socketVariable)=PATH, or --config DIR or "
        + "\(configVariable)=DIR to use its ControlSocket"
}
