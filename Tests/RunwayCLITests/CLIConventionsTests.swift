import Foundation
import RunwayTestKit
import Testing

/// The CLI conventions that need no daemon: grouped help, `runway completion`, "did you mean" for a subcommand,
/// errors as JSON under `--json`; and a bad configuration reported by a client command.
@Suite struct CLIConventionsTests {
    /// Every group's header, and the commands listed under it (up to the next header).
    static func helpGroups(_ help: String) -> [String: [String]] {
        var groups: [String: [String]] = [:]
        var current: String?
        for line in help.components(separatedBy: "\n") {
            if line.hasSuffix("SUBCOMMANDS:") {
                current = String(line.dropLast(":".count))
                groups[current!] = []
            } else if let group = current, line.hasPrefix("  "), !line.hasPrefix("   ") {
                groups[group]?.append(String(line.dropFirst(2).prefix { $0 != " " }))
            } else if line.isEmpty || !line.hasPrefix(" ") {
                current = nil
            }
        }
        return groups
    }

    @Test func help_listsTheFourGroupsWithTheSimulatorsApart() throws {
        let result = try RunwayBinary.run("--help")
        #expect(result.status == 0, "\(result)")
        let groups = Self.helpGroups(result.stdout)
        #expect(
            Set(groups.keys) == [
                "DAEMON SUBCOMMANDS", "APPS SUBCOMMANDS", "SIMULATION SUBCOMMANDS", "TOOLS SUBCOMMANDS",
            ],
            "\(result)"
        )
        #expect(groups["DAEMON SUBCOMMANDS"] == ["run", "status", "events", "logs", "reload"], "\(result)")
        #expect(
            groups["APPS SUBCOMMANDS"] == [
                "launch", "launch-background", "foreground", "background", "resign", "activate", "terminate",
                "extend", "expire", "begin-task", "end-task", "notify", "memory-warning", "purge", "wake",
                "discard-state", "export-state", "import-state",
            ],
            "\(result)"
        )
        #expect(
            groups["SIMULATION SUBCOMMANDS"] == [
                "home", "summon", "open-switcher", "switcher-select-this", "switcher-select-other", "switcher-kill",
                "lock", "unlock", "offer-shutdown", "cancel-shutdown", "accept-shutdown", "alert", "alert-ignored",
                "alert-answered",
            ],
            "\(result)"
        )
        #expect(groups["TOOLS SUBCOMMANDS"] == ["validate", "bench", "demo", "completion"], "\(result)")
        let words = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("`runway completion bash|zsh|fish`"), "the overview names completion\n\(result)")
    }

    @Test func completion_bashScriptIsPrintedAndCompletesSubcommands() throws {
        let result = try RunwayBinary.run("completion", "bash")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("#!/bin/bash"), "\(result)")
        #expect(result.stdout.hasSuffix("\n"), "\(result)")
        for subcommand in ["status", "launch", "home", "completion", "launch-background", "switcher-kill"] {
            #expect(result.stdout.contains(subcommand), "the script completes \(subcommand)")
        }
        #expect(result.stdout.contains("complete ") && result.stdout.contains(" runway"), "registers for runway")
        // The same script as ArgumentParser's hidden option.
        let hidden = try RunwayBinary.run("--generate-completion-script", "bash")
        #expect(hidden.stdout.trimmingCharacters(in: .newlines) == result.stdout.trimmingCharacters(in: .newlines))
    }

    @Test func completion_zshAndFishToo_unknownShellIsUsage() throws {
        #expect(try RunwayBinary.run("completion", "zsh").stdout.contains("#compdef runway"))
        #expect(try RunwayBinary.run("completion", "fish").stdout.contains("complete -c 'runway'"))
        let tcsh = try RunwayBinary.run("completion", "tcsh")
        #expect(tcsh.status == 64, "\(tcsh)")
    }

    @Test func unknownSubcommand_suggestsTheCloseOnes() throws {
        let typo = try RunwayBinary.run("stauts")
        #expect(typo.status == 64, "\(typo)")
        #expect(typo.stderr.contains("error: unknown subcommand 'stauts'; did you mean 'status'?"), "\(typo)")
        let two = try RunwayBinary.run("lauch")
        #expect(two.stderr.contains("did you mean 'launch'?"), "\(two)")
        let far = try RunwayBinary.run("frobnicate")
        #expect(far.status == 64, "\(far)")
        #expect(far.stderr.contains("unknown subcommand 'frobnicate'"), "\(far)")
        #expect(!far.stderr.contains("did you mean"), "nothing is close to frobnicate\n\(far)")
        // Options and `help` still reach ArgumentParser.
        #expect(try RunwayBinary.run("help", "status").status == 0)
    }

    @Test func json_errorsAreOneJSONLineWithTheSameExitStatus() throws {
        let socket = "/tmp/runway-nobody-\(UInt32.random(in: 0...UInt32.max)).sock"
        for command in [["status"], ["events"], ["status", "--watch"]] {
            let result = try RunwayBinary.run(command + ["--json", "--socket", socket])
            #expect(result.status == 69, "\(result)")
            let error = try RunwayBinary.jsonError(result)
            #expect(error.code == "unreachable", "\(result)")
            #expect(error.message.contains("no daemon is listening on \(socket)"), "\(result)")
        }
        let usage = try RunwayBinary.run("status", "--interval", "0", "--json")
        #expect(usage.status == 64, "\(usage)")
        let error = try RunwayBinary.jsonError(usage)
        #expect(error.code == "usage" && error.message.contains("--interval must be within"), "\(usage)")
        let typo = try RunwayBinary.run("stauts", "--json")
        #expect(typo.status == 64, "\(typo)")
        let unknown = try RunwayBinary.jsonError(typo)
        #expect(unknown.code == "unknownSubcommand" && unknown.suggestions == ["status"], "\(typo)")
        // --json before the mistyped name: still the suggestion, as JSON (it was "Unknown option '--json'").
        let first = try RunwayBinary.run("--json", "statsu")
        #expect(first.status == 64, "\(first)")
        #expect(try RunwayBinary.jsonError(first).suggestions == ["status"], "\(first)")
        let bench = try RunwayBinary.run("bench", "--apps", "0", "--json")
        #expect(bench.status == 64, "\(bench)")
        #expect(try RunwayBinary.jsonError(bench).message.contains("--apps must be 1 to 100000"), "\(bench)")
        // Without --json the same failure stays text on standard error.
        let text = try RunwayBinary.run("status", "--socket", socket)
        #expect(text.status == 69 && text.stdout.isEmpty, "\(text)")
        #expect(text.stderr.hasPrefix("error: no daemon is listening on \(socket)"), "\(text)")
    }

    @Test func badRunwayPlistIsReportedByClientCommands() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>ControlSocket</key><string>relative.sock</string>"))
        let file = config.path + "/Runway.plist"
        for command in [["status"], ["launch", "com.example.alpha"], ["events"], ["reload"], ["lock"]] {
            let result = try RunwayBinary.run(command + ["--config", config.path])
            #expect(result.status == 78, "\(result)")
            #expect(result.stderr.contains("error: \(file): ControlSocket: expected an absolute path"), "\(result)")
            #expect(!result.stderr.contains("no daemon"), "\(result)")
        }
        let json = try RunwayBinary.run("status", "--config", config.path, "--json")
        #expect(json.status == 78, "\(json)")
        let error = try RunwayBinary.jsonError(json)
        #expect(error.code == "badConfig" && error.message.contains("\(file): ControlSocket"), "\(json)")
    }

    @Test func aConfigDirectoryGivenMustExist_appFilesAreNotTheClientsConcern() throws {
        let missing = "/tmp/runway-no-config-\(UInt32.random(in: 0...UInt32.max))"
        let result = try RunwayBinary.run("status", "--config", missing)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("error: \(missing): expected a configuration directory"), "\(result)")

        // A bad app file does not keep a client from its daemon: it reads Runway.plist only.
        let config = try TemporaryConfig()
        defer { config.remove() }
        let socket = "/tmp/runway-nobody-\(UInt32.random(in: 0...UInt32.max)).sock"
        try config.write("Runway.plist", plistXML("<key>ControlSocket</key><string>\(socket)</string>"))
        try config.write("Apps/bad.plist", "this is not a property list")
        #expect(try RunwayBinary.run("validate", "--config", config.path).status == 1, "the app file is bad")
        let status = try RunwayBinary.run("status", "--config", config.path)
        #expect(status.status == 69, "\(status)")
        #expect(status.stderr.contains("no daemon is listening on \(socket)"), "\(status)")
    }
}
