import Foundation
import Hummingbird
import Logging
import NIOCore

/// The host's HTTP server: the proxy for `/fn/NAME/...`, the status page and JSON, and the pressure endpoint.
enum HostServer {
    /// The router over `host`: see README.md, "The host's HTTP surface".
    static func router(for host: HostRuntime, client: HTTPClient = HTTPClient()) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: FunctionProxy<BasicRequestContext>(host: host, client: client))
        router.get("/status") { _, _ in
            var fields = HTTPFields()
            fields[.contentType] = "text/html; charset=utf-8"
            return Response(
                status: .ok,
                headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(string: StatusPage.html))
            )
        }
        router.get("/status.json") { _, _ in
            Self.jsonResponse(await host.snapshot())
        }
        router.post("/admin/pressure") { _, _ in
            Self.jsonResponse(["purged": host.purgeSuspended()])
        }
        return router
    }

    static func jsonResponse(_ value: some Encodable) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The application on `address` (port 0 picks a free one); `onRunning` gets the port bound.
    static func application(
        host: HostRuntime,
        hostname: String,
        port: Int,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: Self.router(for: host),
            configuration: ApplicationConfiguration(
                address: .hostname(hostname, port: port),
                serverName: "function-host"
            ),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
