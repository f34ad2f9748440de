import ArgumentParser
import Foundation
import Logging
import RunwayConfig
import RunwayControl

/// `runway run --config DIR [--scenario FILE]`: the daemon in the foreground.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon in the foreground (with a live timeline of transitions on a terminal).",
        discussion: """
            Loads and validates the whole configuration directory, registers every app in notRunning, serves the \
            control socket (ControlSocket in Runway.plist, mode 0600, see Docs/ControlProtocol.md) and, when \
            standard output is a terminal, prints one line per transition (the timeline; --timeline always prints \
            it into a pipe or file too, --timeline never nowhere). Drive it from another terminal with `runway \
            status`, `runway launch APP`, ...

            Streams: standard error is the daemon's log (--log-level, --log-format), where each transition is one \
            line at info; standard output has the daemon's own events (start, reloads, RunAtLoad, stop, scenario \
            steps) and, on a terminal, the timeline. Under systemd neither is a terminal, so the journal gets each \
            transition once, from the log (LogLevel info).

            Without ControlSocket the socket is /run/runway/control.sock for root, else \
            $XDG_RUNTIME_DIR/runway/control.sock, else /tmp/runway-<uid>/control.sock (the CLI finds it there \
            too). Its directory is created with mode 0700 and must be a directory owned by this user with mode \
            0700, not a symbolic link. Only a stale socket at the path is replaced; any other file there is an \
            error and is left alone.

            Signals: SIGINT or SIGTERM stop the daemon: every app is terminated by the terminate rows of the spec, \
            in parallel, and the daemon exits when all are gone. SIGHUP reloads the configuration like \
            `runway reload`: the whole directory is validated first and nothing is applied if a file is bad; new \
            apps are registered at once, other changes need a restart (running apps keep their state).

            LoopRealtimePriority in Runway.plist runs the loop thread at SCHED_FIFO (it needs CAP_SYS_NICE; when \
            refused the daemon warns and runs at the normal policy; Docs/Configuration.md).

            --scenario FILE plays a scripted list of timed actions (Docs/Scenarios.md; Config/Scenarios has one \
            per seed scenario) and stops the daemon when it is done.

            Before serving, the daemon ends (SIGKILL) every process that a daemon killed on the same control \
            socket left behind, found in its process state file (--state-directory; Docs/Security.md).

            Operations (Docs/Operations.md, Docs/Deployment.md): --metrics-address or MetricsAddress serves \
            Prometheus text at GET /metrics, and the probes GET /healthz (the loop turns) and GET /readyz (started, \
            not stopping) (off by default; a port alone is 127.0.0.1); --log-level and \
            --log-format (LogLevel, LogFormat) set the daemon's own log on standard error, text or one JSON object \
            per line. Under systemd (Type=notify) the daemon sends READY=1 to $NOTIFY_SOCKET once it serves and \
            STOPPING=1 when it begins to stop, never waiting for the socket (a full queue is retried for 5 s), and \
            WATCHDOG=1 every half $WATCHDOG_USEC from its loop when WatchdogSec is set.

            Exit codes: 0 stopped cleanly (and every scenario step held); 1 bad configuration or scenario, or a \
            scenario step failed; 69 the control socket or the metrics address could not be set up (another daemon \
            serves it, another kind of file is at its path, its default directory is not private, or the address \
            cannot be bound).
            """
    )

    @OptionGroup var options: ConfigOptions

    @Option(help: ArgumentHelp("Play this scenario file, then stop.", valueName: "file"))
    var scenario: String?

    @Option(help: ArgumentHelp("Serve the control socket here instead of ControlSocket.", valueName: "path"))
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Keep the process state file, the run history and the apps' preserved states here (overrides "
                + "StateDirectory; default "
                + "/run/runway for root, else $XDG_RUNTIME_DIR/runway or /tmp/runway-UID).",
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    @Flag(help: "Log the scheduler's decisions (info level) to standard error; same as --log-level info.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Lowest level logged to standard error: trace, debug, info, notice, warning, error or critical "
                + "(default LogLevel in Runway.plist, else notice; transitions are logged at info).",
            valueName: "level"
        )
    )
    var logLevel: DaemonLogLevel?

    @Option(
        help: ArgumentHelp(
            "Log lines as text or json, one object per line with time, level, label, message and metadata "
                + "(default LogFormat in Runway.plist, else text).",
            valueName: "format"
        )
    )
    var logFormat: DaemonLogFormat?

    @Option(
        help: ArgumentHelp(
            "Print the timeline of transitions on standard output: auto (only when it is a terminal), always or "
                + "never. The log at info has every transition either way.",
            valueName: "when"
        )
    )
    var timeline: TimelineMode = .auto

    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at GET /metrics on HOST:PORT, [IPV6]:PORT or PORT (127.0.0.1), instead of "
                + "MetricsAddress in Runway.plist; port 0 takes any free port. Off by default.",
            valueName: "address"
        ),
        transform: MetricsAddress.argument
    )
    var metricsAddress: MetricsAddress?

    /// Where this boot's id is read, which tells a reboot from a killed daemon (R6); tests simulate a reboot with
    /// a file of their own.
    @Option(help: .hidden)
    var bootIDFile = "/proc/sys/kernel/random/boot_id"

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let status = await Daemon.run(
            DaemonOptions(
                config: self.options.config,
                scenario: self.scenario,
                socket: self.socket,
                logLevel: self.logLevel.flatMap { Logger.Level(rawValue: $0.rawValue) } ?? (self.verbose ? .info : nil),
                stateDirectory: self.stateDirectory,
                logFormat: self.logFormat,
                metricsAddress: self.metricsAddress,
                bootstrapMetrics: true,
                bootIDFile: self.bootIDFile,
                timeline: self.timeline
            )
        )
        if status != 0 { throw ExitCode(status) }
    }
}

/// `runway reload [--dry-run]`.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Reload the daemon's configuration (like SIGHUP).",
        discussion: """
            The daemon validates its whole configuration directory first and applies nothing if any file is bad \
            (the error names the file, key and expected value; exit 1). New apps are registered at once; changed \
            settings, changed or removed apps need a restart and keep their running values. --dry-run prints \
            both lists without applying anything.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print what would change, apply nothing.")
    var dryRun = false

    func run() throws {
        let reply = try self.connection.request(ControlRequest(command: "reload", dryRun: self.dryRun))
        guard let report = reply.reload else { return }
        print(report.applied ? "reloaded:" : "dry run (nothing applied):")
        print("  applies live: \(report.live.isEmpty ? "nothing" : "")")
        for change in report.live { print("    \(change)") }
        print("  needs a restart: \(report.needsRestart.isEmpty ? "nothing" : "")")
        for change in report.needsRestart { print("    \(change)") }
    }
}
