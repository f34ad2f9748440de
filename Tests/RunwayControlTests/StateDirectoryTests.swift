import Testing

@testable import RunwayControl

/// Where the daemon keeps its state file by default, and one file per control socket.
@Suite("Daemon state directory")
struct StateDirectoryTests {
    @Test("/run/runway for root, $XDG_RUNTIME_DIR/runway for others, else /tmp/runway-UID")
    func defaultStateDirectory() {
        #expect(StateDirectory.defaultPath(uid: 0, environment: ["XDG_RUNTIME_DIR": "/run/user/0"]) == "/run/runway")
        #expect(
            StateDirectory.defaultPath(uid: 1000, environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"])
                == "/run/user/1000/runway"
        )
        #expect(
            StateDirectory.defaultPath(uid: 1000, environment: ["XDG_RUNTIME_DIR": "relative"]) == "/tmp/runway-1000"
        )
        #expect(StateDirectory.defaultPath(uid: 1000, environment: [:]) == "/tmp/runway-1000")
    }

    @Test("one state file per control socket, named after it")
    func stateFilePerSocket() {
        let one = StateDirectory.stateFile(directory: "/run/runway", socket: "/run/runway/control.sock")
        let two = StateDirectory.stateFile(directory: "/run/runway", socket: "/run/runway/control_sock")
        #expect(one.hasPrefix("/run/runway/run_runway_control.sock-") && one.hasSuffix(".processes"))
        #expect(one != two)
        #expect(one == StateDirectory.stateFile(directory: "/run/runway", socket: "/run/runway/control.sock"))
        let long = StateDirectory.stateFile(directory: "/d", socket: "/" + String(repeating: "x", count: 300))
        #expect(long.split(separator: "/").last!.utf8.count < 255)
    }
}
