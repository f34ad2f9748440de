/// Which apps a status request lists and how many: a filter (state, bundle identifier pattern), a page size and
/// where the page starts. Pure value; any thread.
@_spi(Driver)
public struct StatusQuery: Hashable, Sendable {
    /// Only this app; nil: any.
    public var app: AppID?
    /// Only apps in this state; nil: any.
    public var state: AppState?
    /// Only apps whose bundle identifier matches; nil: any.
    public var pattern: AppPattern?
    /// The page starts after this app (the `next` of the previous page), in registration order; nil: the first.
    public var after: AppID?
    /// The most apps listed (at least 1).
    public var limit: Int
    /// The most tasks listed per app (`AppStatus.tasks`).
    public var taskLimit: Int

    /// A query; `limit` is clamped to at least 1.
    public init(
        app: AppID? = nil,
        state: AppState? = nil,
        pattern: AppPattern? = nil,
        after: AppID? = nil,
        limit: Int = .max,
        taskLimit: Int = .max
    ) {
        self.app = app
        self.state = state
        self.pattern = pattern
        self.after = after
        self.limit = max(1, limit)
        self.taskLimit = taskLimit
    }

    /// Whether `app` in `state` passes the filter (not the page).
    public func matches(_ app: AppID, in state: AppState) -> Bool {
        var steps = 0
        return self.matches(app, in: state, steps: &steps)
    }

    /// Whether `app` in `state` passes the filter, adding to `steps` the pattern's steps (1 without a pattern).
    public func matches(_ app: AppID, in state: AppState, steps: inout Int) -> Bool {
        if let only = self.app, only != app { return false }
        if let wanted = self.state, wanted != state { return false }
        guard let pattern = self.pattern else {
            steps += 1
            return true
        }
        return pattern.matches(app.bundleIdentifier, steps: &steps)
    }
}

/// One page of a status request: the apps listed and how many matched in all.
@_spi(Driver)
public struct StatusPage: Sendable {
    /// The apps of this page that match, in registration order; at most `StatusQuery.limit`.
    public var statuses: [AppStatus]
    /// Apps that match the filter, over every registered app (before and after this page too).
    public var matched: Int
    /// The last app listed when more matching apps follow it: the `after` of the next page. Nil on the last page.
    public var next: AppID?

    /// A page with these fields (the core makes them; a stopped driver answers an empty one).
    public init(statuses: [AppStatus], matched: Int, next: AppID?) {
        self.statuses = statuses
        self.matched = matched
        self.next = next
    }
}

extension Scheduler {
    /// The page of app snapshots `query` asks for. Does not change anything.
    ///
    /// Work: one pass over the registered apps comparing each one's state and identifier (no allocation), and a
    /// snapshot (`status(of:now:taskLimit:)`) of at most `query.limit` apps, so a page costs the loop
    /// O(apps) compares plus O(limit) snapshots whatever the fleet.
    ///
    /// - Parameters:
    ///   - query: The filter, page start and size.
    ///   - now: The caller's current instant (time in state, budget left).
    /// - Returns: The page; an `after` that is not registered starts at the first app.
    /// - Note: The whole page in one call; `statusPageSlice` takes it in bounded slices, one per loop turn.
    public func statusPage(_ query: StatusQuery, now: Instant) -> StatusPage {
        var cursor = self.statusPageCursor(query)
        let statuses = self.statusPageSlice(&cursor, now: now, compareLimit: .max, snapshotLimit: .max)
        return StatusPage(statuses: statuses, matched: cursor.matched, next: cursor.next)
    }
}
