@_spi(Driver) import RunwayCore

extension SimulatedDriver {
    /// How an app answers a message.
    public enum Reply: Hashable, Sendable {
        /// Returns at the same instant it was delivered.
        case immediately
        /// Returns this long after delivery.
        case after(TimeSpan)
        /// Never returns (a hung app).
        case never
    }

    /// How a process app reacts to SIGTERM.
    public enum TerminateBehavior: Hashable, Sendable {
        /// Exits with status 0 this long after SIGTERM.
        case exits(after: TimeSpan)
        /// Ignores SIGTERM; only SIGKILL ends it.
        case ignores
    }

    /// An operation scripted to happen at an instant.
    public enum Operation: Hashable, Sendable {
        case command(Command, AppID)
        /// A user action of Behaviour.md section 4 (`home`, `switcherKill`, ...).
        case userAction(UserAction, AppID)
        case beginTask(String, AppID)
        case endTask(BackgroundTaskID, AppID)
        /// Ends the app's oldest outstanding task begun through this driver.
        case endOldestTask(AppID)
        case processExit(AppID, ProcessExit)
        @_spi(Driver) case acknowledge(AppID, MessageToken)
        case post(name: String, payload: String, AppID)
        case memoryWarning
        case purge
        case shutdown
    }

    /// One line of the log: what happened at which instant.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        public enum What: Hashable, Sendable {
            @_spi(Driver) case action(Action)
            case refused(String)
            case taskBegan(AppID, BackgroundTaskID, String)
            case taskRefused(AppID, TaskRefusal)
            case taskEnded(AppID, BackgroundTaskID)
            case returned(AppID, Message)
        }

        public var at: Instant
        public var what: What

        public var description: String {
            switch self.what {
            case .action(let action): return "\(self.at) \(action)"
            case .refused(let error): return "\(self.at) refused: \(error)"
            case .taskBegan(let app, let id, let name): return "\(self.at) \(app) began \(id) \"\(name)\""
            case .taskRefused(let app, let refusal): return "\(self.at) \(app) task refused: \(refusal)"
            case .taskEnded(let app, let id): return "\(self.at) \(app) ended \(id)"
            case .returned(let app, let message): return "\(self.at) \(app) returned from \(message)"
            }
        }
    }
}
