import ArgumentParser
import Foundation
import RunwayConfig
import RunwayControl

/// `runway discard-state APP`: removes the app's preserved state (R7).
struct DiscardStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard-state",
        abstract: "Remove the state an app preserved (R7): its next launch starts from nothing.",
        discussion: """
            Returns once the stored state is removed from the StateDirectory. Allowed in any state: a running app \
            may preserve a new state later. An app with no preserved state is not an error. Refused (exit 1) for \
            an app that is not registered (unknownApp).
            """
    )

    @OptionGroup var target: AppTarget

    func run() throws {
        _ = try self.target.connection.request(ControlRequest(command: "discardState", app: self.target.app))
        print("\(self.target.app): preserved state discarded")
    }
}

/// `runway export-state APP [--output FILE]`: the app's preserved state as an export, to move it to another node.
struct ExportStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-state",
        abstract: "Write an app's preserved state as an export (to standard output, or --output FILE).",
        discussion: """
            The export is self-describing binary: format version, app, RunwayStateVersion, how the run that \
            preserved it ended, the state and a checksum. `runway import-state APP FILE` stores it on another \
            daemon (Docs/Deployment.md). Refused (exit 1) for an unknown app (unknownApp), an app with no \
            preserved state (noState), or a state file that cannot be used, saying why (badChecksum, malformed: \
            torn or changed; untrusted: not a private regular file). With --offline no daemon is asked: the \
            store in the StateDirectory is read directly, and the command is refused while a daemon answers on \
            the control socket.
            """
    )

    @OptionGroup var target: AppTarget
    @Option(name: .shortAndLong, help: ArgumentHelp("Write the export to this file.", valueName: "file"))
    var output: String?
    @OptionGroup var offline: OfflineStoreOptions

    func run() throws {
        let bytes: [UInt8]
        if self.offline.offline {
            bytes = try self.offline.withStore(self.target) { store, _ throws(PreservedStateError) in
                try store.exportState(app: self.target.app)
            }
        } else {
            let reply = try self.target.connection.request(ControlRequest(command: "exportState", app: self.target.app))
            guard let text = reply.exported, let data = Data(base64Encoded: text) else {
                ErrorOutput.report(code: "badReply", message: "the daemon's exportState reply holds no export")
                throw ExitCode(ControlExit.replyFailed)
            }
            bytes = Array(data)
        }
        guard let output else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        do {
            // Written whole, then renamed over the file: a reader never sees half an export.
            try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            ErrorOutput.report(code: "io", message: "cannot write \(output): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        printError("\(self.target.app): preserved state exported to \(output) (\(bytes.count) bytes)")
    }
}

/// `runway import-state APP [FILE]`: stores an export as the app's preserved state.
struct ImportStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-state",
        abstract: "Store an export (from FILE, or standard input) as an app's preserved state.",
        discussion: """
            The app must be notRunning: a running app preserves its own state, which would replace the import \
            (appRunning, exit 1; terminate it first). Its next launch restores the state when the run that \
            preserved it ended in a way that restores (R2, R6). All of it or nothing: refused (exit 1) for an \
            unknown app (unknownApp), another app's export (wrongApp), an export preserved under another \
            RunwayStateVersion than the app has now (wrongVersion), a torn or changed export (badChecksum, \
            malformed), an export whose run ended in a way that discards its state (notRestorable), a state \
            that is not UTF-8 text (notText), or a state over StateRestorationByteLimit (stateTooLarge). With \
            --offline no daemon is asked: the export is stored in the StateDirectory directly, for a daemon that \
            has not started yet (a Kubernetes init container, before RunAtLoad); refused while a daemon answers on \
            the control socket.
            """
    )

    @OptionGroup var target: AppTarget
    @Argument(help: ArgumentHelp("The export (default: standard input).", valueName: "file"))
    var file: String?
    @OptionGroup var offline: OfflineStoreOptions

    func run() throws {
        let bytes = try self.readExport()
        if self.offline.offline {
            try self.offline.withStore(self.target) { store, versionKey throws(PreservedStateError) in
                try store.importState(app: self.target.app, bytes: bytes, versionKey: versionKey)
            }
            print("\(self.target.app): preserved state imported (\(bytes.count) bytes)")
            return
        }
        let client = try self.target.connection.connect()
        let text = Data(bytes).base64EncodedString()
        let partCharacters = 49_152
        var start = text.startIndex
        repeat {
            let end = text.index(start, offsetBy: partCharacters, limitedBy: text.endIndex) ?? text.endIndex
            let request = ControlRequest(
                command: "importState",
                app: self.target.app,
                payload: String(text[start..<end]),
                more: end < text.endIndex ? true : nil
            )
            _ = try send(request, on: client)
            start = end
        } while start < text.endIndex
        print("\(self.target.app): preserved state imported (\(bytes.count) bytes)")
    }

    private func readExport() throws -> [UInt8] {
        guard let file else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: file) else {
            ErrorOutput.report(code: "io", message: "cannot read \(file)")
            throw ExitCode(1)
        }
        return Array(data)
    }
}
