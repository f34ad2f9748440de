import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 client on swift-nio: one request per connection, over a Unix socket (a function's) or TCP
/// (the tests' client of the host). NIO's `HTTPRequestEncoder` and `HTTPResponseDecoder` do the framing; this type
/// only writes the request and gathers the response, within a byte limit and a time limit.
///
/// The proxy needs nothing more (the functions answer one request per connection), and swift-nio is already a
/// dependency of Hummingbird, whereas async-http-client would add its TLS stack to the build.
struct HTTPClient: Sendable {
    /// Where to connect.
    enum Endpoint: Sendable, CustomStringConvertible {
        case unixSocket(String)
        case tcp(host: String, port: Int)

        var description: String {
            switch self {
            case .unixSocket(let path): return "unix:\(path)"
            case .tcp(let host, let port): return "\(host):\(port)"
            }
        }
    }

    /// A response, gathered whole.
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer

        var text: String { String(buffer: self.body) }
    }

    /// Why a request failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The most bytes of response body gathered (8 MiB); a larger response fails with a `Failure` naming it.
    static let responseByteLimit = 8 << 20

    var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The longest a request may take from connect to the end of its response (default 30 s).
    var timeout: TimeAmount = .seconds(30)

    /// Sends one request and returns the response.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target: path and query (`/work?ms=5`).
    ///   - headers: Headers to send; `Host`, `Content-Length` and `Connection: close` are added.
    ///   - body: The body, or nil.
    /// - Throws: `Failure` (limit, early close, timeout) or the connect error.
    func send(
        _ method: HTTPMethod,
        _ target: String,
        to endpoint: Endpoint,
        headers: HTTPHeaders = [:],
        body: ByteBuffer? = nil
    ) async throws -> Response {
        let bootstrap = ClientBootstrap(group: self.group)
            .connectTimeout(self.timeout)
        let initializer:
            @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>> =
                {
                    channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
        let channel =
            switch endpoint {
            case .unixSocket(let path):
                try await bootstrap.connect(unixDomainSocketPath: path, channelInitializer: initializer)
            case .tcp(let host, let port):
                try await bootstrap.connect(host: host, port: port, channelInitializer: initializer)
            }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: "localhost")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body?.readableBytes ?? 0))
        let deadline = NIODeadline.now() + self.timeout
        let timer = channel.channel.eventLoop.scheduleTask(deadline: deadline) {
            channel.channel.close(promise: nil)
        }
        defer { timer.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            // One write for the whole request: a function may answer and close as soon as it has read the head,
            // and a later separate write of the end would then fail a request the function already served.
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body { parts.append(.body(.byteBuffer(body))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var response: Response?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    response = Response(status: head.status, headers: head.headers, body: ByteBuffer())
                case .body(var bytes):
                    guard response != nil else { throw Failure(description: "body before the head from \(endpoint)") }
                    guard (response?.body.readableBytes ?? 0) + bytes.readableBytes <= Self.responseByteLimit else {
                        throw Failure(description: "response from \(endpoint) over \(Self.responseByteLimit) bytes")
                    }
                    response?.body.writeBuffer(&bytes)
                case .end:
                    guard let response else { throw Failure(description: "no response head from \(endpoint)") }
                    return response
                }
            }
            throw Failure(
                description: NIODeadline.now() >= deadline
                    ? "no response from \(endpoint) within \(self.timeout.nanoseconds / 1_000_000) ms"
                    : "\(endpoint) closed the connection before the end of its response"
            )
        }
    }
}
