import RunwayTestKit
import Testing

@testable import RunwayCLI

/// Where a client command looks for the daemon: a flag beats a variable, a variable beats a default, and an exact
/// socket beats a configuration directory at each level. Real configuration directories; `./Config` is a stand-in.
@Suite struct ControlSocketChoiceTests {
    static let defaultPath = "/run/runway/control.sock"

    /// Configuration directories: `flag` and `variable` set ControlSocket, `bare` does not.
    final class Directories {
        let flag: TemporaryConfig
        let variable: TemporaryConfig
        let bare: TemporaryConfig

        init() throws {
            self.flag = try TemporaryConfig()
            self.variable = try TemporaryConfig()
            self.bare = try TemporaryConfig()
            try self.flag.write("Runway.plist", plistXML("<key>ControlSocket</key><string>/srv/flag.sock</string>"))
            try self.variable.write(
                "Runway.plist",
                plistXML("<key>ControlSocket</key><string>/srv/variable-config.sock</string>")
            )
            try self.bare.write("Runway.plist", plistXML(""))
        }

        func remove() {
            for directory in [self.flag, self.variable, self.bare] { directory.remove() }
        }
    }

    static func choose(
        socket: String? = nil,
        config: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ControlSocketChoice {
        try ControlSocketChoice.choose(
            socketFlag: socket,
            configFlag: config,
            environment: environment,
            exists: { _ in false },
            defaultPath: Self.defaultPath
        )
    }

    @Test func aFlagBeatsAVariableAndAVariableBeatsTheDefault() throws {
        let directories = try Directories()
        defer { directories.remove() }
        let both = ["RUNWAY_SOCKET": "/srv/variable.sock", "RUNWAY_CONFIG": directories.variable.path]
        // --socket over everything; --config over both variables.
        let socket = try Self.choose(socket: "/srv/given.sock", config: directories.flag.path, environment: both)
        #expect(socket.path == "/srv/given.sock" && socket.source == .socketFlag)
        let config = try Self.choose(config: directories.flag.path, environment: both)
        #expect(config.path == "/srv/flag.sock" && config.source == .configFlag(directories.flag.path))
        // RUNWAY_SOCKET over RUNWAY_CONFIG; RUNWAY_CONFIG over the default.
        #expect(try Self.choose(environment: both).source == .socketVariable)
        let variable = try Self.choose(environment: ["RUNWAY_CONFIG": directories.variable.path])
        #expect(variable.path == "/srv/variable-config.sock")
        #expect(variable.source == .configVariable(directories.variable.path))
        // An empty variable is unset.
        let none = try Self.choose(environment: ["RUNWAY_SOCKET": "", "RUNWAY_CONFIG": ""])
        #expect(none.path == Self.defaultPath && none.source == .builtIn && none.isDefault)
    }

    @Test func theOriginNamesWhatChoseThePath() throws {
        let directories = try Directories()
        defer { directories.remove() }
        let variable = directories.variable.path
        #expect(try Self.choose(socket: "/x.sock").origin == "given with --socket")
        #expect(try Self.choose(environment: ["RUNWAY_SOCKET": "/x.sock"]).origin == "from RUNWAY_SOCKET")
        #expect(
            try Self.choose(environment: ["RUNWAY_CONFIG": variable]).origin
                == "ControlSocket of \(variable)/Runway.plist (RUNWAY_CONFIG=\(variable))"
        )
        #expect(
            try Self.choose(config: directories.bare.path).origin
                == "the default socket for this user: \(directories.bare.path)/Runway.plist (--config) sets no "
                + "other ControlSocket"
        )
        #expect(
            try Self.choose().origin
                == "the default socket for this user: no --socket, --config, RUNWAY_SOCKET or RUNWAY_CONFIG was "
                + "given and ./Config does not exist"
        )
    }

    @Test func aBadDirectoryIsAnErrorNamingTheVariable_neverAFallBack() throws {
        let missing = "/nonexistent/runway-config"
        do {
            _ = try Self.choose(environment: ["RUNWAY_CONFIG": missing])
            Issue.record("a RUNWAY_CONFIG that does not exist was accepted")
        } catch let error as ControlSocketChoice.BadConfig {
            #expect(error.message.hasPrefix("\(missing): expected a configuration directory"), "\(error.message)")
            #expect(error.message.hasSuffix("(RUNWAY_CONFIG=\(missing))"), "\(error.message)")
        }
        // A bad --config is an error even with a RUNWAY_SOCKET that would do.
        #expect(throws: ControlSocketChoice.BadConfig.self) {
            try Self.choose(config: missing, environment: ["RUNWAY_SOCKET": "/srv/variable.sock"])
        }
    }
}
