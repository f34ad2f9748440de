import NIOCore

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
