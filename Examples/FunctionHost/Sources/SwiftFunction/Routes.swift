// The function's HTTP surface (Examples/FunctionHost/README.md): `GET /`, `POST /work?ms=N`, `GET /echo?x=S`.

import Foundation
import Hummingbird

struct WorkAnswer: Codable {
    var accepted: Int
}

extension CountAnswer: ResponseEncodable {}
extension WorkAnswer: ResponseEncodable {}

/// The router: each route counts the request it serves.
func makeRouter(_ function: FunctionState) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/") { _, _ -> CountAnswer in
        let count = function.served()
        return CountAnswer(function: function.name, count: count, pid: getpid(), restored: function.restored)
    }
    router.get("/echo") { request, _ -> String in
        _ = function.served()
        return request.uri.queryParameters.get("x") ?? ""
    }
    router.post("/work") { request, _ -> Response in
        let parameters = request.uri.queryParameters
        guard let milliseconds = parameters.get("ms", as: Int.self), (0...workMillisecondsLimit).contains(milliseconds)
        else {
            throw HTTPError(.badRequest, message: "ms must be an integer from 0 to \(workMillisecondsLimit)")
        }
        _ = function.served()
        let start = await function.beginWork(
            milliseconds: milliseconds,
            ignoringExpiration: parameters.get("ignoreExpiration") == "1"
        )
        let body = ByteBuffer(string: #"{"accepted":\#(milliseconds)}"#)
        // The work starts once the body is written: after the response, as `waitUntil` does.
        let writing = ResponseBody(contentLength: body.readableBytes) { writer in
            try await writer.write(body)
            try await writer.finish(nil)
            start()
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: writing)
    }
    return router
}
