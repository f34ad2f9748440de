import ArgumentParser
import RunwayControl
import RunwayCore

/// The composite user actions of Behaviour.md section 4, as `runway <kebab-case name> APP`.
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
    static var abstract: String {
        "User action \(self.scenario): sends \(self.action.command) (Behaviour.md section 4)."
    }
}

/// `runway VERB [APP]` for the user actions that happen to the whole device (S7, S8, S10): with APP, that app only
/// (as `AppCommand`); without, device-wide: the daemon applies it to every app it concerns and the command prints
/// the apps it reached.
struct DeviceEventCommand<Verb: UserActionVerb>: ParsableCommand {
    static var configuration: CommandConfiguration {
        let opener = DeviceEvent(rawValue: Verb.action.rawValue)?.closes
        let reach: String =
            Verb.action == .acceptShutdown
            ? "every running app when a device-wide `offer-shutdown` is open (P7; none otherwise): running apps are "
                + "sent willTerminate, suspended ones end silently"
            : opener.map { opener in
                "the apps the last device-wide `\(opener.rawValue)` reached that are still in a state it applies to "
                    + "(an app that was in the background then, or was launched since, is left alone)"
            } ?? "every app in the foreground (active or inactive) for which it is legal; apps in the background "
                + "are left alone"
        let lock =
            Verb.action == .lock || Verb.action == .unlock
            ? " The daemon's LockBehavior (or the app's) decides what lock and unlock do: classic (willResignActive; "
                + "didBecomeActive) or modern (willResignActive, didEnterBackground: the app's budget runs and it is "
                + "suspended as any background app; unlock: willEnterForeground, didBecomeActive)." : ""
        return CommandConfiguration(
            commandName: Verb.name,
            abstract: Verb.abstract,
            discussion: "Without APP the event is device-wide, as on a phone: it reaches \(reach). It prints the "
                + "apps it reached (possibly none; that is not an error). With APP it is sent to that app only, "
                + "prints the app's state once accepted, and is refused (exit 1, nothing changes) when it is "
                + "illegal in the app's state." + lock
        )
    }

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The app's bundle identifier; without it the event is device-wide.")
    var app: String?

    func run() throws {
        if let app {
            let reply = try self.connection.request(ControlRequest(command: Verb.protocolCommand, app: app))
            print("\(app): \(stateAfter(reply))")
            return
        }
        let reply = try self.connection.request(ControlRequest(command: Verb.protocolCommand))
        let reached = reply.reached ?? []
        print("\(Verb.name): " + (reached.isEmpty ? "reached no app" : "reached " + reached.joined(separator: ", ")))
    }
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
enum SwitcherKillVerb: UserActionVerb {
    static let action = UserAction.switcherKill
    static let scenario = "S15 kill in the switcher"
    static let abstract =
        "User action S15 kill in the switcher: terminate (no message if suspended); refused in the foreground."
}
enum LockVerb: UserActionVerb {
    static let action = UserAction.lock
    static let scenario = "S7 screen lock"
    static let abstract = "User action S7 screen lock: resignActive (classic LockBehavior) or enterBackground (modern)."
}
enum UnlockVerb: UserActionVerb {
    static let action = UserAction.unlock
    static let scenario = "S7 unlock"
    static let abstract = "User action S7 unlock: activate (classic LockBehavior) or enterForeground (modern)."
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

/// The user action commands, in help order; the device events take an optional APP.
let userActionCommands: [any ParsableCommand.Type] = [
    AppCommand<HomeVerb>.self, AppCommand<SummonVerb>.self, AppCommand<OpenSwitcherVerb>.self,
    AppCommand<SwitcherSelectThisVerb>.self, AppCommand<SwitcherSelectOtherVerb>.self,
    AppCommand<SwitcherKillVerb>.self,
    DeviceEventCommand<LockVerb>.self, DeviceEventCommand<UnlockVerb>.self, DeviceEventCommand<OfferShutdownVerb>.self,
    DeviceEventCommand<CancelShutdownVerb>.self, DeviceEventCommand<AcceptShutdownVerb>.self,
    DeviceEventCommand<AlertVerb>.self, DeviceEventCommand<AlertIgnoredVerb>.self,
    DeviceEventCommand<AlertAnsweredVerb>.self,
]
