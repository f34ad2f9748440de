import ArgumentParser
import RunwayDemo

/// `runway demo --config DIR`: plays the seed scenarios on the scheduler core with a simulated clock and
/// prints the timeline. No process is started; apps answer every message at once.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play scenarios S2, S3, S11, S12, S13, S14, S15 (and L7, P4) on the core with a simulated clock.",
        discussion: """
            Uses the settings and apps of the configuration directory. Apps are picked by what their plists \
            declare: the first three plain apps (Home and summon, a task that ends in time, a memory purge; a task \
            that ignores its expiration warning; a kill in the switcher while it holds a task), an app with \
            UIApplicationExitsOnSuspend, and an app with UIBackgroundModes; at the end the scheduler shuts down. \
            The clock is simulated, so the demo takes no real time and prints exact instants (seconds since the \
            demo began). No process is started: "spawned", "SIGTERM" and "SIGKILL" mark what the daemon would do, \
            and process apps are treated as speaking the Runway protocol so that their messages appear. Exits 1 if \
            an outcome differs from the spec.
            """
    )

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let configuration = try self.options.load()
        var demo = DemoScript(configuration: configuration)
        let report = demo.play()
        for line in report.lines { print(line) }
        for failure in report.failures { printError("demo check failed: \(failure)") }
        if !report.failures.isEmpty { throw ExitCode(1) }
    }
}
