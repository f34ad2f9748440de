// The Swift sample function of the function host (Examples/FunctionHost/README.md): a Runway protocol app
// (RunwayClient) that serves the same HTTP surface as Functions/python_function.py with Hummingbird, on the Unix
// socket named by FUNCTION_SOCKET. It listens before acknowledging `didFinishLaunching`, so the host can send the
// first request as soon as the launch is done; it preserves its count in `didEnterBackground` and takes it back
// on a launch that restores (Behaviour.md R1, R2); its expiration handler stops the work of a `POST /work`.

import Foundation
import Hummingbird
import Logging
import RunwayClient
import RunwayCore

let environment = ProcessInfo.processInfo.environment
guard let socketPath = environment["FUNCTION_SOCKET"] else {
    FileHandle.standardError.write(Data("SwiftFunction: FUNCTION_SOCKET is not set: run it under Runway\n".utf8))
    exit(64)
}
let client: RunwayClient
do {
    client = try RunwayClient.fromEnvironment()
} catch {
    FileHandle.standardError.write(Data("SwiftFunction: \(error)\n".utf8))
    exit(64)
}
let function = FunctionState(name: environment["FUNCTION_NAME"] ?? "swift", client: client)

var logger = Logger(label: "SwiftFunction")
logger.logLevel = .warning
let (listening, listened) = AsyncStream<Void>.makeStream()
let application = Application(
    router: makeRouter(function),
    configuration: .init(address: .unixDomainSocket(path: socketPath)),
    onServerRunning: { _ in listened.yield() },
    logger: logger
)
let server = Task {
    do {
        try await application.run()
    } catch {
        say("the server stopped: \(error)")
        exit(70)
    }
}
// Lifecycle messages wait (unacknowledged) until the socket listens.
for await _ in listening { break }

await client.run { message, restoration in
    switch message {
    case .didFinishLaunching:
        if let restoration { function.restore(restoration) }
    case .didEnterBackground:
        await function.preserve()
    case .backgroundTaskWillExpire(let task):
        function.expire(task)
    default:
        break
    }
}
unlink(socketPath)
exit(0)
