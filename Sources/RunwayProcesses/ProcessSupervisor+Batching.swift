@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one batch of actions makes redundant, so that a batch of N costs about one: per-app work the supervisor defers
/// to the end of the core's action list or caches for one loop turn. Loop thread only.
struct SupervisorBatchState {
    /// `oom_score_adj` values not written yet, by app, each for the child that was running when the core asked;
    /// written by `flushOOMScores()` when the runner has drained the actions of one event.
    var pendingOOMScores: [AppID: (child: ChildProcess, value: Int)] = [:]
    /// This process's environment, read once per loop turn (`environmentBase(now:)`).
    var environment = TurnCached<LaunchEnvironment>()
    /// Apps launched whose main process's identity (`/proc/PID/stat`'s start time) is not read yet, each with the
    /// child it is for: read on the next loop turn or before the state file is written.
    var pendingIdentities: [AppID: ChildProcess] = [:]
    /// Apps sent SIGTERM in this loop turn whose other processes get theirs on the next (`terminateTheRest`): the
    /// child that was running, and the processes already tracked then (which were signalled with the group).
    var pendingTerminations: [AppID: (child: ChildProcess, signalled: Set<ProcessIdentity>)] = [:]
    /// The `oom_score_adj` each app's current child has, as far as this process made it: inherited from this
    /// process at the launch, then the last value written.
    var knownOOMScores: [AppID: (child: ObjectIdentifier, value: Int)] = [:]
    /// This process's own `oom_score_adj`, read once per loop turn (`childInheritedOOMScore`).
    var ownOOMScore = TurnCached<Int?>()
    /// The programs looked up in a loop turn, by `ProgramArguments[0]` (`executable(_:now:)`).
    var executables = TurnCached<[String: String?]>()
    /// `RLIMIT_NOFILE`, read once per loop turn (`descriptorLimit(now:)`).
    var descriptorLimit = TurnCached<Int>()
    /// Children spawned in the loop turn `turn` (`spawnCounted`).
    var spawns: (turn: Instant, count: Int)?
    /// A SIGCHLD or an app's exit came since the last look for an exited orphan (`zombieLookWanted`).
    var zombieLookPending = false
    /// Looks for an exited orphan made in the loop turn `turn` (`sweepZombiesIfAny`).
    var zombieLooks: (turn: Instant, count: Int)?
}

extension ProcessSupervisor {
    /// `.setOOMScoreAdjust` when the runner drains: only the last value the core gave an app in the action list
    /// of one event is written. Going Home from the foreground, an app passes through the
    /// background (500) to suspended (1,000) in one list: one write, of 1,000, instead of two.
    func deferOOMScoreAdjust(_ value: Int, for app: AppID) {
        guard self.options.adjustsOOMScore, let child = self.apps[app]?.child, !child.hasExited else { return }
        self.batch.pendingOOMScores[app] = (child, value)
    }

    /// Writes the pending `oom_score_adj` values: each to the child it was meant for, if that child is still the
    /// app's and has not exited (its pid is not reaped, so it names that process). Called by `LoopDriver` when
    /// the runner has drained an event's actions.
    package func flushOOMScores() {
        guard !self.batch.pendingOOMScores.isEmpty else { return }
        let pending = self.batch.pendingOOMScores
        self.batch.pendingOOMScores = [:]
        for (app, entry) in pending where self.apps[app]?.child === entry.child && !entry.child.hasExited {
            let identity = ObjectIdentifier(entry.child)
            if let known = self.batch.knownOOMScores[app], known.child == identity, known.value == entry.value {
                continue
            }
            self.scanCounts.oomScoreWrites += 1
            // Only a write that took is remembered: a failed one (EACCES, a full /proc) is tried again at the
            // app's next value instead of being skipped as already done.
            if entry.child.writeOOMScore(entry.value) == 0 {
                self.batch.knownOOMScores[app] = (identity, entry.value)
            } else {
                self.batch.knownOOMScores[app] = nil
            }
        }
    }

    /// A child was just started for `app`: it has this process's `oom_score_adj` (inherited through the clone),
    /// so the launch's first value is not written when it is the same: with the default 0, a
    /// batch of launches writes nothing. Nothing is known when this process's value cannot be read.
    func childInheritedOOMScore(_ app: AppID, _ child: ChildProcess) {
        self.batch.knownOOMScores[app] = nil
        guard self.options.adjustsOOMScore else { return }
        let own = self.batch.ownOOMScore.value(at: self.loop.turnNow) { ProcFS.oomScoreAdjust(getpid()) }
        if let own { self.batch.knownOOMScores[app] = (ObjectIdentifier(child), own) }
    }

    /// This process's environment, read once per loop turn: a batch of N launches parses
    /// `environ` once, not N times. A change to the environment shows at the next turn's launches.
    func environmentBase(now: Instant) -> LaunchEnvironment {
        self.batch.environment.value(at: now) {
            self.scanCounts.environmentReads += 1
            return LaunchEnvironment(Self.currentEnvironment())
        }
    }

    /// The program `name` names (`ProgramLocator.executable`), looked for once per loop turn: a batch of N launches
    /// of one program makes one `access(2)` walk, not N. A program removed within the turn fails at the exec, which
    /// names the step.
    func executable(_ name: String, now: Instant) -> String? {
        var found = self.batch.executables.value(at: now) { [:] }
        if let known = found[name] { return known }
        self.scanCounts.programLookups += 1
        let path = ProgramLocator(options: self.options).executable(name)
        found[name] = .some(path)
        self.batch.executables.keep(found, at: now)
        return path
    }

    /// `RLIMIT_NOFILE`'s soft limit, read once per loop turn (`descriptorLimit()`): an operator's `prlimit` shows at
    /// the next turn's launches.
    func descriptorLimit(now: Instant) -> Int {
        self.batch.descriptorLimit.value(at: now) {
            self.scanCounts.descriptorLimitReads += 1
            return Self.descriptorLimit()
        }
    }

    /// Counts a spawn in this loop turn, for `scanCounts.spawnsInOneTurnMost`.
    func spawnCounted() {
        let now = self.loop.turnNow
        let count = self.batch.spawns.map { $0.turn == now ? $0.count + 1 : 1 } ?? 1
        self.batch.spawns = (now, count)
        self.scanCounts.spawnsInOneTurnMost = max(self.scanCounts.spawnsInOneTurnMost, count)
    }
}
