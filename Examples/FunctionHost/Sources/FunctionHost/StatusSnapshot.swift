@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore

/// `GET /status.json`: each function's state, pid, tasks and remaining budget, read from the scheduler at once.
struct StatusSnapshot: Codable, Sendable, Equatable {
    struct Function: Codable, Sendable, Equatable {
        var name: String
        /// `notRunning`, `inactive`, `active`, `background` or `suspended` (Behaviour.md section 2).
        var state: String
        /// True while a termination runs (the state is still the one it is leaving).
        var terminating: Bool
        var pid: Int32?
        /// Outstanding background tasks (the `waitUntil` work).
        var tasks: Int
        /// `backgroundTimeRemaining` (B3) in milliseconds; nil (unlimited) in the foreground.
        var budgetRemainingMs: Int64?
        var budgetSeconds: Double
        var exitsOnSuspend: Bool
        /// What the last request found (`Runway-Start`), nil before the first.
        var lastStart: String?
        /// True when a preserved state is stored for the next launch (R1).
        var hasPreservedState: Bool
        /// How the last run ended, as restoration sees it (`purged`, `systemTerminated`, ...), nil before one.
        var lastRunEnding: String?

        /// Every key is written, an absent value as `null` (the synthesized encoder would leave the key out).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.name, forKey: .name)
            try container.encode(self.state, forKey: .state)
            try container.encode(self.terminating, forKey: .terminating)
            try container.encode(self.pid, forKey: .pid)
            try container.encode(self.tasks, forKey: .tasks)
            try container.encode(self.budgetRemainingMs, forKey: .budgetRemainingMs)
            try container.encode(self.budgetSeconds, forKey: .budgetSeconds)
            try container.encode(self.exitsOnSuspend, forKey: .exitsOnSuspend)
            try container.encode(self.lastStart, forKey: .lastStart)
            try container.encode(self.hasPreservedState, forKey: .hasPreservedState)
            try container.encode(self.lastRunEnding, forKey: .lastRunEnding)
        }
    }

    var idleSeconds: Double
    var functions: [Function]
}

extension HostRuntime {
    /// Reads every function's status and process once; each slot's `lastStart` after.
    func snapshot() async -> StatusSnapshot {
        let statuses = Dictionary(
            self.scheduler.status(taskLimit: 0).map { ($0.app, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let processes = self.scheduler.processes()
        var functions: [StatusSnapshot.Function] = []
        for function in self.config.functions {
            let app = Self.appID(of: function.name)
            guard let status = statuses[app] else { continue }
            let running = status.state != .notRunning
            functions.append(
                StatusSnapshot.Function(
                    name: function.name,
                    state: status.state.rawValue,
                    terminating: status.terminating != nil,
                    pid: running ? processes[app]?.pid : nil,
                    tasks: status.taskCount,
                    budgetRemainingMs: status.budgetRemaining == .max
                        ? nil : status.budgetRemaining.nanoseconds / 1_000_000,
                    budgetSeconds: function.budgetSeconds,
                    exitsOnSuspend: function.exitsOnSuspend,
                    lastStart: await self.slots[function.name]?.lastStart?.rawValue,
                    hasPreservedState: status.hasPreservedState,
                    lastRunEnding: status.lastRunEnding?.rawValue
                )
            )
        }
        return StatusSnapshot(idleSeconds: self.config.idleSeconds, functions: functions)
    }
}
