@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// B1 under the task limits: an app may hold at most `taskLimitPerApp` outstanding tasks with names
/// of at most `taskNameByteLimit` UTF-8 bytes; one more is refused with a refusal that names the limit, and
/// nothing changes. On the manual clock of the simulated driver and on the bare core.
@Suite struct TaskLimitTests {
    @Test func B1_defaultLimitsAreAThousandTasksPerAppAndNamesOf256Bytes() {
        let settings = SchedulerSettings()
        #expect(settings.taskLimitPerApp == 1_000)
        #expect(settings.taskNameByteLimit == 256)
    }

    @Test func B1_theTaskBeyondTaskLimitPerAppIsRefusedNamingTheLimitAndNothingChanges() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps)]).launched(mail).launched(maps)
        let name = String(repeating: "n", count: 256)
        var granted: [BackgroundTaskID] = []
        for _ in 0..<1_000 { granted.append(driver.beginTask(name, in: mail)) }
        #expect(!granted.contains(.invalid))
        let eventsBefore = driver.events.count
        driver.advance(by: .seconds(1))

        let refused = driver.beginTask(name, in: mail)

        #expect(refused == .invalid)
        // Expected: the refusal in the log, exactly, naming the limit; the app still holds its 1,000 tasks.
        let entry = try #require(driver.log.last)
        #expect(entry.what == .taskRefused(mail, .tooManyTasks(limit: 1_000)))
        #expect(
            TaskRefusal.tooManyTasks(limit: 1_000).description
                == "tooManyTasks: the app already holds 1000 outstanding background tasks, the limit (TaskLimitPerApp)"
        )
        #expect(driver.outstandingTasks(of: mail) == granted)
        #expect(driver.events.count == eventsBefore)
        // The limit is per app: another app begins a task, and the refused request consumed no id (B1).
        #expect(driver.beginTask("other", in: maps) == BackgroundTaskID(rawValue: 1_001))
        // Ending one makes room for one.
        try driver.endTask(granted[0], in: mail)
        #expect(driver.beginTask(name, in: mail) == BackgroundTaskID(rawValue: 1_002))
        #expect(driver.beginTask(name, in: mail) == .invalid)
    }

    @Test func B1_theLimitHoldsInTheBackgroundAndTheStatusListsOnlyGrantedTasks() throws {
        var scheduler = try makeScheduler(settings: SchedulerSettings(taskLimitPerApp: 2))
        try scheduler.run(.launch, for: mail, now: at(0))
        let first = scheduler.beginTask("a", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let second = scheduler.beginTask("b", in: mail, now: at(2))

        let refused = scheduler.backgroundTaskRequested(name: "c", by: mail, now: at(3))

        #expect(refused.id == .invalid && refused.refusal == .tooManyTasks(limit: 2) && refused.actions == [])
        let status = try #require(scheduler.status(of: mail, now: at(3)))
        #expect(status.tasks.map(\.id) == [first, second])
        #expect(status.tasks.map(\.name) == ["a", "b"])
    }

    @Test func B1_aNameLongerThanTaskNameByteLimitIsRefusedNamingTheLimitCountingBytes() throws {
        var scheduler = try makeScheduler(settings: SchedulerSettings(taskNameByteLimit: 8))
        try scheduler.run(.launch, for: mail, now: at(0))

        // Expected: 8 bytes pass; 9 do not; "é" is two bytes, so four pass and five do not.
        #expect(scheduler.backgroundTaskRequested(name: "12345678", by: mail, now: at(1)).refusal == nil)
        let ascii = scheduler.backgroundTaskRequested(name: "123456789", by: mail, now: at(1))
        #expect(ascii.id == .invalid && ascii.refusal == .nameTooLong(limit: 8) && ascii.actions == [])
        #expect(scheduler.backgroundTaskRequested(name: "éééé", by: mail, now: at(1)).refusal == nil)
        let accented = scheduler.backgroundTaskRequested(name: "ééééé", by: mail, now: at(1))
        #expect(accented.id == .invalid && accented.refusal == .nameTooLong(limit: 8) && accented.actions == [])
        #expect(
            TaskRefusal.nameTooLong(limit: 8).description
                == "nameTooLong: the task name is longer than 8 bytes, the limit (TaskNameByteLimit)"
        )
        #expect(scheduler.status(of: mail, now: at(1))?.tasks.map(\.name) == ["12345678", "éééé"])
    }

    @Test func B1_aStateRefusalComesBeforeTheLimits() throws {
        var scheduler = try makeScheduler(settings: SchedulerSettings(taskLimitPerApp: 1, taskNameByteLimit: 1))
        // Expected: not running is the reason, whatever the name.
        let refused = scheduler.backgroundTaskRequested(name: "far too long", by: mail, now: at(0))
        #expect(refused.refusal == .notRunning)
    }
}

/// K2: a status snapshot lists the first tasks still outstanding, in begin order, up to the limit asked for, and
/// counts every one; tasks that ended are skipped, not listed or counted.
@Suite struct StatusTaskLimitTests {
    @Test func K2_aStatusListsTheFirstOutstandingTasksUpToTheLimitAndCountsThemAll() throws {
        var driver = makeDriver([AppDescriptor(id: mail)]).launched(mail)
        var granted: [BackgroundTaskID] = []
        for number in 0..<40 { granted.append(driver.beginTask("task \(number)", in: mail)) }
        // The first ten end (fewer than half: the app's list keeps their ids until it is compacted).
        for task in granted.prefix(10) { try driver.endTask(task, in: mail) }

        let status = try #require(driver.scheduler.status(of: mail, now: driver.now, taskLimit: 5))
        #expect(status.tasks.map(\.id) == Array(granted[10..<15]))
        #expect(status.tasks.map(\.name) == (10..<15).map { "task \($0)" })
        #expect(status.taskCount == 30)
        let none = try #require(driver.scheduler.status(of: mail, now: driver.now, taskLimit: 0))
        #expect(none.tasks.isEmpty)
        #expect(none.taskCount == 30)
        let all = try #require(driver.scheduler.status(of: mail, now: driver.now))
        #expect(all.tasks.map(\.id) == Array(granted[10...]))
    }
}
