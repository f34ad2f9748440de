import ArgumentParser
import Foundation
import RunwayConfig
import RunwayControl
import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `--offline` of `export-state` and `import-state`: the preserved-state store of a daemon that is not running, read
/// or written directly in its StateDirectory. Only while no daemon answers on the control socket, so that no running
/// daemon's view of the store goes stale.
struct OfflineStoreOptions: ParsableArguments {
    @Flag(help: "Use the StateDirectory's store directly; refused while a daemon answers on the control socket.")
    var offline = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --offline: the daemon's state directory (as `runway run --state-directory`; default StateDirectory "
                + "of Runway.plist, else the daemon's default).",
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    func validate() throws {
        if self.stateDirectory != nil, !self.offline {
            throw ValidationError("--state-directory is for --offline only")
        }
    }

    /// Runs `work` on the store of the daemon `target` names (its socket and `--config`), with the app's
    /// `RunwayStateVersion`, after checking that the app is configured and that no daemon is listening.
    ///
    /// - Throws: `ExitCode(1)` after printing the store's error (`noState`, `wrongApp`, `badChecksum`, ...),
    ///   `daemonRunning`, or `unknownApp`; `ExitCode(78)` for a bad configuration.
    func withStore<T>(
        _ target: AppTarget,
        _ work: (PreservedStateStore, String?) throws(PreservedStateError) -> T
    ) throws -> T {
        let socket = try target.connection.socketPath
        let directory = target.connection.configDirectory
        let configuration: RunwayConfiguration
        do throws(ConfigError) {
            configuration = try ConfigLoader.load(directory: directory)
        } catch {
            ErrorOutput.report(code: "badConfig", message: "\(error)")
            throw ExitCode(ControlExit.badConfig)
        }
        guard let app = configuration.apps.first(where: { $0.descriptor.id.bundleIdentifier == target.app }) else {
            ErrorOutput.report(code: "unknownApp", message: "unknownApp: no app '\(target.app)' in \(directory)/Apps")
            throw ExitCode(1)
        }
        if (try? ControlClient(path: socket, replyTimeoutSeconds: 5)) != nil {
            ErrorOutput.report(
                code: "daemonRunning",
                message: "a daemon answers on \(socket): ask it (without --offline), so that its view of the store "
                    + "stays right"
            )
            throw ExitCode(1)
        }
        let stateDirectory =
            self.stateDirectory ?? configuration.daemon.stateDirectory
            ?? StateDirectory.defaultPath(uid: UInt32(getuid()), environment: ProcessInfo.processInfo.environment)
        let store = PreservedStateStore(
            directory: StateDirectory.preservedStateDirectory(directory: stateDirectory, socket: socket),
            byteLimit: configuration.daemon.stateRestorationByteLimit,
            bootID: BootID.read()
        )
        do throws(PreservedStateError) {
            return try work(store, app.descriptor.stateVersion)
        } catch {
            ErrorOutput.report(code: error.code.rawValue, message: error.description)
            throw ExitCode(1)
        }
    }
}
