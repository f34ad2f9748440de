import NIOCore
import NIOHTTP1

/// Answers the requests NIO's HTTP/1 decoder hands it: `GET /metrics` (a query string is ignored) with the
/// exposition text, 404 for any other path, 405 (`Allow: GET`) for another method on `/metrics`. It also
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
    private let table: MetricsConnectionTable
    private let requestLimit: Int
    private let requestTimeout: TimeAmount
    private let linger: TimeAmount
    private var head: HTTPRequestHead?
    private var closing = false
    /// Closes the connection unless a request completes first; armed at the opening and after each answer.
    private var deadline: Scheduled<Void>?

    init(
        render: @escaping @Sendable () -> [UInt8],
        table: MetricsConnectionTable,
        requestLimit: Int,
        requestTimeout: TimeAmount,
        linger: TimeAmount
    ) {
        self.render = render
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
            self.deadline?.cancel()
            self.table.setAnswering(context.channel, true)
            self.answer(context, head)
            // Also after a last answer: a client that does not read it would otherwise hold the slot forever.
            self.armDeadline(context)
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
        guard path == "/metrics" else {
            let body = Array("not found: only GET /metrics is served here\n".utf8)
            self.respond(context, .notFound, body, version: head.version, keepAlive: keepAlive)
            return
        }
        guard head.method == .GET else {
            let body = Array("method not allowed: /metrics answers GET only\n".utf8)
            self.respond(context, .methodNotAllowed, body, version: head.version, keepAlive: keepAlive, allow: true)
            return
        }
        self.respond(
            context,
            .ok,
            self.render(),
            version: head.version,
            keepAlive: keepAlive,
            contentType: Self.contentType
        )
    }

    private func respond(
        _ context: ChannelHandlerContext,
        _ status: HTTPResponseStatus,
        _ body: [UInt8],
        version: HTTPVersion,
        keepAlive: Bool,
        allow: Bool = false,
        contentType: String = "text/plain; charset=utf-8"
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        if allow { headers.add(name: "Allow", value: "GET") }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))))
            .whenFailure { _ in }
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(buffer)))).whenFailure { _ in }
        let written = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        let channel = context.channel
        written.whenComplete { [table = self.table] _ in table.setAnswering(channel, false) }
        guard !keepAlive else { return }
        self.closing = true
        self.table.setClosing(channel)
        MetricsLingeringClose.close(channel, after: written, linger: self.linger)
    }
}

/// Counts the bytes of each request before NIO's decoder sees them and stops passing them on past `limit`:
/// the decoder then never holds more than `limit` bytes of one request. The count restarts when a response is
/// written (the request before it was read whole). Past the limit it fires `RequestTooLarge` towards
/// `MetricsHTTPHandler`, which answers 431 and closes, and drops everything else the client sends.
///
/// Threading: the connection's event loop only.
final class RequestByteLimiter: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The event fired once when a request passes the limit.
    struct RequestTooLarge {}

    private let limit: Int
    private var count = 0
    private var tripped = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.tripped else { return }
        let buffer = self.unwrapInboundIn(data)
        self.count += buffer.readableBytes
        guard self.count <= self.limit else {
            self.tripped = true
            context.fireUserInboundEventTriggered(RequestTooLarge())
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        self.count = 0
        context.write(data, promise: promise)
    }
}
