import ArgumentParser
import RunwayControl
@_spi(Driver) import RunwayCore

/// One command the CLI sends for an app: its name on the command line, its protocol command, its help.
protocol AppVerb {
    static var name: String { get }
    static var protocolCommand: String { get }
    static var abstract: String { get }
}

/// What an app command prints after `APP: `: the state the command left the app in, once the daemon accepted it
/// (its messages are delivered afterwards). While a termination runs, which waits for the app to exit (or the
/// process apps' TerminationGrace), `terminating (REASON, from STATE); notRunning once it has exited`. A suspension
/// or resumption whose signal the kernel refused (P1) is followed by `(unconfirmed: ...)`.
func stateAfter(_ reply: ControlReply) -> String {
    var state = reply.state ?? "?"
    if reply.suspensionRefused == true {
        state += " (unconfirmed: the kernel refused the signal; see the daemon's log)"
    }
    guard let reason = reply.terminating else { return state }
    return "terminating (\(reason), from \(state)); notRunning once it has exited"
}

/// `runway VERB APP` for every lifecycle command and user action: sends it, prints the app's new state.
struct AppCommand<Verb: AppVerb>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Verb.name,
            abstract: Verb.abstract,
            discussion: """
                Sends `\(Verb.protocolCommand)` to the daemon and prints the state the command left the app in, once \
                the daemon accepted it (its lifecycle messages are delivered afterwards; watch them with `runway \
                events`). A termination waits for the app to exit: while it runs the command prints "terminating \
                (REASON, from STATE); notRunning once it has exited". A command that is illegal in the app's state \
                is refused with an error naming the app, its state and the command (exit 1); nothing changes.
                """
        )
    }

    @OptionGroup var target: AppTarget

    func run() throws {
        try self.target.send(Verb.protocolCommand, outcome: stateAfter)
    }
}

// Lifecycle commands (Behaviour.md section 2).
enum LaunchVerb: AppVerb {
    static let name = "launch"
    static let protocolCommand = Command.launch.rawValue
    static let abstract = "Launch an app: inactive during didFinishLaunching, then active and didBecomeActive (S1, L9)."
}
enum LaunchBackgroundVerb: AppVerb {
    static let name = "launch-background"
    static let protocolCommand = Command.launchInBackground.rawValue
    static let abstract = "Launch an app in the background: didFinishLaunching, didEnterBackground."
}
enum ForegroundVerb: AppVerb {
    static let name = "foreground"
    static let protocolCommand = Command.enterForeground.rawValue
    static let abstract = "Bring a background or suspended app to the foreground (enterForeground)."
}
enum BackgroundVerb: AppVerb {
    static let name = "background"
    static let protocolCommand = Command.enterBackground.rawValue
    static let abstract = "Send an active or inactive app to the background (enterBackground)."
}
enum ResignVerb: AppVerb {
    static let name = "resign"
    static let protocolCommand = Command.resignActive.rawValue
    static let abstract = "Make an active app inactive (resignActive)."
}
enum ActivateVerb: AppVerb {
    static let name = "activate"
    static let protocolCommand = Command.activate.rawValue
    static let abstract = "Make an inactive app active (activate); a no-op on an active app."
}
enum TerminateVerb: AppVerb {
    static let name = "terminate"
    static let protocolCommand = Command.terminate.rawValue
    static let abstract = "Terminate an app by the terminate rows (willTerminate, then SIGTERM/SIGKILL for processes)."
}

/// The lifecycle commands, in help order.
let lifecycleCommands: [any ParsableCommand.Type] = [
    AppCommand<LaunchVerb>.self, AppCommand<LaunchBackgroundVerb>.self, AppCommand<ForegroundVerb>.self,
    AppCommand<BackgroundVerb>.self, AppCommand<ResignVerb>.self, AppCommand<ActivateVerb>.self,
    AppCommand<TerminateVerb>.self,
]

/// Every app command, in help order: the lifecycle commands, then the user actions.
let appCommands: [any ParsableCommand.Type] = lifecycleCommands + userActionCommands

/// `runway extend APP SECONDS`: operator override of a running budget.
struct ExtendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Give a background app more time: its budget deadline moves SECONDS later.",
        discussion: """
            The expiration warning moves with the deadline if it has not fired yet; handlers already called are \
            not called again in this background period. Refused (exit 1, code noBudget) unless the app is in the \
            background with a budget.
            """
    )

    @OptionGroup var target: AppTarget
    @Argument(help: "Seconds to add, in (0, 86400].") var seconds: Double

    func validate() throws {
        guard self.seconds > 0, self.seconds <= 86_400 else {
            throw ValidationError("SECONDS must be in (0, 86400], got \(self.seconds)")
        }
    }

    func run() throws {
        try self.target.send("extend", seconds: self.seconds) {
            "\(stateAfter($0)), deadline extended by \(self.seconds) s"
        }
    }
}

/// `runway expire APP`: operator override: the budget runs out now.
struct ExpireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire",
        abstract: "End a background app's budget now.",
        discussion: """
            Expiration handlers not yet called are called, then the deadline rule applies at once: with no task \
            outstanding the app is suspended (or terminated if it exits on suspend), otherwise OverrunPolicy \
            decides. Refused (exit 1, code noBudget) unless the app is in the background with a budget.
            """
    )

    @OptionGroup var target: AppTarget

    func run() throws {
        try self.target.send("expire") { "budget expired; \(stateAfter($0))" }
    }
}

/// `runway begin-task APP NAME`: holds a background task on the app's behalf (for operators and demos).
struct BeginTaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin-task",
        abstract: "Begin a background task on an app's behalf; prints its id.",
        discussion: """
            The daemon holds the task until `runway end-task APP ID` (or until the app stops). Its expiration \
            warning is logged by the daemon; the app is not told. Refused (exit 1, code taskRefused) when the app \
            may not begin one: suspended, not running, terminating or out of budget (B1); refused with code \
            tooManyTasks or \
            nameTooLong, naming the limit, when the app already holds TaskLimitPerApp tasks (default 1000) or the \
            name is longer than TaskNameByteLimit bytes (default 256).
            """
    )

    @OptionGroup var target: AppTarget
    @Argument(help: "The task's name, shown by status.") var name: String

    func run() throws {
        try self.target.send("beginTask", task: self.name) {
            "began task#\($0.task.map(String.init) ?? "?") \"\(self.name)\""
        }
    }
}

/// `runway end-task APP ID`.
struct EndTaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-task",
        abstract: "End a background task begun with begin-task.",
        discussion: "Ending an app's last task in the background suspends it at once (B5). "
            + "Unknown, ended or another app's ids are refused (exit 1)."
    )

    @OptionGroup var target: AppTarget
    @Argument(help: "The task id begin-task printed (the number after task#).") var id: UInt64

    func run() throws {
        try self.target.send("endTask", taskID: self.id, outcome: stateAfter)
    }
}
