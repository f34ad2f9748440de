@_spi(Benchmarks) import RunwayTestKit
import Testing

@testable import RunwayCore

@Suite struct TaskTableTests {
    @Test func aLongLivedTaskAmongManyShortOnesKeepsMemoryProportionalToOutstandingTasks() {
        var table = TaskTable()
        var next: UInt64 = 1
        func begin(_ app: Int) -> BackgroundTaskID {
            let id = BackgroundTaskID(rawValue: next)
            table.insert(id, name: "t\(next)", began: .origin, app: app)
            next += 1
            return id
        }
        let longLived = begin(7)
        for _ in 0..<100_000 {
            let short = begin(1)
            let removed = table.remove(short)
            #expect(removed)
        }
        // The long-lived task survived every compaction and is still found, with its owner and name.
        #expect(table.owner(of: longLived) == 7)
        #expect(table.entry(longLived)?.name == "t1")
        #expect(table.count == 1)
        let removedTwice = table.remove(BackgroundTaskID(rawValue: 2))
        #expect(!removedTwice)
        let removedLongLived = table.remove(longLived)
        #expect(removedLongLived)
        #expect(table.count == 0)
        #expect(table.owner(of: longLived) == nil)
    }

    @Test(arguments: [3, 11, 2026] as [UInt64])
    func randomBeginsAndEndsMatchADictionary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = TaskTable()
        var reference: [BackgroundTaskID: Int] = [:]
        var issued: [BackgroundTaskID] = []
        var next: UInt64 = 1
        for _ in 0..<20_000 {
            if random.next(below: 3) > 0 || issued.isEmpty {
                let id = BackgroundTaskID(rawValue: next)
                let app = Int(random.next(below: 5))
                next += 1
                table.insert(id, name: "", began: .origin, app: app)
                reference[id] = app
                issued.append(id)
            } else {
                let id = issued[Int(random.next(below: UInt64(issued.count)))]
                let removed = table.remove(id)
                #expect(removed == (reference.removeValue(forKey: id) != nil))
            }
            #expect(table.count == reference.count)
        }
        for id in issued {
            #expect(table.owner(of: id) == reference[id])
        }
    }

    @Test func compactionIsIncrementalSoNoSingleCallMovesMoreThanOneStep() {
        var table = TaskTable()
        let total: UInt64 = 100_000
        for raw in 1...total {
            table.insert(BackgroundTaskID(rawValue: raw), name: "", began: .origin, app: Int(raw % 7))
        }
        // End three quarters and a bit, keeping every fifth task: the table becomes sparse and a migration starts.
        var survivors: [BackgroundTaskID] = []
        var maximumStep = 0
        for raw in 1...total {
            let id = BackgroundTaskID(rawValue: raw)
            if raw % 5 == 0 {
                survivors.append(id)
                continue
            }
            let before = table.migrationBacklog
            table.remove(id)
            let after = table.migrationBacklog
            if before > 0 { maximumStep = max(maximumStep, before - after) }
        }
        #expect(maximumStep <= TaskTable.migrationStep)
        // Keep operating until the migration is done: every survivor is still found with its owner.
        var next = total + 1
        while table.migrationBacklog > 0 {
            let id = BackgroundTaskID(rawValue: next)
            table.insert(id, name: "", began: .origin, app: 0)
            table.remove(id)
            next += 1
        }
        #expect(table.count == survivors.count)
        for id in survivors { #expect(table.owner(of: id) == Int(id.rawValue % 7)) }
    }
}
