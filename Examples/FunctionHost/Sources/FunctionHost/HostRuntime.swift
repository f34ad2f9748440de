import Foundation
import Logging
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore

/// The function host: an embedded `RunwayScheduler` with each function of `functions.json` registered as a
/// protocol process app, one `FunctionSlot` per function (foreground on request, background when idle), and the
/// private directory of the functions' sockets and output files.
///
/// Runway decides the lifecycle: the host only asks for the foreground (`launch`, `summon`) when a request comes
/// and for the background (`home`) when a function has been idle for `idleSeconds`; suspension, the budget, the
/// expiration warning, the kill at the deadline and the purge order are Runway's (Behaviour.md B3-B6, E1, P3, P8).
final class HostRuntime: Sendable {
    let config: FunctionsConfig
    let scheduler: RunwayScheduler
    let waiters: StateWaiters
    /// The host's private directory (mode 0700): `NAME.sock`, `NAME.out`, `NAME.err` per function.
    let runtimeDirectory: String
    let slots: [String: FunctionSlot]
    let logger: Logger

    /// The app identifier of a function in the scheduler.
    static func appID(of name: String) -> AppID { AppID("function.\(name)") }

    /// Starts the scheduler and registers every function in `notRunning`; nothing is launched before its first
    /// request.
    ///
    /// - Parameters:
    ///   - config: The validated configuration.
    ///   - directory: The directory relative paths of `config` were resolved against (the functions' working
    ///     directory).
    ///   - runtimeDirectory: Where sockets and output files go; nil makes a new private one under the temporary
    ///     directory.
    ///   - watchesMemoryPressure: Samples the system's memory pressure (PSI, `/proc/pressure/memory`) so that real
    ///     pressure warns and purges as in P3, besides `POST /admin/pressure`. Off by default: the tests share a
    ///     machine whose pressure is not theirs.
    init(
        config: FunctionsConfig,
        directory: String,
        runtimeDirectory: String? = nil,
        watchesMemoryPressure: Bool = false,
        logger: Logger = Logger(label: "function-host")
    ) throws {
        self.config = config
        self.logger = logger
        self.runtimeDirectory = try runtimeDirectory ?? Self.makePrivateDirectory()
        self.waiters = StateWaiters()
        self.scheduler = try RunwayScheduler(
            settings: SchedulerSettings(),
            processOptions: ProcessOptions(
                baseDirectory: directory,
                suspensionMechanism: .auto,
                memoryPressure: watchesMemoryPressure ? MemoryPressureOptions() : nil
            ),
            logger: logger,
            name: "function-host"
        )
        let waiters = self.waiters
        self.scheduler.observeTransitions { event in waiters.transitioned(event) }
        var slots: [String: FunctionSlot] = [:]
        for function in config.functions {
            let socket = "\(self.runtimeDirectory)/\(function.name).sock"
            let spec = ProcessSpec(
                arguments: function.program,
                environment: ["FUNCTION_SOCKET": socket, "FUNCTION_NAME": function.name],
                workingDirectory: directory,
                speaksProtocol: true,
                outputFiles: ProcessOutputFiles(
                    standardOutPath: "\(self.runtimeDirectory)/\(function.name).out",
                    standardErrorPath: "\(self.runtimeDirectory)/\(function.name).err"
                )
            )
            let milliseconds = Int64((function.budgetSeconds * 1_000).rounded())
            try self.scheduler.register(
                process: AppDescriptor(
                    id: Self.appID(of: function.name),
                    kind: .process(spec),
                    exitsOnSuspend: function.exitsOnSuspend,
                    backgroundTimeBudget: .milliseconds(milliseconds)
                )
            )
            slots[function.name] = FunctionSlot(
                name: function.name,
                app: Self.appID(of: function.name),
                socketPath: socket,
                idleSeconds: config.idleSeconds,
                scheduler: self.scheduler,
                waiters: self.waiters
            )
        }
        self.slots = slots
    }

    /// A new directory of the host's own, mode 0700 (mkdtemp), under TMPDIR or /tmp. Socket paths must stay under
    /// 108 bytes (`sun_path`), so a short base is used.
    static func makePrivateDirectory() throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/function-host.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HTTPClient.Failure(description: "cannot create a directory under \(base): errno \(errno)")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Purges every suspended function, as memory pressure does (P3): one `purge()` per suspended function, each
    /// taking the longest-suspended first (P8), their states kept for the next launch (R2). Functions in the
    /// foreground or background are left alone.
    ///
    /// - Returns: The names purged, in purge order.
    func purgeSuspended() -> [String] {
        let suspended = self.scheduler.status().filter { $0.state == .suspended && $0.terminating == nil }
        var purged: [String] = []
        for _ in suspended {
            // P8 takes a suspended app before any other; stop if one was resumed meanwhile and none is left.
            guard self.scheduler.status().contains(where: { $0.state == .suspended && $0.terminating == nil }),
                let app = self.scheduler.purge()
            else { break }
            purged.append(self.name(of: app))
        }
        return purged
    }

    /// The function's name for its app identifier.
    func name(of app: AppID) -> String {
        String(app.bundleIdentifier.dropFirst("function.".count))
    }

    /// Terminates every function (P4) and stops the scheduler, then removes the private directory.
    func shutdown() async {
        await self.scheduler.shutdown()
        try? FileManager.default.removeItem(atPath: self.runtimeDirectory)
    }
}
