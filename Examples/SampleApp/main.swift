// A protocol app in Swift (Behaviour.md A4) used by tests and the demo: it prints every lifecycle message, and on
// entering the background it begins a background task "flush" that it ends after SAMPLE_TASK_SECONDS seconds
// (default 1), or never when the value is "never" (a task that ignores expiration, S12).
// SAMPLE_END_ON_EXPIRE=1 makes it end the task when its expiration handler is called.
// State restoration (R1, R2): a counter, one more at each didBecomeActive, preserved as {"counter":N} in
// didEnterBackground (before the task) and restored from the launch's `Restoration`, as the Python sample does.

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

/// The counter. Safe unsynchronized: only `run`'s handler touches it, and `run` calls it for one message at a time,
/// each call after the previous one returned.
nonisolated(unsafe) var counter = 0

struct CounterState: Codable {
    var counter: Int
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

await client.run { message, restoration in
    say("received \(message)")
    switch message {
    case .didFinishLaunching:
        guard let restoration else { break }
        guard let state = try? JSONDecoder().decode(CounterState.self, from: Data(restoration.text.utf8)) else {
            say("restored state unreadable, starting from 0")
            break
        }
        counter = state.counter
        say("restored counter \(state.counter) (\(restoration.reason))")
    case .didBecomeActive:
        counter += 1
        say("counter \(counter) (didBecomeActive)")
    case .didEnterBackground:
        let value = counter
        let text = #"{"counter":\#(value)}"#
        do {
            try await client.preserveState(text: text)
            say("preserved counter \(value)")
        } catch {
            say("state not preserved: \(error)")
        }
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
