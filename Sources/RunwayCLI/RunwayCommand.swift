import ArgumentParser

/// The `runway` command-line tool.
@main
struct RunwayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runway",
        abstract: "A background-task scheduler with budgets: the iOS app lifecycle for server programs.",
        discussion: """
            Apps move between notRunning, inactive, active, background and suspended. In the background an app \
            may ask for extra time (background tasks) under a budget; the scheduler warns through expiration \
            handlers and suspends or terminates the app when time runs out. See README.md and Docs/.

            Exit codes: 0 success, 1 a check failed (bad config, demo outcome, bench), 64 bad usage.
            """,
        subcommands: [ValidateCommand.self, DemoCommand.self, BenchCommand.self]
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
}
