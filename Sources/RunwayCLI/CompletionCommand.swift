import ArgumentParser

/// `runway completion bash|zsh|fish`: prints the shell completion script (ArgumentParser's generator, the same
/// script as the hidden `runway --generate-completion-script SHELL`).
struct CompletionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            Completes subcommands, options and option values. Install it once, for example:

              bash: runway completion bash > ~/.local/share/bash-completion/completions/runway
              zsh:  runway completion zsh > ~/.zfunc/_runway  (with `fpath+=~/.zfunc` before compinit)
              fish: runway completion fish > ~/.config/fish/completions/runway.fish

            or for the current bash session only: source <(runway completion bash).
            """
    )

    /// The shells ArgumentParser writes scripts for.
    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
    }

    @Argument(help: "The shell: bash, zsh or fish.")
    var shell: Shell

    func run() {
        // CompletionShell(rawValue:) accepts exactly these three names.
        guard let shell = CompletionShell(rawValue: self.shell.rawValue) else { return }
        let script = RunwayCommand.completionScript(for: shell)
        print(script, terminator: script.hasSuffix("\n") ? "" : "\n")
    }
}
