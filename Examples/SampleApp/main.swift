// A protocol app in Swift (Behaviour.md A4) used by tests and the demo: it prints every lifecycle message, and on
// entering the background it begins a background task "flush" that it ends after SAMPLE_TASK_SECONDS seconds
// (default 1), or never when the value is "never" (a task that ignores expiration, S12).
// SAMPLE_END_ON_EXPIRE=1 makes it end the task when its expiration handler is called.

import Foundation
import RunwayClient
import RunwayCore

#if canImport(Glibc)
import Glibc
#endif

/// One line on stdout, written at once (Runway logs it under the app's identifier).
func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}

let environment = ProcessInfo.processInfo.environment
let taskSeconds = environment["SAMPLE_TASK_SECONDS"] ?? "1"
let endOnExpire = environment["SAMPLE_END_ON_EXPIRE"] == "1"

let client: RunwayClient
do {
    client = try RunwayClient.fromEnvironment()
} catch {
    FileHandle.standardError.write(Data("runway-sample-app: \(error)\n".utf8))
    exit(64)
}

await client.run { message in
    say("received \(message)")
    switch message {
    case .didEnterBackground:
        guard let task = try? await client.beginBackgroundTask(name: "flush"), task != .invalid else {
            say("no background task")
            return
        }
        let remaining = (try? await client.backgroundTimeRemaining()) ?? 0
        say("began \(task), \(remaining) s remaining")
        guard let seconds = Double(taskSeconds) else { return }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            do {
                try await client.endBackgroundTask(task)
                say("ended \(task)")
            } catch {
                say("end \(task) failed: \(error)")
            }
        }
    case .backgroundTaskWillExpire(let task):
        if endOnExpire {
            try? await client.endBackgroundTask(task)
            say("ended \(task) on expiration")
        }
    default:
        break
    }
}
say("channel closed")
