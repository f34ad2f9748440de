import ArgumentParser
import Foundation
import RunwayClient
import RunwayCore
import RunwayLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `runway bench-child` (hidden): the protocol app that `runway bench --processes` starts, one per app of its plan.
/// It is the `runway` executable itself, so that building `runway` (`swift build --product runway`, `swift run
/// runway`) builds the bench's load too.
///
/// Its script comes from its arguments: on `didBecomeActive` it begins `--tasks` background tasks over the app
/// protocol, one after the other, and returns (so the bench, which waits for the acknowledgement, knows they are
/// all begun); with `--end-after-milliseconds E` it ends them all E ms after `didEnterBackground` reached it, one
/// after the other; without, it never ends them and ignores `backgroundTaskWillExpire`. `--ignore-sigterm` makes
/// SIGTERM do nothing, so that only SIGKILL ends it. Every message is acknowledged as soon as it is handled; it
/// prints nothing unless a request fails (on standard error). Threading: `RunwayClient` hands messages to one
/// task in order; the ends run in a task of their own.
struct BenchChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-child",
        abstract: "The protocol app of `runway bench --processes` (started by it; not for direct use).",
        shouldDisplay: false
    )

    @Option(help: "Background tasks to begin on didBecomeActive.")
    var tasks: Int

    @Option(help: "End every task this many milliseconds after didEnterBackground; never when absent.")
    var endAfterMilliseconds: Int?

    @Flag(help: "Ignore SIGTERM.")
    var ignoreSigterm = false

    /// The tasks begun, shared by the message handler and the task that ends them.
    final class Tasks: Sendable {
        let ids = RunwayLock<[BackgroundTaskID]>([])
    }

    func run() async throws {
        if self.ignoreSigterm { signal(SIGTERM, SIG_IGN) }
        let client: RunwayClient
        do {
            client = try RunwayClient.fromEnvironment()
        } catch {
            printError("runway bench-child: \(error)")
            throw ExitCode.validationFailure
        }
        let tasks = Tasks()
        let count = self.tasks
        let endAfter = self.endAfterMilliseconds
        await client.run { message in
            switch message {
            case .didBecomeActive:
                guard tasks.ids.withLock({ $0.isEmpty }) else { return }
                for _ in 0..<count {
                    do {
                        let id = try await client.beginBackgroundTask(name: "bench")
                        tasks.ids.withLock { $0.append(id) }
                    } catch {
                        printError("runway bench-child: beginBackgroundTask failed: \(error)")
                    }
                }
            case .didEnterBackground:
                guard let endAfter else { return }
                Task {
                    try? await Task.sleep(for: .milliseconds(endAfter))
                    for id in tasks.ids.withLock({ $0 }) {
                        do { try await client.endBackgroundTask(id) } catch {
                            printError("runway bench-child: endBackgroundTask \(id) failed: \(error)")
                        }
                    }
                }
            default:
                break
            }
        }
    }
}
