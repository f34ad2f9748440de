import Foundation
import Runway
import RunwayConfig
import RunwayCore
import RunwayProcesses

/// The daemon's state restoration (Behaviour.md R1-R7): the store in the StateDirectory, its writer off the loop
/// thread, the hooks the loop uses, and what a run's end does to a stored state. Created once by `runway run` after
/// the apps are registered and before any launches. Thread-safe: its parts are.
package final class DaemonRestoration: Sendable {
    package let store: PreservedStateStore
    let writer: PreservedStateWriter
    /// `RunwayStateVersion` of each configured app, as at the start.
    private let versions: [AppID: String]

    /// - Parameters:
    ///   - directory: The store's directory (`StateDirectory.preservedStateDirectory`).
    ///   - byteLimit: `StateRestorationByteLimit`.
    ///   - writeInterval: `StateRestorationWriteInterval`: the least time between two writes of one app's file.
    ///   - bootIDPath: Where this boot's id is read (`/proc/sys/kernel/random/boot_id`; tests give another file).
    ///   - apps: The configured apps.
    ///   - report: Told of a file ignored and of a change that failed.
    package init(
        directory: String,
        byteLimit: Int,
        writeInterval: Duration = DaemonSettings.defaultStateRestorationWriteInterval,
        bootIDPath: String = "/proc/sys/kernel/random/boot_id",
        apps: [AppDescriptor],
        report: @escaping @Sendable (String) -> Void
    ) {
        self.store = PreservedStateStore(
            directory: directory,
            byteLimit: byteLimit,
            bootID: BootID.read(path: bootIDPath),
            report: report
        )
        self.writer = PreservedStateWriter(store: self.store, interval: writeInterval, report: report)
        var versions: [AppID: String] = [:]
        for app in apps { versions[app.id] = app.stateVersion }
        self.versions = versions
    }

    /// Gives the loop its hooks, tells the core of every app's stored state (R5, R6), and records how each run
    /// that leaves a stored state ends (R3). Reads one file per app, at the start.
    package func start(on scheduler: RunwayScheduler, report: @Sendable (String) -> Void) {
        let writer = self.writer
        let store = self.store
        scheduler.setStateRestoration(
            StateRestorationHooks(
                byteLimit: store.byteLimit,
                save: { app, state, version, done in
                    writer.save(app: app.bundleIdentifier, state: state, versionKey: version) { error in
                        done(error?.description)
                    }
                },
                discard: { app, done in writer.discard(app: app.bundleIdentifier) { done($0?.description) } },
                load: { app in store.load(app: app.bundleIdentifier)?.state }
            )
        )
        for app in scheduler.status().map(\.app) {
            self.found(app, version: self.versions[app], on: scheduler, report: report)
        }
        scheduler.observeTransitions { event in
            if event.from == .notRunning, event.restoration != nil {
                // The run using the state goes on: a daemon killed meanwhile must not read the last run's ending.
                writer.recordEnding(app: event.app.bundleIdentifier, ending: nil)
                return
            }
            guard event.to == .notRunning, let kept = event.preservedStateKept, let ending = event.runEnding else {
                return
            }
            if kept {
                writer.recordEnding(app: event.app.bundleIdentifier, ending: ending)
            } else {
                writer.discard(app: event.app.bundleIdentifier)
            }
        }
    }

    /// Apps a reload registered: told of their stored states as the apps at the start were (R5, R6), so that
    /// their launches restore and their runs' endings are recorded. Call before they launch.
    package func appsAdded(_ apps: [AppDescriptor], on scheduler: RunwayScheduler, report: (String) -> Void) {
        for app in apps { self.found(app.id, version: app.stateVersion, on: scheduler, report: report) }
    }

    /// Reads `app`'s stored state, if any: discarded when of another `RunwayStateVersion` than `version` (R5) or
    /// when its recorded ending does not restore; otherwise the core is told of it (R6).
    private func found(_ app: AppID, version: String?, on scheduler: RunwayScheduler, report: (String) -> Void) {
        guard let found = self.store.load(app: app.bundleIdentifier) else { return }
        guard found.versionKey == version else {
            // R5: the app's configuration says its state is of another version.
            report(
                "preserved state of \(app) discarded: preserved under RunwayStateVersion "
                    + "\(found.versionKey?.debugDescription ?? "(none)"), the app now has "
                    + "\(version?.debugDescription ?? "(none)")"
            )
            self.writer.discard(app: app.bundleIdentifier)
            return
        }
        let sameBoot = found.bootID != nil && found.bootID == self.store.bootID
        if !scheduler.preservedStateFound(app: app, recordedEnding: found.ending, sameBoot: sameBoot) {
            self.writer.discard(app: app.bundleIdentifier)
        }
    }

    /// The daemon's restoration for `configuration`, started on `scheduler`; problems are printed as warnings.
    static func start(
        _ configuration: RunwayConfiguration,
        _ stateDirectory: String,
        _ socket: String,
        _ options: DaemonOptions,
        on scheduler: RunwayScheduler
    ) -> DaemonRestoration {
        let restoration = DaemonRestoration(
            directory: StateDirectory.preservedStateDirectory(directory: stateDirectory, socket: socket),
            byteLimit: configuration.daemon.stateRestorationByteLimit,
            writeInterval: configuration.daemon.stateRestorationWriteInterval,
            bootIDPath: options.bootIDFile,
            apps: configuration.apps.map(\.descriptor),
            report: { printError("warning: \($0)") }
        )
        restoration.start(on: scheduler) { printError("warning: \($0)") }
        return restoration
    }

    /// `runway discard-state APP` (R7): returns once the stored state is removed, or why it could not be.
    package func discard(app: AppID, on scheduler: RunwayScheduler) async -> String? {
        await scheduler.discardPreservedState(of: app)
    }

    /// `runway export-state APP`: the stored state as a self-describing byte string, read off the loop thread.
    package func exportState(app: AppID) async throws(PreservedStateError) -> [UInt8] {
        let result: Result<[UInt8], PreservedStateError> = await self.offLoop { store in
            do throws(PreservedStateError) {
                return .success(try store.exportState(app: app.bundleIdentifier))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `runway import-state APP`: stores an export (all or nothing) and tells the core (R6), so that the app's next
    /// launch restores it.
    package func importState(
        app: AppID,
        bytes: [UInt8],
        on scheduler: RunwayScheduler
    ) async throws(PreservedStateError) {
        let version = scheduler.stateVersion(of: app)
        let result: Result<PreservedState?, PreservedStateError> = await self.offLoop { store in
            do throws(PreservedStateError) {
                try store.importState(app: app.bundleIdentifier, bytes: bytes, versionKey: version)
                return .success(store.load(app: app.bundleIdentifier))
            } catch {
                return .failure(error)
            }
        }
        guard let imported = try result.get() else { return }
        let sameBoot = imported.bootID != nil && imported.bootID == self.store.bootID
        if !scheduler.preservedStateFound(app: app, recordedEnding: imported.ending, sameBoot: sameBoot) {
            self.writer.discard(app: app.bundleIdentifier)
        }
    }

    /// Waits for every change asked so far (the daemon's stop).
    package func flush() {
        self.writer.flush()
    }

    /// Runs `work` on the writer's queue, after the changes asked before it.
    private func offLoop<T: Sendable>(_ work: @escaping @Sendable (PreservedStateStore) -> T) async -> T {
        await withCheckedContinuation { continuation in
            self.writer.perform { continuation.resume(returning: work(self.store)) }
        }
    }
}
