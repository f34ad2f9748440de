import Runway
import RunwayCore

// State restoration's daemon-only calls (Behaviour.md R1-R7), at `package` access; each hops to the loop thread.

extension RunwayScheduler {
    /// Installs the store's hooks (`StateRestorationHooks`) before any app launches.
    package func setStateRestoration(_ hooks: StateRestorationHooks) {
        _ = self.bridge.sync { $0.setStateRestoration(hooks) }
    }

    /// Tells the core of a stored state (R6); returns whether it is kept (false: discard it).
    package func preservedStateFound(app: AppID, recordedEnding: RunEnding?, sameBoot: Bool) -> Bool {
        self.bridge.sync { $0.preservedStateFound(app: app, recordedEnding: recordedEnding, sameBoot: sameBoot) }
            ?? false
    }

    /// The app's `RunwayStateVersion` as registered now (R5); nil when it has none or is unknown.
    package func stateVersion(of app: AppID) -> String? {
        self.bridge.sync { $0.stateVersion(of: app) } ?? nil
    }

    /// Discards the app's stored state (R7): returns once it is removed, or why it could not be.
    package func discardPreservedState(of app: AppID) async -> String? {
        await withCheckedContinuation { continuation in
            let asked = self.bridge.sync { driver in
                driver.discardPreservedState(app: app) { problem in continuation.resume(returning: problem) }
            }
            if asked == nil { continuation.resume(returning: "the scheduler has stopped") }
        }
    }
}
