// State restoration at the edge (Behaviour.md R1, R2, R7): the parts of a state a process app preserves, gathered
// per app and bounded by `StateRestorationByteLimit` as they grow; the stored blob read for a launch that restores
// and handed to the supervisor with `didFinishLaunching`. The core decides which launch restores and what becomes
// of a stored state when a run ends; the hooks the daemon gives (`StateRestorationHooks`) store and read.

@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayProtocol

/// Where preserved states are kept: the daemon's store. Each closure may be called on the loop thread; `save` and
/// `discard` must not block it (they run their work elsewhere and call `done` from any thread, with nil or why
/// they failed); `load` reads one blob (at most `byteLimit` bytes) and returns nil when there is none or it is not
/// intact.
package struct StateRestorationHooks: Sendable {
    package var byteLimit: Int
    /// Stores the app's state with its `RunwayStateVersion`.
    package var save: @Sendable (AppID, [UInt8], String?, @escaping @Sendable (String?) -> Void) -> Void
    package var discard: @Sendable (AppID, @escaping @Sendable (String?) -> Void) -> Void
    package var load: @Sendable (AppID) -> [UInt8]?

    package init(
        byteLimit: Int,
        save: @escaping @Sendable (AppID, [UInt8], String?, @escaping @Sendable (String?) -> Void) -> Void,
        discard: @escaping @Sendable (AppID, @escaping @Sendable (String?) -> Void) -> Void,
        load: @escaping @Sendable (AppID) -> [UInt8]?
    ) {
        self.byteLimit = byteLimit
        self.save = save
        self.discard = discard
        self.load = load
    }
}

/// The loop thread's restoration bookkeeping: parts being gathered, and states read for launches whose
/// `didFinishLaunching` is not delivered yet. Without the daemon's hooks (a scheduler made in code) the states are
/// kept here, in memory, for the scheduler's lifetime: nothing is persisted. Loop thread only. Holds at most
/// `byteLimit` bytes per app being gathered, one blob per app launching and, in memory, one per app.
final class StateRestoration {
    /// The limit without hooks: `StateRestorationByteLimit`'s default.
    static let defaultByteLimit = 1 << 20

    var hooks: StateRestorationHooks?
    /// Parts received of a state not yet complete, by app.
    var gathering: [AppID: [UInt8]] = [:]
    /// Apps whose state in progress was refused: their parts up to and including the final one are refused too, so
    /// that the tail of a refused state is never stored as a state of its own.
    var refusing: Set<AppID> = []
    /// Read for a launch that restores: how the preserving run ended and the blob.
    var launching: [AppID: (ending: RunEnding, state: [UInt8])] = [:]
    /// The stored states when there are no hooks.
    private var memory: [AppID: [UInt8]] = [:]

    var byteLimit: Int { self.hooks?.byteLimit ?? Self.defaultByteLimit }

    /// Stores `state`; `done` is called (any thread) with nil once it is stored, or why it was not.
    func save(_ app: AppID, _ state: [UInt8], version: String?, done: @escaping @Sendable (String?) -> Void) {
        guard let hooks = self.hooks else {
            self.memory[app] = state
            return done(nil)
        }
        hooks.save(app, state, version, done)
    }

    /// Removes the stored state; `done` as for `save`.
    func discard(_ app: AppID, done: @escaping @Sendable (String?) -> Void) {
        self.gathering[app] = nil
        self.refusing.remove(app)
        guard let hooks = self.hooks else {
            self.memory[app] = nil
            return done(nil)
        }
        hooks.discard(app, done)
    }

    /// A launch that restores reads its state now, before its transition is published and its
    /// `didFinishLaunching` delivered. Returns false when there is none to read, or it is not intact.
    func restoringLaunch(_ app: AppID, from ending: RunEnding) -> Bool {
        let state: [UInt8]? = if let hooks = self.hooks { hooks.load(app) } else { self.memory[app] }
        guard let state else { return false }
        self.launching[app] = (ending, state)
        return true
    }

    /// A transition was published: a run that ended drops what it was gathering (a torn state never replaces a
    /// good one) and anything not delivered, and without hooks drops a state the core discarded (R3, R4).
    func transitioned(_ event: TransitionEvent) {
        guard event.to == .notRunning else { return }
        // Each removal hashes the app's id: skipped where there is nothing to remove (the usual case).
        if !self.gathering.isEmpty { self.gathering[event.app] = nil }
        if !self.refusing.isEmpty { self.refusing.remove(event.app) }
        if !self.launching.isEmpty { self.launching[event.app] = nil }
        if self.hooks == nil, event.preservedStateKept == false, !self.memory.isEmpty { self.memory[event.app] = nil }
    }
}

extension LoopDriver {
    /// Installs the daemon's store (loop thread).
    package func setStateRestoration(_ hooks: StateRestorationHooks) {
        self.assertOnLoop()
        self.restoration.hooks = hooks
    }

    /// `preserveState` (R1): one part; the last one stores the whole state and is answered once it is durable.
    func statePartReceived(app: AppID, request: Int64, part: String, more: Bool, reply: @escaping (RunwayToApp) -> Void)
    {
        let limit = self.restoration.byteLimit
        let tooLarge = { (message: String) in
            reply(
                .error(
                    request: request,
                    code: "stateTooLarge",
                    message: "the state is more than StateRestorationByteLimit (\(limit) bytes); " + message
                )
            )
        }
        if self.restoration.refusing.contains(app) {
            // The rest of a refused state, up to its final part: refused too, never stored as a state of its own.
            if !more { self.restoration.refusing.remove(app) }
            tooLarge("this part belongs to the refused state and is dropped; the stored state stays as it was")
            return
        }
        let size = (self.restoration.gathering[app]?.count ?? 0) + part.utf8.count
        guard size <= limit else {
            // Counted as it grows: an app cannot make the daemon hold more than the limit.
            self.restoration.gathering[app] = nil
            if more { self.restoration.refusing.insert(app) }
            tooLarge(
                "the parts sent are dropped, and so are the ones that follow up to the final part; the stored "
                    + "state stays as it was"
            )
            return
        }
        self.restoration.gathering[app, default: []].append(contentsOf: part.utf8)
        guard !more else {
            reply(.taskEnded(request: request))
            return
        }
        let state = self.restoration.gathering.removeValue(forKey: app) ?? []
        let kept = self.runner.runReturning { core, _ in ((try? core.statePreserved(for: app)) ?? false, []) }
        guard kept else {
            // The run ended before its last part arrived, in a way that discards (R3).
            reply(.error(request: request, code: "notRunning", message: "\(app) is not running; the state is not kept"))
            return
        }
        let loop = self.loop
        // Called only on the loop thread (inside `execute`), where the channel it writes to lives.
        nonisolated(unsafe) let answer = reply
        let version = self.runner.core.descriptor(of: app)?.stateVersion
        self.restoration.save(app, state, version: version) { problem in
            // The reply is written on the loop thread, where the channel lives.
            _ = loop.execute {
                if let problem {
                    answer(.error(request: request, code: "stateNotStored", message: problem))
                } else {
                    answer(.taskEnded(request: request))
                }
            }
        }
    }

    /// `discardState` (R7): answered once the stored state is removed.
    func stateDiscardRequested(app: AppID, request: Int64, reply: @escaping (RunwayToApp) -> Void) {
        self.runner.run { core, _ in
            try? core.stateDiscarded(for: app)
            return []
        }
        let loop = self.loop
        // Called only on the loop thread (inside `execute`), where the channel it writes to lives.
        nonisolated(unsafe) let answer = reply
        self.restoration.discard(app) { problem in
            _ = loop.execute {
                answer(
                    problem.map { .error(request: request, code: "stateNotDiscarded", message: $0) }
                        ?? .taskEnded(request: request)
                )
            }
        }
    }
}

extension LoopDriver {
    /// The daemon found a stored state for `app` at its start or imported one (R6); returns whether it is kept
    /// (`Scheduler.preservedStateFound`). Loop thread.
    package func preservedStateFound(app: AppID, recordedEnding: RunEnding?, sameBoot: Bool) -> Bool {
        self.assertOnLoop()
        return self.runner.runReturning { core, _ in
            ((try? core.preservedStateFound(for: app, recordedEnding: recordedEnding, sameBoot: sameBoot)) ?? false, [])
        }
    }

    /// `app`'s `RunwayStateVersion` as registered now (R5); nil when it has none or is unknown. Loop thread.
    package func stateVersion(of app: AppID) -> String? {
        self.assertOnLoop()
        return self.runner.core.descriptor(of: app)?.stateVersion
    }

    /// Discards `app`'s stored state (R5, R7): the core forgets it, a state being gathered is dropped, and the
    /// store removes it; `done` is called (any thread) once it is gone. Loop thread.
    package func discardPreservedState(app: AppID, done: @escaping @Sendable (String?) -> Void) {
        self.assertOnLoop()
        self.runner.run { core, _ in
            try? core.stateDiscarded(for: app)
            return []
        }
        self.restoration.discard(app, done: done)
    }
}
