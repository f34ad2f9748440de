import ArgumentParser
import RunwayControl
import RunwayCore

/// One command the CLI sends for an app: its name on the command line, its protocol command, its help.
protocol AppVerb {
    static var name: String { get }
    static var protocolCommand: String { get }
    static var abstract: String { get }
}

/// `runway VERB APP` for every lifecycle command and user action: sends it, prints the app's new state.
struct AppCommand<Verb: AppVerb>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Verb.name,
            abstract: Verb.abstract,
            discussion: """
                Sends `\(Verb.protocolCommand)` to the daemon and prints the app's state once the command is accepted \
                (its lifecycle messages are delivered afterwards; watch them with `runway events`). A command that \
                is illegal in the app's state is refused with an error naming the app, its state and the command \
                (exit 1); nothing changes.
                """
        )
    }

    @OptionGroup var target: AppTarget

    func run() throws {
        try self.target.send(Verb.protocolCommand) { $0.state ?? "?" }
    }
}

// Lifecycle commands (SPEC section 2).
enum LaunchVerb: AppVerb {
    static let name = "launch"
    static let protocolCommand = Command.launch.rawValue
    static let abstract = "Launch an app: didFinishLaunching, didBecomeActive (S1)."
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

/// The composite user actions of SPEC section 4, as `runway <kebab-case name> APP`.
protocol UserActionVerb: AppVerb {
    static var action: UserAction { get }
    static var scenario: String { get }
}

extension UserActionVerb {
    static var name: String {
        self.action.rawValue.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
    }
    static var protocolCommand: String { self.action.rawValue }
    static var abstract: String { "User action \(self.scenario): sends \(self.action.command) (SPEC section 4)." }
}

enum HomeVerb: UserActionVerb {
    static let action = UserAction.home
    static let scenario = "S2 Home button"
}
enum SummonVerb: UserActionVerb {
    static let action = UserAction.summon
    static let scenario = "S3 summon"
}
enum OpenSwitcherVerb: UserActionVerb {
    static let action = UserAction.openSwitcher
    static let scenario = "S4 double-click Home"
}
enum SwitcherSelectThisVerb: UserActionVerb {
    static let action = UserAction.switcherSelectThis
    static let scenario = "S5 tap this app in the switcher"
}
enum SwitcherSelectOtherVerb: UserActionVerb {
    static let action = UserAction.switcherSelectOther
    static let scenario = "S6 choose another app in the switcher"
}
enum LockVerb: UserActionVerb {
    static let action = UserAction.lock
    static let scenario = "S7 screen lock"
}
enum UnlockVerb: UserActionVerb {
    static let action = UserAction.unlock
    static let scenario = "S7 unlock"
}
enum OfferShutdownVerb: UserActionVerb {
    static let action = UserAction.offerShutdown
    static let scenario = "S8 hold power (shutdown offered)"
}
enum CancelShutdownVerb: UserActionVerb {
    static let action = UserAction.cancelShutdown
    static let scenario = "S8 shutdown cancelled"
}
enum AcceptShutdownVerb: UserActionVerb {
    static let action = UserAction.acceptShutdown
    static let scenario = "S9 shutdown accepted"
}
enum AlertVerb: UserActionVerb {
    static let action = UserAction.alert
    static let scenario = "S10 alert appears"
}
enum AlertIgnoredVerb: UserActionVerb {
    static let action = UserAction.alertIgnored
    static let scenario = "S10 alert ignored"
}
enum AlertAnsweredVerb: UserActionVerb {
    static let action = UserAction.alertAnswered
    static let scenario = "S10 alert answered"
}

/// Every app command, in help order.
let appCommands: [any ParsableCommand.Type] = [
    AppCommand<LaunchVerb>.self, AppCommand<LaunchBackgroundVerb>.self, AppCommand<ForegroundVerb>.self,
    AppCommand<BackgroundVerb>.self, AppCommand<ResignVerb>.self, AppCommand<ActivateVerb>.self,
    AppCommand<TerminateVerb>.self,
    AppCommand<HomeVerb>.self, AppCommand<SummonVerb>.self, AppCommand<OpenSwitcherVerb>.self,
    AppCommand<SwitcherSelectThisVerb>.self, AppCommand<SwitcherSelectOtherVerb>.self, AppCommand<LockVerb>.self,
    AppCommand<UnlockVerb>.self, AppCommand<OfferShutdownVerb>.self, AppCommand<CancelShutdownVerb>.self,
    AppCommand<AcceptShutdownVerb>.self, AppCommand<AlertVerb>.self, AppCommand<AlertIgnoredVerb>.self,
    AppCommand<AlertAnsweredVerb>.self,
]

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
            "\($0.state ?? "?"), deadline extended by \(self.seconds) s"
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
        try self.target.send("expire") { "\($0.state ?? "?"), budget expired" }
    }
}

/// `runway begin-task APP NAME`: holds a background task on the app's behalf (for operators and demos).
struct BeginTaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin-task",
        abstract: "Begin a background task on an app's behalf; prints its id.",
        discussion: """
            The daemon holds the task until `runway end-task APP ID` (or until the app stops). Its expiration \
            warning shows in the daemon's timeline. Refused (exit 1, code taskRefused) when the app may not begin \
            one: suspended, not running, terminating or out of budget (B1); refused with code tooManyTasks or \
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
        try self.target.send("endTask", taskID: self.id) { $0.state ?? "?" }
    }
}
