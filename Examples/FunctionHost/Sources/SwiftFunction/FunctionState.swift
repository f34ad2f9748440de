// The Swift sample function's state: the count it serves and preserves, whether this run was restored, and the
// stop flags of the work in flight (one per background task).

import Foundation
import RunwayClient
import RunwayCore
import Synchronization

/// What `GET /` answers.
struct CountAnswer: Codable {
    var function: String
    var count: Int
    var pid: Int32
    var restored: Bool
}

/// The preserved state: `{"count":N}`, as the Python sample preserves it.
struct PreservedCount: Codable {
    var count: Int
}

/// Set by the expiration handler of a work's task; read by the thread doing the work.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)

    var isStopped: Bool { self.stopped.load(ordering: .relaxed) }

    func stop() { self.stopped.store(true, ordering: .relaxed) }
}

/// The function's state, shared by the HTTP handlers and the lifecycle handler.
///
/// Threading: every method may be called from any task or thread (one lock).
final class FunctionState: Sendable {
    private struct Inner {
        var count = 0
        var restored = false
        var stops: [BackgroundTaskID: StopFlag] = [:]
    }

    let name: String
    let client: RunwayClient
    private let inner = Mutex(Inner())

    init(name: String, client: RunwayClient) {
        self.name = name
        self.client = client
    }

    /// Counts one served request and returns the count, this request included.
    func served() -> Int {
        self.inner.withLock { inner in
            inner.count += 1
            return inner.count
        }
    }

    /// Whether this run began from a preserved state.
    var restored: Bool { self.inner.withLock { $0.restored } }

    /// Takes the count of a launch that restores (`didFinishLaunching` with a `Restoration`).
    func restore(_ restoration: Restoration) {
        guard let state = try? JSONDecoder().decode(PreservedCount.self, from: Data(restoration.text.utf8)) else {
            say("restored state unreadable, starting from 0")
            return
        }
        self.inner.withLock { inner in
            inner.count = state.count
            inner.restored = true
        }
        say("restored count \(state.count) (\(restoration.reason))")
    }

    /// Preserves the count (in `didEnterBackground`); returns once Runway stored it.
    func preserve() async {
        let count = self.inner.withLock { $0.count }
        do {
            try await self.client.preserveState(text: #"{"count":\#(count)}"#)
            say("preserved count \(count)")
        } catch {
            say("count not preserved: \(error)")
        }
    }

    /// Remembers the stop flag of a work's task, for its expiration handler.
    func track(_ task: BackgroundTaskID, _ flag: StopFlag) {
        self.inner.withLock { $0.stops[task] = flag }
    }

    /// Forgets a work's task once its work returned.
    func untrack(_ task: BackgroundTaskID) {
        _ = self.inner.withLock { $0.stops.removeValue(forKey: task) }
    }

    /// The expiration handler (`backgroundTaskWillExpire`): stops the task's work, which then ends the task.
    func expire(_ task: BackgroundTaskID) {
        let flag = self.inner.withLock { $0.stops[task] }
        flag?.stop()
        say("task \(task.rawValue) will expire: work \(flag == nil ? "goes on" : "stopped")")
    }
}

/// One line on stdout, written at once (Runway keeps it in the app's log).
func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}
