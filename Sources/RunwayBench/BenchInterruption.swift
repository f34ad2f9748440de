import Dispatch
import Foundation
import Runway

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM during `runway bench --processes`. An interrupted bench must not leave its stopped or
/// frozen children behind: a stopped child in a session of its own never sees the end of its channel and gets
/// no SIGCONT, so it would stay stopped for good. Here the signal makes the run's scheduler shut down (every app
/// terminated by the terminate rows, a stopped or frozen one included, within its graces), and the bench then
/// exits with 128 + the signal's number.
///
/// Installed for one run and cancelled after it; the handlers run on a global dispatch queue.
package struct BenchInterruption {
    private let sources: [any DispatchSourceSignal]

    /// Takes SIGINT and SIGTERM from their default action until `cancel()`.
    package static func install(shuttingDown scheduler: RunwayScheduler) -> BenchInterruption {
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Task {
                    FileHandle.standardError.write(
                        Data("runway bench: interrupted by signal \(number); terminating the bench's children\n".utf8)
                    )
                    await scheduler.shutdown()
                    exit(128 + number)
                }
            }
            source.resume()
            return source
        }
        return BenchInterruption(sources: sources)
    }

    /// Gives SIGINT and SIGTERM their default action back.
    package func cancel() {
        for source in self.sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
