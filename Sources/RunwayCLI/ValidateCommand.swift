import ArgumentParser
import Foundation
import RunwayConfig
@_spi(Processes) import RunwayCore

/// `runway validate --config DIR`: loads and checks every file, prints a summary and the warnings.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a configuration directory and summarise it.",
        discussion: """
            Reads Runway.plist (optional) and every Apps/*.plist with Foundation's PropertyListDecoder (XML or \
            binary). A bad file is reported with its path, the key path, what was found and what was expected, \
            and the command exits 1. Unknown keys are warnings: they are printed and the command still exits 0 \
            (add --strict to fail on them). A process app that a daemon running as this command's user could not \
            contain (it would run as that user or as root, with root's or that user's group, or without a \
            cgroup of its own) is named in a warning too, and so are process apps that share a uid (they can \
            signal and read each other); --strict does not count these: set UserName (Docs/Security.md).
            """
    )

    @OptionGroup var options: ConfigOptions

    @Flag(help: "Exit 1 when there are warnings too.")
    var strict = false

    func run() throws {
        let configuration = try self.options.load()
        // Containment depends on the user the daemon runs as, taken to be this command's: a note, not a
        // configuration problem, so --strict does not fail on it.
        let daemonUID = UInt32(geteuid())
        let notes =
            configuration.containmentWarnings(daemonUID: daemonUID, daemonGID: UInt32(getegid()))
            + configuration.sharedUserWarnings(daemonUID: daemonUID)
        // In one write: a fleet of uncontained apps has a note per app.
        printError(lines: (configuration.warnings + notes).map { "warning: \($0)" })
        let settings = configuration.settings
        let count = configuration.apps.count
        print("\(configuration.directory): valid, \(count) app\(count == 1 ? "" : "s")")
        let notice =
            settings.overrunSignalLead > .zero ? " (SIGTERM \(settings.overrunSignalLead) before the deadline)" : ""
        print(
            "  budget \(settings.backgroundTimeBudget), warning lead \(settings.expirationWarningLead), "
                + "entry grace \(settings.backgroundEntryGrace), termination grace \(settings.terminationGrace), "
                + "overrun \(settings.overrunPolicy.rawValue)"
                + notice
                + ", lock \(settings.lockBehavior.rawValue), "
                + "suspension \(configuration.daemon.suspensionMechanism.rawValue)"
        )
        let width = configuration.apps.map(\.descriptor.id.bundleIdentifier.count).max() ?? 0
        for app in configuration.apps {
            let name = app.descriptor.id.bundleIdentifier
            let padding = String(repeating: " ", count: width - name.count)
            print("  \(name)\(padding)  \(describe(app.descriptor, settings: settings))")
        }
        if self.strict && !configuration.warnings.isEmpty {
            printError("error: --strict: \(configuration.warnings.count) warning(s)")
            throw ExitCode(1)
        }
    }
}

/// One line about an app: kind, budget, and the keys that change its lifecycle.
func describe(_ descriptor: AppDescriptor, settings: SchedulerSettings) -> String {
    var parts: [String] = []
    switch descriptor.kind {
    case .embedded: parts.append("embedded")
    case .process(let spec): parts.append(spec.speaksProtocol ? "process (RunwayProtocol 1)" : "process")
    }
    if !descriptor.backgroundModes.isEmpty {
        parts.append("background modes \(descriptor.backgroundModes.joined(separator: ","))")
    } else {
        parts.append("budget \(descriptor.backgroundTimeBudget ?? settings.backgroundTimeBudget)")
    }
    if descriptor.exitsOnSuspend {
        parts.append("exits on suspend (\((descriptor.exitsOnSuspendStyle ?? settings.exitsOnSuspendStyle).rawValue))")
    }
    if let lock = descriptor.lockBehavior, lock != settings.lockBehavior {
        parts.append("lock \(lock.rawValue)")
    }
    if descriptor.runAtLoad { parts.append("RunAtLoad (\(descriptor.launchCommand))") }
    if let keepAlive = descriptor.keepAlive {
        let conditions = keepAlive.conditions.map(describe).joined(separator: " or ")
        parts.append("KeepAlive \(conditions), ThrottleInterval \(keepAlive.throttleInterval)")
    }
    if let wake = descriptor.backgroundWakeBudget {
        parts.append("wake budget \(wake)")
    }
    return parts.joined(separator: ", ")
}

/// `always`, `SuccessfulExit=false`, `Crashed=true`: a KeepAlive condition as `validate` prints it.
func describe(_ condition: RestartPolicy.Condition) -> String {
    switch condition {
    case .always: return "always"
    case .successfulExit(let value): return "SuccessfulExit=\(value)"
    case .crashed(let value): return "Crashed=\(value)"
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes `lines` to standard error in one write; nothing when there are none.
func printError(lines: [String]) {
    guard !lines.isEmpty else { return }
    FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
}
