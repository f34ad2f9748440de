import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Any method on `/fn/NAME/REST`: brings function NAME to the foreground and proxies the request to it over its
/// Unix socket as `METHOD /REST?query`, returning its response with `Runway-Start` added. A middleware rather than
/// routes, so that every method reaches it. An unknown function is a 404 naming it.
struct FunctionProxy<Context: RequestContext>: RouterMiddleware {
    let host: HostRuntime
    let client: HTTPClient

    /// The most bytes of request body forwarded (1 MiB); a larger body is refused with 413 naming the limit.
    static var requestByteLimit: Int { ProxyLimits.requestByteLimit }
    /// Headers that describe one connection, not the message: not forwarded either way.
    static var hopByHop: Set<String> {
        ["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade", "te", "trailer"]
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/fn/") else { return try await next(request, context) }
        let rest = path.dropFirst("/fn/".count)
        let name = String(rest.prefix { $0 != "/" })
        guard let slot = self.host.slots[name] else {
            return Self.json(.notFound, ["error": "no function named \(name)", "function": name])
        }
        var target = String(rest.dropFirst(name.count))
        if target.isEmpty { target = "/" }
        // A dot segment would let a request name a path outside the function's own (`/fn/a/../b/x` reaching `a`
        // as `/../b/x`): refused rather than forwarded.
        let dotSegments: Set<String> = [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."]
        if target.split(separator: "/").contains(where: { dotSegments.contains($0.lowercased()) }) {
            return Self.json(.badRequest, ["error": "a path with a . or .. segment", "function": name])
        }
        if let query = request.uri.query, !query.isEmpty { target += "?" + query }
        let body = request.body
        let bytes: ByteBuffer
        do {
            bytes = try await body.collect(upTo: Self.requestByteLimit)
        } catch {
            return Self.json(
                .contentTooLarge,
                ["error": "request body over the limit of \(Self.requestByteLimit) bytes", "function": name]
            )
        }
        var headers = HTTPHeaders()
        for field in request.headers where !Self.hopByHop.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        let start: StartKind
        do {
            start = try await slot.requestStarted()
        } catch {
            await slot.requestEnded()
            return Self.json(.serviceUnavailable, ["error": "\(error)", "function": name])
        }
        let response: HTTPClient.Response
        do {
            response = try await self.client.send(
                HTTPMethod(rawValue: request.method.rawValue),
                target,
                to: .unixSocket(slot.socketPath),
                headers: headers,
                body: bytes.readableBytes > 0 ? bytes : nil
            )
        } catch {
            await slot.requestEnded()
            return Self.json(.badGateway, ["error": "\(error)", "function": name], start: start)
        }
        await slot.requestEnded()
        // Only a final status is passed on: a 1xx (a 101 would tell the front end that the connection changed
        // protocol) or a code outside HTTP's range from a function is a bad gateway.
        guard (200...599).contains(Int(response.status.code)) else {
            return Self.json(
                .badGateway,
                ["error": "the function answered with status \(response.status.code), not 200-599", "function": name],
                start: start
            )
        }
        var fields = HTTPFields()
        for (field, value) in response.headers where !Self.hopByHop.contains(field.lowercased()) {
            if let name = HTTPField.Name(field) { fields.append(HTTPField(name: name, value: value)) }
        }
        fields[Self.startHeader] = start.rawValue
        return Response(
            status: HTTPResponse.Status(code: Int(response.status.code)),
            headers: fields,
            body: ResponseBody(byteBuffer: response.body)
        )
    }

    static var startHeader: HTTPField.Name { HTTPField.Name("Runway-Start")! }

    /// A JSON error body (string values only), with `Runway-Start` when the function was reached.
    static func json(_ status: HTTPResponse.Status, _ object: [String: String], start: StartKind? = nil) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let start { fields[Self.startHeader] = start.rawValue }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The proxy's bounds, outside the generic type so that they can be named without a request context.
enum ProxyLimits {
    /// The most bytes of request body forwarded to a function: 1 MiB.
    static let requestByteLimit = 1 << 20
}
