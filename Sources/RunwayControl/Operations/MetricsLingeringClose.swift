import NIOCore

/// How the metrics endpoint ends a connection after its last answer without resetting it: the answer is written,
/// then only the sending side is shut (`FIN`), and what the client still sends is read and dropped until it
/// closes too or `linger` passes. Closing at once with unread bytes from the client (the rest of an oversized
/// request, or a request sent to a refused connection) would make the kernel send a reset, and the client would
/// see `ECONNRESET` instead of the 431 or 503 (Apache and nginx call this a lingering close).
enum MetricsLingeringClose {
    /// Most time a closing connection is kept to drain the client's bytes.
    static let lingerMaximum = TimeAmount.seconds(2)

    /// Once `written` completes: shuts `channel`'s output, and closes it after `linger` unless the client
    /// closed first. The caller's handlers must drop what is read meanwhile.
    static func close(_ channel: any Channel, after written: EventLoopFuture<Void>, linger: TimeAmount) {
        written.whenComplete { _ in
            let timer = channel.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
            channel.closeFuture.whenComplete { _ in timer.cancel() }
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
    }
}

/// The whole pipeline of a connection refused at its opening (over `MetricsConnectionLimit` or
/// `MetricsPeerConnectionLimit`): a fixed `503 Service Unavailable` with `Retry-After: 1` and the text naming the
/// limit, written at once without parsing anything, then a lingering close; every byte read is dropped.
///
/// Threading: the connection's event loop only.
final class MetricsRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let text: String
    private let linger: TimeAmount

    init(text: String, linger: TimeAmount) {
        self.text = text
        self.linger = linger
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        let body = Array(self.text.utf8)
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let written = context.writeAndFlush(self.wrapOutboundOut(buffer))
        MetricsLingeringClose.close(context.channel, after: written, linger: self.linger)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
