import NIOCore
import NIOHTTP1

/// Answers the requests NIO's HTTP/1 decoder hands it: `GET /metrics` (a query string is ignored) with the
/// exposition text, `GET /healthz` and `GET /readyz` with the daemon's probes (`DaemonProbes`; no metrics are
/// rendered for them), 404 for any other path, 405 (`Allow: GET, HEAD`) for another method on those paths. `HEAD`
/// is answered as `GET` without the body (RFC 9110, 9.3.2: the same status and headers). A probe's
/// answer waits for the scheduler's loop (at most `DaemonProbes.loopAnswerTimeout`) without blocking this thread;
/// a request that arrives behind it on the same connection is not answered, and the connection is closed after
/// the probe's answer. It also
/// answers 431 when `RequestByteLimiter` reports a request over `MetricsRequestByteLimit` (a connection over the
/// connection limits never gets here: `MetricsRefusalHandler` answers it), tells `table` while it answers (a
/// connection being answered is not closed for a newcomer), ends a connection after its last answer with a
/// lingering close (`MetricsLingeringClose`: the client reads the answer, not a reset), and closes a
/// connection that completes no request within
/// `MetricsIdleTimeout` of its opening or of its last answer (`requestTimeout`): an idle one, and one that sends
/// a request a few bytes at a time to hold its slot (slowloris), which a timeout on reads alone would keep open.
///
/// Threading: the connection's event loop only (a channel handler is not Sendable).
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let render: @Sendable () -> [UInt8]
    private let probes: DaemonProbes
    private let table: MetricsConnectionTable
    private let requestLimit: Int
    private let requestTimeout: TimeAmount
    private let linger: TimeAmount
    private var head: HTTPRequestHead?
    private var closing = false
    /// Closes the connection unless a request completes first; armed at the opening and after each answer.
    private var deadline: Scheduled<Void>?
    /// A probe's answer is awaited; `probeSerial` tells its completions from those of an earlier probe.
    private var probing = false
    private var probeSerial = 0
    private var probeTimeout: Scheduled<Void>?
    /// A request arrived while a probe's answer was awaited: the connection closes after that answer.
    private var closeAfterProbe = false
    private var inactive = false

    init(
        render: @escaping @Sendable () -> [UInt8],
        probes: DaemonProbes,
        table: MetricsConnectionTable,
        requestLimit: Int,
        requestTimeout: TimeAmount,
        linger: TimeAmount
    ) {
        self.render = render
        self.probes = probes
        self.table = table
        self.requestLimit = requestLimit
        self.requestTimeout = requestTimeout
        self.linger = linger
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        self.armDeadline(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.deadline?.cancel()
        self.deadline = nil
        self.probeTimeout?.cancel()
        self.probeTimeout = nil
        self.inactive = true
        context.fireChannelInactive()
    }

    private func armDeadline(_ context: ChannelHandlerContext) {
        self.deadline?.cancel()
        let channel = context.channel
        self.deadline = context.eventLoop.scheduleTask(in: self.requestTimeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.closing else { return }
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // Counted by RequestByteLimiter; a GET needs none.
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            guard !self.probing else {
                self.closeAfterProbe = true
                return
            }
            self.deadline?.cancel()
            self.table.setAnswering(context.channel, true)
            self.answer(context, head)
            // Also after a last answer: a client that does not read it would otherwise hold the slot forever.
            // A probe arms it once answered.
            if !self.probing { self.armDeadline(context) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestByteLimiter.RequestTooLarge {
            guard !self.closing else { return }
            let message =
                "request too large: more than \(self.requestLimit) bytes (MetricsRequestByteLimit)\n"
            self.respond(
                context,
                .custom(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                Array(message.utf8),
                version: self.head?.version ?? .http1_1,
                keepAlive: false
            )
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func answer(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        // A client that lets responses pile up unread is closed after this one (the write buffer's high mark).
        let keepAlive = head.isKeepAlive && context.channel.isWritable
        let bodyless = head.method == .HEAD
        guard path == "/metrics" || path == "/healthz" || path == "/readyz" else {
            let body = Array("not found: GET /metrics, /healthz and /readyz are served here\n".utf8)
            self.respond(context, .notFound, body, version: head.version, keepAlive: keepAlive, bodyless: bodyless)
            return
        }
        guard head.method == .GET || bodyless else {
            let body = Array("method not allowed: \(path) answers GET and HEAD only\n".utf8)
            self.respond(context, .methodNotAllowed, body, version: head.version, keepAlive: keepAlive, allow: true)
            return
        }
        guard path == "/metrics" else {
            self.probe(context, head, readiness: path == "/readyz", keepAlive: keepAlive)
            return
        }
        self.respond(
            context,
            .ok,
            self.render(),
            version: head.version,
            keepAlive: keepAlive,
            contentType: Self.contentType,
            bodyless: bodyless
        )
    }

    /// `/healthz`: 200 once the loop has run the probe's no-op; `/readyz`: the same once the daemon is ready,
    /// else 503 naming its phase. 503 when the loop has stopped or has not answered within the timeout.
    private func probe(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, readiness: Bool, keepAlive: Bool) {
        if readiness {
            let refusal: String? =
                switch self.probes.phase {
                case .ready: nil
                case .starting: "not ready: starting, the configuration is being applied\n"
                case .stopping: "not ready: stopping, the apps are being terminated\n"
                }
            if let refusal {
                let body = Array(refusal.utf8)
                let bodyless = head.method == .HEAD
                self.respond(
                    context,
                    .serviceUnavailable,
                    body,
                    version: head.version,
                    keepAlive: keepAlive,
                    bodyless: bodyless
                )
                return
            }
        }
        let ok = readiness ? "ready\n" : "ok\n"
        guard case .pending(let answered) = self.probes.loopAnswered(on: context.eventLoop) else {
            self.probeAnswered(context, head, nil, .notAnswering)
            return
        }
        self.probing = true
        self.probeSerial &+= 1
        let serial = self.probeSerial
        self.probeTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: DaemonProbes.loopAnswerTimeout) {
            self.probeAnswered(context, head, serial, .notAnswering)
        }
        answered.assumeIsolated().whenSuccess { turned in
            self.probeAnswered(context, head, serial, turned ? .turned(ok: ok) : .stopped)
        }
    }

    private enum ProbeOutcome {
        case turned(ok: String)
        case notAnswering
        case stopped
    }

    /// Writes a probe's answer, once: `serial` is nil for an answer given at once, else the probe's.
    private func probeAnswered(
        _ context: ChannelHandlerContext,
        _ head: HTTPRequestHead,
        _ serial: Int?,
        _ outcome: ProbeOutcome
    ) {
        if let serial {
            guard self.probing, serial == self.probeSerial, !self.inactive else { return }
            self.probing = false
            self.probeTimeout?.cancel()
            self.probeTimeout = nil
            // A 431 answered meanwhile ended the connection.
            guard !self.closing else { return }
        }
        let seconds = DaemonProbes.loopAnswerTimeout.nanoseconds / 1_000_000_000
        let (status, text): (HTTPResponseStatus, String) =
            switch outcome {
            case .turned(let ok): (.ok, ok)
            case .notAnswering: (.serviceUnavailable, "the event loop did not answer within \(seconds) s\n")
            case .stopped: (.serviceUnavailable, "the event loop has stopped\n")
            }
        let keepAlive = head.isKeepAlive && context.channel.isWritable && !self.closeAfterProbe
        let bodyless = head.method == .HEAD
        self.respond(context, status, Array(text.utf8), version: head.version, keepAlive: keepAlive, bodyless: bodyless)
        if serial != nil, !self.closing { self.armDeadline(context) }
    }

    private func respond(
        _ context: ChannelHandlerContext,
        _ status: HTTPResponseStatus,
        _ body: [UInt8],
        version: HTTPVersion,
        keepAlive: Bool,
        allow: Bool = false,
        contentType: String = "text/plain; charset=utf-8",
        bodyless: Bool = false
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        if allow { headers.add(name: "Allow", value: "GET, HEAD") }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))))
            .whenFailure { _ in }
        // A HEAD answer has the GET's headers, Content-Length included, and no body.
        if !bodyless {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(self.wrapOutboundOut(.body(.byteBuffer(buffer)))).whenFailure { _ in }
        }
        let written = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        let channel = context.channel
        written.whenComplete { [table = self.table] _ in table.setAnswering(channel, false) }
        guard !keepAlive else { return }
        self.closing = true
        self.table.setClosing(channel)
        MetricsLingeringClose.close(channel, after: written, linger: self.linger)
    }
}
