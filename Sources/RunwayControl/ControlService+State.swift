import Foundation
import Runway
@_spi(Driver) import RunwayCore

// The control commands on an app's preserved state (Behaviour.md R7; Docs/ControlProtocol.md): `discardState`,
// `exportState` and `importState`. They go through the daemon's `DaemonRestoration`, so that the core's view of which
// apps have a state stays right. Loop thread only, like the rest of `ControlService`'s request handling; the store's
// file work runs off the loop and the reply is sent when it is done.
//
// An export travels base64-encoded: `exportState`'s reply carries it whole in `exported` (one reply line may be
// longer than a request line), and `importState` sends it in parts of at most `importPartCharacters` characters in
// `payload`, with `more: true` on every part but the last, because a request line is at most 64 KiB.

/// An import being received on one connection: the export's bytes so far and the app it is for.
struct StateImport {
    var app: AppID
    var bytes: [UInt8]
}

extension ControlService {
    /// The most base64 characters of an export in one `importState` request: 48 KiB, so that the line stays below
    /// `ControlProtocol.maxLineBytes` with its other fields.
    static let importPartCharacters = 49_152

    /// The most bytes an export may hold beyond its state: the format's header (app id, version key, ending, boot
    /// id) and checksum. An import larger than `StateRestorationByteLimit` plus this is refused as it grows.
    static let exportOverheadBytes = 65_536

    func stateReply(
        _ command: ControlCommand,
        _ request: ControlRequest,
        app: AppID,
        connection: ControlSocketServer.ConnectionID
    ) -> ControlReply? {
        guard let restoration = self.restoration else {
            return .failure("unsupported", "this daemon keeps no preserved state", id: request.id)
        }
        // One app's state, O(1): a snapshot of every app per request would cost the loop O(apps) each time.
        guard let state = self.scheduler.state(of: app) else {
            self.imports[connection] = nil
            return .failure("unknownApp", "unknownApp: no app '\(app)' is registered", id: request.id)
        }
        let id = request.id
        switch command {
        case .discardState:
            self.replyLater(to: connection) {
                guard let problem = await restoration.discard(app: app, on: self.scheduler) else {
                    return ControlReply(id: id, ok: true)
                }
                return .failure(
                    "stateNotDiscarded",
                    "the preserved state of \(app) was not removed: \(problem)",
                    id: id
                )
            }
            return nil
        case .exportState:
            self.replyLater(to: connection) {
                do throws(PreservedStateError) {
                    var reply = ControlReply(id: id, ok: true)
                    reply.exported = Data(try await restoration.exportState(app: app)).base64EncodedString()
                    return reply
                } catch {
                    return .failure(error.code.rawValue, error.description, id: id)
                }
            }
            return nil
        case .importState:
            return self.importPart(request, app: app, state: state, connection: connection)
        default:
            preconditionFailure("stateReply called for \(command)")
        }
    }

    /// One part of an import: gathered while `more` is true, then imported whole. The app must be notRunning when
    /// the last part arrives: a running app preserves its own state, which would replace the import.
    private func importPart(
        _ request: ControlRequest,
        app: AppID,
        state: AppState,
        connection: ControlSocketServer.ConnectionID
    ) -> ControlReply? {
        let id = request.id
        guard let restoration = self.restoration else { return nil }
        guard let part = request.payload, part.utf8.count <= Self.importPartCharacters,
            let bytes = Data(base64Encoded: part)
        else {
            self.imports[connection] = nil
            return .failure(
                "invalidRequest",
                "field 'payload': importState needs a part of the export, base64, at most "
                    + "\(Self.importPartCharacters) characters",
                id: id
            )
        }
        var gathered = self.imports[connection].flatMap { $0.app == app ? $0.bytes : nil } ?? []
        gathered.append(contentsOf: bytes)
        let limit = restoration.store.byteLimit
        guard gathered.count <= limit + Self.exportOverheadBytes else {
            self.imports[connection] = nil
            return .failure(
                "stateTooLarge",
                "the export for \(app) is over \(gathered.count - Self.exportOverheadBytes) bytes of state, more "
                    + "than StateRestorationByteLimit (\(limit) bytes, Runway.plist); nothing was imported",
                id: id
            )
        }
        guard request.more != true else {
            self.imports[connection] = StateImport(app: app, bytes: gathered)
            var reply = ControlReply(id: id, ok: true)
            reply.received = gathered.count
            return reply
        }
        self.imports[connection] = nil
        guard state == .notRunning else {
            return .failure(
                "appRunning",
                "import-state needs \(app) notRunning, and it is \(state): a running app preserves its own state, "
                    + "which would replace the import; terminate it first (runway terminate \(app)). Nothing "
                    + "was imported",
                id: id
            )
        }
        let export = gathered
        self.replyLater(to: connection) {
            do throws(PreservedStateError) {
                try await restoration.importState(app: app, bytes: export, on: self.scheduler)
                var reply = ControlReply(id: id, ok: true)
                reply.received = export.count
                return reply
            } catch {
                return .failure(error.code.rawValue, error.description, id: id)
            }
        }
        return nil
    }

    /// Runs `work` off the loop thread and sends its reply on `connection` from the loop thread, in the order of
    /// the connection's requests (`ReplyOrder`): its place is taken now. Loop thread.
    private func replyLater(
        to connection: ControlSocketServer.ConnectionID,
        _ work: @escaping @Sendable () async -> ControlReply
    ) {
        let scheduler = self.scheduler
        let ticket = self.replyOrder.reserve(for: connection)
        Task {
            let line = ControlProtocol.encodedLine(await work())
            _ = scheduler.runOnLoop { [weak self] in self?.encoded(line, ticket: ticket, for: connection) }
        }
    }
}
