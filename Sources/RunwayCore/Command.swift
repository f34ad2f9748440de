/// What the host or an operator asks of one app (Behaviour.md section 1, table of section 2).
public enum Command: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// notRunning -> inactive: didFinishLaunching; active, and didBecomeActive, when it returns (L9).
    case launch
    /// notRunning -> background: didFinishLaunching, didEnterBackground (`launch --background`).
    case launchInBackground
    /// inactive -> active: didBecomeActive. A no-op on an active app (L1).
    case activate
    /// active -> inactive: willResignActive.
    case resignActive
    /// active or inactive -> background: (willResignActive,) didEnterBackground.
    case enterBackground
    /// background or suspended -> active: willEnterForeground, didBecomeActive.
    case enterForeground
    /// Any running state -> notRunning, by the `terminate` rows of the table.
    case terminate

    /// The command's name (`launch`, `enterBackground`, ...), as in logs and event lines.
    public var description: String { self.rawValue }
}

/// The composite user actions of Behaviour.md section 4, each a sequence of `Command`s on one app.
public enum UserAction: String, Hashable, Sendable, CaseIterable {
    /// S2: active -> background.
    case home
    /// S3: background or suspended -> active.
    case summon
    /// S4: active -> inactive (double-click Home shows the app switcher).
    case openSwitcher
    /// S5: inactive -> active (tap this app in the switcher).
    case switcherSelectThis
    /// S6: inactive -> background (choose another app in the switcher).
    case switcherSelectOther
    /// S7: active -> inactive.
    case lock
    /// S7: inactive -> active.
    case unlock
    /// S8: active -> inactive (hold power: the shutdown offer).
    case offerShutdown
    /// S8: inactive -> active (the offer is cancelled).
    case cancelShutdown
    /// S9: inactive -> notRunning (shutdown accepted).
    case acceptShutdown
    /// S10: active -> inactive (an alert appears).
    case alert
    /// S10: inactive -> active (the alert is ignored).
    case alertIgnored
    /// S10: inactive -> background (the alert is answered: another app takes the screen).
    case alertAnswered
    /// S15: background or suspended -> notRunning (the user kills the app in the switcher). Refused for an app in
    /// the foreground, which the switcher does not list.
    case switcherKill

    /// The command this action is, for the app that receives it.
    public var command: Command {
        switch self {
        case .home: return .enterBackground
        case .summon: return .enterForeground
        case .openSwitcher, .lock, .offerShutdown, .alert: return .resignActive
        case .switcherSelectThis, .unlock, .cancelShutdown, .alertIgnored: return .activate
        case .switcherSelectOther, .alertAnswered: return .enterBackground
        case .acceptShutdown, .switcherKill: return .terminate
        }
    }
}
