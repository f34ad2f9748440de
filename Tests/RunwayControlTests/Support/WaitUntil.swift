import Foundation
import Testing

/// Polls `condition` every 10 ms for up to 20 s (generous, never a measurement); records an issue naming `what`
/// when it never holds.
func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            return
        }
        Thread.sleep(forTimeInterval: 0.01)
    }
}
