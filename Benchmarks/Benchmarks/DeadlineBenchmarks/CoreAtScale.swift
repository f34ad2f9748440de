// The core's two hot operations with 100,000 tasks outstanding, beside the same work near none (their cost must not
// grow with the tasks held):
// - "begin-end-pairs-at-100k-outstanding": one background app holding 100,000 tasks (begun while active, B2), then
//   10,000 × (`backgroundTaskRequested` + `backgroundTaskEnded`) of one more task; per pair = median / 10,000.
// - "expiry-with-handler-at-100k": the same app, then `clockAdvanced` to its expiration warning (one
//   `backgroundTaskWillExpire` queued per task, the first delivered) and every expiration returned at once (a handler
//   that returns at once), so all 100,000 handlers run; per expiry = median / 100,000. The work of
//   `expiry-at-once-100k.runway-core-every-expiration-returned`, on this fixture.
// Each exists once through the `[Action]`-returning calls, as before, and once through the calls that write the
// actions into a buffer the caller keeps (`into:`), which is what `ActionRunner` uses.
// `Sources/CoreInstructions` does the same work for callgrind's instruction counts (Scripts/instructions.py).

import Benchmark
@_spi(Driver) import RunwayCore

/// Tasks outstanding in the fixture of both groups.
let outstandingAtScale = 100_000

func registerCoreAtScale() {
    let configuration = Benchmark.Configuration(warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 20)

    Benchmark("begin-end-pairs-at-100k-outstanding.runway-core-requested-ended", configuration: configuration) {
        benchmark in
        var scheduler = backgroundScheduler(tasksBegunInForeground: outstandingAtScale).scheduler
        benchmark.startMeasurement()
        for _ in 0..<pairCount {
            let grant = scheduler.backgroundTaskRequested(name: "pair", by: benchmarkApp, now: inBackground)
            blackHole(try! scheduler.backgroundTaskEnded(grant.id, by: benchmarkApp, now: inBackground))
        }
        benchmark.stopMeasurement()
        precondition(scheduler.state(of: benchmarkApp) == .background, "The outstanding tasks should keep the app up")
    }

    Benchmark("expiry-with-handler-at-100k.runway-core-every-expiration-returned", configuration: configuration) {
        benchmark in
        var scheduler = backgroundScheduler(tasksBegunInForeground: outstandingAtScale).scheduler
        let warning = Instant.origin + .seconds(25)
        benchmark.startMeasurement()
        let returned = acknowledgeAll(scheduler.clockAdvanced(to: warning), in: &scheduler, now: warning)
        benchmark.stopMeasurement()
        precondition(returned == outstandingAtScale, "Expected \(outstandingAtScale) expirations, got \(returned)")
    }

    Benchmark("begin-end-pairs-at-100k-outstanding.runway-core-into-buffer", configuration: configuration) {
        benchmark in
        var scheduler = backgroundScheduler(tasksBegunInForeground: outstandingAtScale).scheduler
        var actions: [Action] = []
        benchmark.startMeasurement()
        for _ in 0..<pairCount {
            let grant = scheduler.backgroundTaskRequested(
                name: "pair",
                by: benchmarkApp,
                now: inBackground,
                into: &actions
            )
            try! scheduler.backgroundTaskEnded(grant.id, by: benchmarkApp, now: inBackground, into: &actions)
            blackHole(actions)
        }
        benchmark.stopMeasurement()
        precondition(scheduler.state(of: benchmarkApp) == .background, "The outstanding tasks should keep the app up")
    }

    Benchmark("expiry-with-handler-at-100k.runway-core-into-buffer", configuration: configuration) { benchmark in
        var scheduler = backgroundScheduler(tasksBegunInForeground: outstandingAtScale).scheduler
        let warning = Instant.origin + .seconds(25)
        var actions: [Action] = []
        var returned = 0
        benchmark.startMeasurement()
        scheduler.clockAdvanced(to: warning, into: &actions)
        while let token = deliveryToken(in: actions) {
            scheduler.messageReturned(token, from: benchmarkApp, now: warning, into: &actions)
            returned += 1
        }
        benchmark.stopMeasurement()
        precondition(returned == outstandingAtScale, "Expected \(outstandingAtScale) expirations, got \(returned)")
    }
}
