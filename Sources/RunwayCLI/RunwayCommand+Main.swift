import ArgumentParser
import Foundation
import RunwayControl

extension RunwayCommand {
    /// The entry point: installs the daemon's task executor, then runs `mainAsync` in a task while the main thread
    /// serves the main queue. `runway run` needs the executor before the first task is enqueued anywhere
    /// (`ConcurrencyExecutor`), which an `async` entry point is too late for: its own task is the first.
    static func main() {
        if Self.subcommandWord(Array(CommandLine.arguments.dropFirst())) == "run" {
            ConcurrencyExecutor.useEventLoop()
        }
        Task {
            await Self.mainAsync()
            Foundation.exit(0)
        }
        dispatchMain()
    }

    /// ArgumentParser's `main`, plus "did you mean" for an unknown subcommand and errors as JSON under `--json`
    /// (`ErrorOutput`). Runs the chosen command on the calling task.
    static func mainAsync() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = Self.subcommandWord(arguments), let unknown = Self.unknownSubcommand(first) {
            ErrorOutput.report(code: "unknownSubcommand", message: unknown.message, suggestions: unknown.suggestions)
            if !ErrorOutput.json {
                printError("Usage: runway <subcommand>\n  See 'runway --help' for more information.")
            }
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let status = Self.exitCode(for: error)
            // Help, --version and completion requests keep ArgumentParser's output; an ExitCode thrown by a
            // command was printed by the command already (its message is empty).
            let message = Self.message(for: error)
            if ErrorOutput.json, status != .success, !message.isEmpty {
                ErrorOutput.report(code: "usage", message: message)
                Foundation.exit(status.rawValue)
            }
            Self.exit(withError: error)
        }
    }

    /// Every subcommand's name and aliases, in help order.
    static var subcommandNames: [String] {
        Self.configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases } + ["help"]
    }

    /// Flags that take no value and may come before the subcommand's name (`runway --json statsu`).
    static let leadingFlags: Set<String> = ["--json", "--help", "-h", "--version"]

    /// The word where the subcommand's name should be: the first argument after any `leadingFlags`; nil when there
    /// is none, or when another option comes first (ArgumentParser reports that one).
    static func subcommandWord(_ arguments: [String]) -> String? {
        arguments.first { !Self.leadingFlags.contains($0) }
    }

    /// Why `word`, the first argument, is not a subcommand, with the close ones; nil when it is one, or an option.
    static func unknownSubcommand(_ word: String) -> (message: String, suggestions: [String])? {
        guard !word.hasPrefix("-"), !Self.subcommandNames.contains(word) else { return nil }
        return ("unknown subcommand '\(word)'", Suggestions.closest(to: word, among: Self.subcommandNames))
    }
}
