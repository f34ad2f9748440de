@_spi(Driver) import RunwayCore

// `status` pages taken in bounded slices, one per loop turn (`StatusPageCursor`), for the control socket, and one
// app's snapshot for a command's reply.

extension RunwayScheduler {
    /// A cursor at the start of the page `query` asks for (`statusPageSlice` takes it in slices). O(1); nil after
    /// shutdown.
    package func statusPageCursor(_ query: StatusQuery) -> StatusPageCursor? {
        self.bridge.sync { $0.runner.core.statusPageCursor(query) }
    }

    /// One bounded slice of a status page: at most `compareLimit` apps compared, matching stopped after about
    /// `stepLimit` steps, and `snapshotLimit` snapshotted, with a fresh clock reading; advances `cursor`. The rows
    /// listed, or nil after shutdown.
    package func statusPageSlice(
        _ cursor: inout StatusPageCursor,
        compareLimit: Int,
        stepLimit: Int = .max,
        snapshotLimit: Int
    ) -> [AppStatus]? {
        let start = cursor
        let result: (StatusPageCursor, [AppStatus])? = self.bridge.sync { driver in
            var cursor = start
            let rows = driver.runner.core.statusPageSlice(
                &cursor,
                now: driver.loop.now(),
                compareLimit: compareLimit,
                stepLimit: stepLimit,
                snapshotLimit: snapshotLimit
            )
            return (cursor, rows)
        }
        guard let result else { return nil }
        cursor = result.0
        return result.1
    }

    /// One app's snapshot (K2) with at most `taskLimit` tasks listed, read with a fresh clock reading: O(1), where
    /// `status()` snapshots every app. Nil for an unknown app or after shutdown.
    package func status(of app: AppID, taskLimit: Int = 0) -> AppStatus? {
        self.bridge.sync { $0.runner.core.status(of: app, now: $0.loop.now(), taskLimit: taskLimit) } ?? nil
    }
}
