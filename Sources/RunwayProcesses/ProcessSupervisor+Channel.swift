import CLibUV
@_spi(Processes) @_spi(Driver) import RunwayCore
import RunwayProtocol

/// The protocol channel and output: `.deliver` to a protocol child, the lines it sends (A4), their policing and the
/// replies (A5, decided by the app's `ProtocolPolicer`), the end of a channel on the app's side (a message in flight is
/// acknowledged for the app, which can no longer do it), and the children's stdout and stderr, logged line by line
/// under `OutputThrottle`. Loop thread only; the policer is given `loop.turnNow`.
extension ProcessSupervisor {
    /// `.deliver` to a protocol child: one `message` line, remembered as the child's `messageInFlight` until it
    /// is acknowledged. A child whose channel is closed cannot answer, so the message is acknowledged at once
    /// (as for a plain process) and logged; so is the one in flight when the channel closes on the app's side.
    package func deliver(_ message: Message, token: MessageToken, to app: AppID) {
        guard let child = self.apps[app]?.child, !child.hasExited else {
            self.delegate?.processAcknowledged(token, app: app)
            return
        }
        guard child.isChannelOpen else {
            self.logger.info(
                "protocol channel closed; message acknowledged for the app",
                metadata: ["app": "\(app)", "message": "\(message)"]
            )
            self.delegate?.processAcknowledged(token, app: app)
            return
        }
        child.messageInFlight = token
        self.send(RunwayToApp.message(token: token.rawValue, message), to: child)
    }

    // MARK: ChildProcessDelegate

    func child(_ child: ChildProcess, printed line: String, isError: Bool, truncated: Bool) {
        self.logs.append(line, stream: isError ? .stderr : .stdout, app: child.app, run: ObjectIdentifier(child))
        // Debug, not info: every line is in the app's log ring (`runway logs`); at info a flooding app would flood
        // the daemon's own log (journald) too, escape sequences and all.
        self.logger.debug(
            "app output",
            metadata: [
                "app": "\(child.app)", "stream": "\(isError ? "stderr" : "stdout")", "line": "\(line)",
                "truncated": .stringConvertible(truncated),
            ]
        )
    }

    func child(_ child: ChildProcess, throttledOutput isError: Bool, pauses: Int) {
        let note =
            AppLogLine.notePrefix
            + "reading \(isError ? "stderr" : "stdout") paused \(pauses) time(s) at the output budget of a loop "
            + "turn (\(self.options.outputBytesPerTurn) bytes, \(self.options.outputLinesPerTurn) lines); the app's "
            + "writes waited, no output was dropped"
        self.logs.append(note, stream: isError ? .stderr : .stdout, app: child.app, run: ObjectIdentifier(child))
        self.logger.info(
            "app output throttled: reading paused at the output budget of a loop turn",
            metadata: [
                "app": "\(child.app)", "stream": "\(isError ? "stderr" : "stdout")",
                "pauses": .stringConvertible(pauses),
                "outputBytesPerTurn": .stringConvertible(self.options.outputBytesPerTurn),
                "outputLinesPerTurn": .stringConvertible(self.options.outputLinesPerTurn),
            ]
        )
    }

    func child(_ child: ChildProcess, sent frame: LineFramer.Frame) {
        let app = child.app
        guard var managed = self.apps[app], managed.child === child else { return }
        let now = self.loop.turnNow
        let verdict: ProtocolPolicer.Verdict
        var reply: RunwayToApp?
        var request: AppToRunway?
        switch frame {
        case .tooLong(let seen):
            verdict = managed.policer.malformedLineReceived(now: now)
            let limit = self.options.protocolLineLimitBytes
            reply = .error(
                request: nil,
                code: "lineTooLong",
                message: "a line of \(seen) or more bytes exceeds the limit of \(limit)"
            )
        case .line(let bytes):
            do {
                request = try AppProtocolCodec.decodeAppLine(bytes)
                verdict = managed.policer.lineReceived(now: now)
            } catch {
                verdict = managed.policer.malformedLineReceived(now: now)
                reply = .error(request: error.request, code: error.code, message: error.message)
            }
        }
        self.apps[app] = managed
        // A running app that speaks may be starting helpers: the settling looks follow (signal mode).
        self.settlingActivity(of: app)
        if let reply {
            self.logger.info("malformed protocol line", metadata: ["app": "\(app)", "error": "\(reply)"])
            child.send(line: AppProtocolCodec.encode(reply))
        }
        if case .violation(let reason) = verdict {
            self.logger.info("protocol violation; terminating", metadata: ["app": "\(app)", "reason": "\(reason)"])
            self.violated(child, reason: reason)
            return
        }
        // Cleared before the delegate hears of it: the acknowledgement may deliver the next message at once.
        if case .ack(let token)? = request, token == child.messageInFlight?.rawValue {
            child.messageInFlight = nil
            // A restored state's lines precede the message: the app has read them (R2).
            self.apps[app]?.restorationAllowance = 0
        }
        guard let request else { return }
        self.delegate?.processRequested(request, app: app) { [unowned self] answer in self.send(answer, to: child) }
    }

    /// The channel ended on the app's side (end of file, a read or a write error) and is closed. The message in
    /// flight, if any, can no longer be acknowledged by the app: it is acknowledged for it now, as
    /// later ones will be by `deliver`, unless the child is exiting (a zombie: its exit is reported instead).
    func childClosedChannel(_ child: ChildProcess, status: Int32) {
        let app = child.app
        let reason = String(cString: uv_strerror(status))
        guard let token = child.messageInFlight else {
            self.logger.debug("protocol channel closed by the app", metadata: ["app": "\(app)", "reason": "\(reason)"])
            return
        }
        child.messageInFlight = nil
        // A child that is exiting closes its channel before it is a zombie: its exit, not an acknowledgement, is
        // what the core must hear (an app that exits before answering didFinishLaunching was never active).
        guard self.apps[app]?.child === child, !child.hasExited, let stat = ProcFS.stat(child.pid), stat.state != "Z",
            !stat.isExiting
        else { return }
        self.logger.info(
            "protocol channel closed by the app with a message in flight; message acknowledged for the app",
            metadata: ["app": "\(app)", "token": "\(token)", "reason": "\(reason)"]
        )
        self.delegate?.processAcknowledged(token, app: app)
    }

    // MARK: Writing

    /// Writes one line and reports the write queue to the app's policer, which decides whether a child that
    /// does not read has crossed `options.protocolWriteQueueLimitBytes` (A5).
    private func send(_ line: RunwayToApp, to child: ChildProcess) {
        child.send(line: AppProtocolCodec.encode(line))
        self.apps[child.app]?.lastWrite = self.loop.turnNow  // For a suspension in the same turn (`+Draining`).
        guard let managed = self.apps[child.app] else { return }
        let queued = child.channelQueuedBytes
        guard case .violation(let reason) = managed.policer.bytesQueued(queued - managed.restorationAllowance)
        else { return }
        self.logger.info(
            "protocol child does not read; terminating",
            metadata: ["app": "\(child.app)", "queued": .stringConvertible(queued)]
        )
        self.violated(child, reason: reason)
    }

    /// Closes the channel and reports `processViolatedProtocol`; the core decides what follows.
    private func violated(_ child: ChildProcess, reason: String) {
        child.closeChannel()
        self.delegate?.processViolatedProtocol(child.app, reason: reason)
    }
}
