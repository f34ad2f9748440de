import ArgumentParser
import RunwayBuildInfo
import RunwayConfig
@_spi(Driver) import RunwayCore

/// The `runway` command-line tool.
@main
struct RunwayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runway",
        abstract: "A background-task scheduler with budgets: the iOS app lifecycle for server programs.",
        discussion: """
            Apps move between notRunning, inactive, active, background and suspended. In the background an app \
            may ask for extra time (background tasks) under a budget; the scheduler warns through expiration \
            handlers and suspends or terminates the app when time runs out. See README.md and Docs/Commands.md.

            The daemon: `runway run --config DIR` in one terminal; `runway status`, `runway events`, the app \
            commands and `runway reload` in another. They find the control socket through the first of: --socket \
            PATH; --config DIR (ControlSocket of DIR/Runway.plist); RUNWAY_SOCKET=PATH; RUNWAY_CONFIG=DIR \
            (ControlSocket of DIR/Runway.plist); ./Config when it exists; the default (/run/runway/control.sock for \
            root, else $XDG_RUNTIME_DIR/runway/control.sock, else /tmp/runway-<uid>/control.sock). A flag beats a \
            variable, an empty variable is unset, and `runway run` reads neither. When no daemon answers, the error \
            names the path tried and what chose it.

            Exit codes: 0 success; 1 a check failed or the daemon refused the request (bad config, demo outcome, \
            bench, unknown app, illegal command, a launched program that could not be started); 64 bad usage \
            (including a socket path too long to be an address, and a relative RUNWAY_SOCKET); 69 nothing \
            listens on the control socket (no daemon); 75 a daemon accepted no connection within 30 s, or \
            answered the connection but its reply failed (closed without replying, timed out, unreadable, or \
            dropped a slow reader): try \
            again; 77 permission denied on the control socket, or the process listening on it runs as neither this \
            user nor root (checked with SO_PEERCRED before anything is sent, whatever chose the path); 78 the \
            configuration a command read to find the socket (--config, RUNWAY_CONFIG, ./Config) is bad (the error \
            names the file and key). `runway status APP` exits 10 notRunning, \
            11 inactive, 12 active, 13 background, 14 suspended, 15 terminating.

            With --json, an error is one JSON line on standard output, {"error":{"code":...,"message":...},\
            "ok":false,"v":1}, with the same exit status. A mistyped subcommand or app is answered with the close \
            ones ("did you mean"). Shell completion: `runway completion bash|zsh|fish`; the manual page: `make man`.

            `runway --version` prints the version, the commit the binary was built from (`unknown` for a build \
            without git, `-dirty` for uncommitted changes) and the build type: `runway 0.2.0-dev (3f2a9c81d0e4, \
            release)`.
            """,
        version: RunwayBuildInfo.current.versionLine,
        groupedSubcommands: [
            // The daemon and what watches or reloads it.
            CommandGroup(
                name: "Daemon",
                subcommands: [
                    RunCommand.self, StatusCommand.self, EventsCommand.self, LogsCommand.self, ReloadCommand.self,
                ]
            ),
            // What an operator does to one app: lifecycle commands, budget overrides, tasks, notifications, memory.
            CommandGroup(
                name: "Apps",
                subcommands: lifecycleCommands + [
                    ExtendCommand.self, ExpireCommand.self, BeginTaskCommand.self, EndTaskCommand.self,
                    NotifyCommand.self, MemoryWarningCommand.self, PurgeCommand.self, WakeCommand.self,
                    DiscardStateCommand.self, ExportStateCommand.self, ImportStateCommand.self,
                ]
            ),
            // The iOS user actions and device events (Behaviour.md section 4).
            CommandGroup(name: "Simulation", subcommands: userActionCommands),
            CommandGroup(
                name: "Tools",
                subcommands: [
                    ValidateCommand.self, BenchCommand.self, DemoCommand.self, CompletionCommand.self,
                    // Hidden: the child processes of `runway bench --processes`.
                    BenchChildCommand.self,
                ]
            ),
        ]
    )
}

/// Options shared by the subcommands that read a configuration directory.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The configuration directory: Runway.plist and Apps/*.plist, relative to the current directory.",
            valueName: "dir"
        )
    )
    var config: String = "Config"

    /// Loads the configuration directory; on a bad file prints `error: …` to standard error and exits 1.
    /// Runs on the calling thread; reads the files synchronously.
    func load() throws -> RunwayConfiguration {
        do {
            return try ConfigLoader.load(directory: self.config)
        } catch {
            ErrorOutput.report(code: "badConfig", message: "\(error)")
            throw ExitCode(1)
        }
    }
}
