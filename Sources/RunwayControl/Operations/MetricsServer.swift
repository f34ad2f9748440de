import NIOCore
import NIOHTTP1
import NIOPosix
import RunwayConfig
import RunwayLocking

/// `GET /metrics`, `/healthz` and `/readyz` over HTTP/1.1 on `MetricsAddress` (Docs/Operations.md), served by
/// swift-nio's HTTP/1 server pipeline on one event-loop thread of its own: NIO parses the requests,
/// `MetricsHTTPHandler` answers them (the probes with `DaemonProbes`).
///
/// Limits (`OperationsSettings`, each a `Runway.plist` key with a default): at most `metricsConnectionLimit`
/// connections, and `metricsPeerConnectionLimit` from one peer (an address; on loopback the uid owning the
/// client's socket, whatever its address, `MetricsPeer`): one more takes the place of one waiting for a request,
/// else it is answered 503 naming the limit (`MetricsConnectionTable`); at most `metricsRequestByteLimit` bytes
/// per request (431 naming the limit); every answer that ends a connection is followed by a lingering close
/// (`MetricsLingeringClose`, at most `metricsConnectionLimit` refused connections linger at once, the others are
/// closed after their 503); a connection that completes no request within `metricsIdleTimeout` of its opening or
/// its last answer is closed (idle, or sending too slowly); a client that does not read its responses is closed
/// once NIO's write buffer passes its high watermark.
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
        probes: DaemonProbes,
        render: @escaping @Sendable () -> [UInt8]
    ) async throws -> MetricsServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let idle = TimeAmount.nanoseconds(settings.metricsIdleTimeout.nanoseconds)
        let table = MetricsConnectionTable(
            limit: settings.metricsConnectionLimit,
            peerLimit: settings.metricsPeerConnectionLimit,
            protection: min(.seconds(1), idle)
        )
        let refusals = ConnectionCount(limit: settings.metricsConnectionLimit)
        let requestLimit = settings.metricsRequestByteLimit
        let linger = min(MetricsLingeringClose.lingerMaximum, idle)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .childChannelInitializer { channel in
                let admission = table.admit(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    switch admission {
                    case .refused(let text):
                        // A flood of refused connections is not kept lingering past the limit.
                        let lingers = refusals.admit()
                        if lingers { channel.closeFuture.whenComplete { _ in refusals.release() } }
                        try pipeline.addHandler(MetricsRefusalHandler(text: text, linger: lingers ? linger : .zero))
                        return
                    case .admitted(let evicting):
                        for old in evicting { old.close(promise: nil) }
                    }
                    channel.closeFuture.whenComplete { _ in table.release(channel) }
                    try pipeline.addHandler(RequestByteLimiter(limit: requestLimit))
                    // No pipelining assistance: the handler answers each request before reading the next one.
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try pipeline.addHandler(
                        MetricsHTTPHandler(
                            render: render,
                            probes: probes,
                            table: table,
                            requestLimit: requestLimit,
                            requestTimeout: idle,
                            linger: linger
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

/// Refused connections lingering now, against `MetricsConnectionLimit`. Any thread.
private final class ConnectionCount: Sendable {
    let limit: Int
    private let open = RunwayLock(0)

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
}
