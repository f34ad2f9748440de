import ArgumentParser
import RunwayConfig
import RunwayCore
import RunwayTestKit

/// `runway demo --config DIR`: plays the seed scenarios on the scheduler core with a simulated clock and
/// prints the timeline. No process is started; apps answer every message at once.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play scenarios S2, S3, S11, S12, S13 and S14 on the core with a simulated clock.",
        discussion: """
            Uses the settings and apps of the configuration directory. Apps are picked by what their plists
            declare: the first two plain apps (Home and summon, a task that ends in time, a memory purge; a task
            that ignores its expiration warning), an app with UIApplicationExitsOnSuspend, and an app with
            UIBackgroundModes. The clock is simulated, so the demo takes no real time and prints exact instants.
            Process apps are treated as speaking the Runway protocol, so their messages appear in the timeline;
            nothing is spawned. Exits 1 if an outcome differs from the spec (for example an app not suspended).
            """
    )

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let configuration: RunwayConfiguration
        do {
            configuration = try ConfigLoader.load(directory: self.options.config)
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        var demo = DemoScript(configuration: configuration)
        let report = demo.play()
        for line in report.lines { print(line) }
        for failure in report.failures { printError("demo check failed: \(failure)") }
        if !report.failures.isEmpty { throw ExitCode(1) }
    }
}
