import Testing

/// The top-level command: help and bad usage.
@Suite struct UsageTests {
    @Test func usage_helpExitsZeroAndListsSubcommands() throws {
        let result = try RunwayBinary.run("--help")
        #expect(result.status == 0, "\(result)")
        // Grouped (DAEMON SUBCOMMANDS:, APPS SUBCOMMANDS:, ...): everything after the first group header.
        let subcommands = result.stdout.components(separatedBy: "SUBCOMMANDS:").dropFirst().joined()
        #expect(subcommands.contains("validate"), "\(result)")
        #expect(subcommands.contains("demo"), "\(result)")
        for daemonCommand in [
            "run", "status", "events", "reload", "extend", "expire", "home", "lock", "launch", "notify",
            "memory-warning", "purge", "wake",
        ] {
            #expect(subcommands.contains("  \(daemonCommand) "), "missing \(daemonCommand)\n\(result)")
        }
    }

    @Test func K2_commandsWithoutADaemonExit69NamingTheSocket() throws {
        let socket = "/tmp/runway-nobody-\(UInt32.random(in: 0...UInt32.max)).sock"
        let result = try RunwayBinary.run("status", "--socket", socket)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("no daemon is listening on \(socket)"), "\(result)")
    }

    @Test func usage_unknownSubcommandExitsNonZero() throws {
        let result = try RunwayBinary.run("frobnicate")
        // 64 is ArgumentParser's usage code (EX_USAGE); any failure will do here.
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("frobnicate"), "the error should name what was not understood\n\(result)")
    }
}
