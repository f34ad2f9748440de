import Foundation
import Logging
import Runway
@_spi(Driver) import RunwayCore

/// When `runway run` prints its timeline of transitions on standard output (`--timeline`).
///
/// One stream per purpose: the daemon's log (standard error) has every transition at info, for journald and log
/// aggregators; the timeline is the same transitions laid out for a person at a terminal. Under a service manager
/// both streams usually go to the same journal, where the timeline would show each transition a second time in
/// another format, so by default it is printed only when standard output is a terminal
/// (Docs/Decisions/0282-the-timeline-is-printed-only-on-a-terminal-unless-asked.md).
package enum TimelineMode: String, Sendable, CaseIterable {
    /// Only when standard output is a terminal (`isatty`).
    case auto
    /// Always, also into a pipe or a file.
    case always
    /// Never, also on a terminal.
    case never

    /// Whether transitions are printed, given whether standard output is a terminal.
    package func showsTransitions(standardOutputIsTerminal: Bool) -> Bool {
        switch self {
        case .auto: standardOutputIsTerminal
        case .always: true
        case .never: false
        }
    }
}

extension Daemon {
    /// The timeline, and the log's line for each message the timeline shows beside the transitions (a transition
    /// is logged by the scheduler itself): the log has every line of the timeline but its notes, whichever mode.
    static func observe(_ scheduler: RunwayScheduler, timeline: Timeline, logger: Logger) {
        scheduler.observeTransitions { event in timeline.transition(event) }
        scheduler.observeMessages { app, message, at in
            timeline.message(app, message, at: at)
            if Timeline.shows(message) {
                logger.info("message sent", metadata: ["app": "\(app)", "message": "\(message)"])
            }
        }
    }
}
