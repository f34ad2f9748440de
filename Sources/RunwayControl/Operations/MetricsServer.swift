import NIOCore
import NIOHTTP1
import NIOPosix
import RunwayConfig
import Synchronization

/// `GET /metrics` over HTTP/1.1 on `MetricsAddress` (Docs/Operations.md), served by swift-nio's HTTP/1 server
/// pipeline on one event-loop thread of its own: NIO parses the requests, `MetricsHTTPHandler` answers them.
///
/// Limits (`OperationsSettings`, each a `Runway.plist` key with a default): at most `metricsConnectionLimit`
/// connections (one more is answered 503 naming the limit and closed); at most `metricsRequestByteLimit` bytes
/// per request (431 naming the limit, then closed); a connection that completes no request within
/// `metricsIdleTimeout` of its opening or its last answer is closed (idle, or sending too slowly); a
/// client that does not read its responses is closed once NIO's write buffer passes its high watermark.
///
/// Threading: `start` and `stop` from any task; the handlers run on the server's event loop. `render` is called
/// there, once per GET, and may block it for the microseconds of a hop to the scheduler's loop.
final class MetricsServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The address bound (with the port the kernel chose for port 0); nil only if the socket closed already.
    let boundAddress: SocketAddress?

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
        self.boundAddress = channel.localAddress
    }

    /// Binds `address` and serves until `stop()`.
    ///
    /// - Throws: NIO's error when the address does not resolve or cannot be bound (in use, not local).
    static func start(
        address: MetricsAddress,
        settings: OperationsSettings,
        render: @escaping @Sendable () -> [UInt8]
    ) async throws -> MetricsServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = ConnectionCount(limit: settings.metricsConnectionLimit)
        let requestLimit = settings.metricsRequestByteLimit
        let idle = TimeAmount.nanoseconds(settings.metricsIdleTimeout.nanoseconds)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .childChannelInitializer { channel in
                let admitted = connections.admit()
                if admitted { channel.closeFuture.whenComplete { _ in connections.release() } }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(RequestByteLimiter(limit: requestLimit))
                    // No pipelining assistance: the handler answers each request before reading the next one.
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try pipeline.addHandler(
                        MetricsHTTPHandler(
                            render: render,
                            refusal: admitted ? nil : connections.refusal,
                            requestLimit: requestLimit,
                            requestTimeout: idle
                        )
                    )
                }
            }
        do {
            let channel = try await bootstrap.bind(host: address.host, port: address.port).get()
            return MetricsServer(group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listening socket and every connection, and stops the thread.
    func stop() async {
        try? await self.channel.close()
        try? await self.group.shutdownGracefully()
    }

    /// `http://127.0.0.1:9100/metrics`.
    var url: String {
        let host = self.boundAddress?.ipAddress ?? "?"
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(self.boundAddress?.port ?? 0)/metrics"
    }
}

/// Connections open now, against `MetricsConnectionLimit`. Any thread.
private final class ConnectionCount: Sendable {
    let limit: Int
    private let open = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Counts one more connection and returns true, or returns false when `limit` are open.
    func admit() -> Bool {
        self.open.withLock { open in
            guard open < self.limit else { return false }
            open += 1
            return true
        }
    }

    func release() { self.open.withLock { $0 -= 1 } }

    var refusal: String {
        "too many connections: the metrics endpoint serves at most \(self.limit) at once (MetricsConnectionLimit)\n"
    }
}
