import Foundation
import Runway
@_spi(Driver) import RunwayCore

/// The daemon's live timeline on standard output: one line per transition, scenario step and daemon event,
/// prefixed with the scheduler's clock (seconds since the daemon started) and the app, in columns.
///
/// The transition and message lines are printed only when `showsTransitions` (`--timeline`, TimelineMode.swift):
/// the daemon's log has each of them too, at info. Notes (daemon events, scenario steps) are printed always: the
/// log does not have them.
///
/// Thread-safe: each line is queued whole on `DaemonOutputStream.standardOutput`, which never blocks the caller.
struct Timeline: Sendable {
    let scheduler: RunwayScheduler
    /// Width of the app column (the longest bundle identifier).
    let appWidth: Int
    /// Whether transitions and messages are printed.
    let showsTransitions: Bool

    /// `t=1.000s   com.example.sync      active -> background  [command(enterBackground)]  {...}`
    func transition(_ event: TransitionEvent) {
        guard self.showsTransitions else { return }
        self.write(event.at, event.app, TimelineText.transition(event))
    }

    /// A message the scheduler sent to an app, for the messages a transition line does not show (`shows`).
    func message(_ app: AppID, _ message: Message, at: Instant) {
        guard self.showsTransitions, Self.shows(message) else { return }
        self.write(at, app, "sent \(message)")
    }

    /// The messages a transition line does not show: an expiration warning to a process app about a task it began
    /// itself (B4), a memory warning, a notification, a background wake-up (W1).
    static func shows(_ message: Message) -> Bool {
        switch message {
        case .backgroundTaskWillExpire, .didReceiveMemoryWarning, .notification, .backgroundWake: true
        default: false
        }
    }

    /// A line about an app (or the daemon when nil), at the scheduler's current time.
    func note(_ app: AppID?, _ text: String) {
        self.write(self.scheduler.now(), app, text)
    }

    private func write(_ at: Instant, _ app: AppID?, _ text: String) {
        let name = app?.bundleIdentifier ?? ""
        let wall = WallClock(scheduler: self.scheduler).timeOfDay(at: at)
        let line = "\(wall) \(at.description.padded(to: 10)) \(name.padded(to: self.appWidth))  \(text)\n"
        DaemonOutputStream.standardOutput.write(line)
    }
}

/// Timeline texts shared by the daemon and `runway demo`'s simulated timeline.
package enum TimelineText {
    /// `active -> background  [command(enterBackground)]  (home)  {willResignActive, didEnterBackground}`: the user
    /// action asked, in parentheses, when there was one (L8).
    package static func transition(_ event: TransitionEvent) -> String {
        let messages = event.messages.isEmpty ? "" : "  {\(event.messages.map(\.description).joined(separator: ", "))}"
        let exit = event.exit.map { "  \($0)" } ?? ""
        let asked = event.userAction.map { "  (\($0.rawValue))" } ?? ""
        let restored = event.restoration.map { "  restored (last run: \($0))" } ?? ""
        return "\(event.from) -> \(event.to)  [\(event.cause)]\(asked)\(messages)\(exit)\(self.restart(event))"
            + restored
    }

    /// `  restart #3 at t=4.000s (in 0.800s)`, with `crash-looping` once the app is (KeepAlive); empty otherwise.
    static func restart(_ event: TransitionEvent) -> String {
        guard let restart = event.restart else { return "" }
        let loop = restart.crashLooping ? ", crash-looping" : ""
        return "  restart #\(restart.attempt) at \(restart.at) (in \(restart.at - event.at)\(loop))"
    }
}

extension String {
    func padded(to width: Int) -> String {
        self.count >= width ? self : self + String(repeating: " ", count: width - self.count)
    }
}
