/// Where a status page taken in slices has got to (`Scheduler.statusPageSlice`): the next app to compare, the
/// count of matches so far, the rows listed so far and the page's `next`. A page of 1,000 rows taken in one loop
/// turn held every deadline due during it; in slices, a turn compares at most `compareLimit` apps, spends at most
/// about `stepLimit` steps of the pattern's matching, and snapshots at most `snapshotLimit`, whatever the fleet, the
/// names and the pattern.
///
/// Apps are never removed and are compared in registration order, so an index stays valid between slices. Each
/// row is a snapshot as of the slice that took it; `matched` counts each app as it was when compared. Pure value;
/// any thread.
@_spi(Driver)
public struct StatusPageCursor: Hashable, Sendable {
    /// The filter, start and size.
    public let query: StatusQuery
    /// The first index the page may list (after `query.after`).
    let start: Int
    /// The next index to compare.
    var index: Int
    /// One past the last index to compare: every app, or only `query.app`'s.
    let end: Int
    /// Rows listed so far.
    public internal(set) var listed = 0
    /// Apps that matched so far (before and after the page's start).
    public internal(set) var matched = 0
    /// Apps compared so far.
    public internal(set) var compared = 0
    /// Steps of the filter's matching so far (`AppPattern.matches(_:steps:)`).
    public internal(set) var steps = 0
    /// The last app listed when more matching apps follow it: the `after` of the next page.
    public internal(set) var next: AppID?
    /// The last app listed so far.
    var last: AppID?

    /// True once every app to compare was compared.
    public var isComplete: Bool { self.index >= self.end }

    init(query: StatusQuery, start: Int, range: Range<Int>) {
        self.query = query
        self.start = start
        self.index = range.lowerBound
        self.end = range.upperBound
    }
}

extension Scheduler {
    /// A cursor at the start of the page `query` asks for: an `after` that is not registered starts at the first
    /// app; with `query.app`, only that app's index is compared (nothing when it is not registered). O(1).
    public func statusPageCursor(_ query: StatusQuery) -> StatusPageCursor {
        let start = query.after.flatMap { self.appIndex[$0] }.map { $0 + 1 } ?? 0
        guard let only = query.app else {
            return StatusPageCursor(query: query, start: start, range: 0..<self.apps.count)
        }
        let index = self.appIndex[only]
        return StatusPageCursor(query: query, start: start, range: index.map { $0..<($0 + 1) } ?? 0..<0)
    }

    /// One slice of the page at `cursor`: compares the next apps, at most `compareLimit` of them and until the
    /// matching has taken `stepLimit` steps (one more compare may take up to about 65,000 past it: two 255-byte
    /// names), and snapshots those the page lists, at most `snapshotLimit`; advances `cursor`. At least one app is
    /// compared. Does not change anything else.
    ///
    /// - Parameters:
    ///   - cursor: Where the page has got to; `isComplete` once every app was compared.
    ///   - now: The caller's current instant (time in state, budget left).
    ///   - compareLimit: The most apps compared (at least 1).
    ///   - stepLimit: No app is compared once the slice's matching took this many steps.
    ///   - snapshotLimit: The most rows snapshotted (at least 1).
    /// - Returns: The rows this slice listed, in registration order.
    public func statusPageSlice(
        _ cursor: inout StatusPageCursor,
        now: Instant,
        compareLimit: Int,
        stepLimit: Int = .max,
        snapshotLimit: Int
    ) -> [AppStatus] {
        var rows: [AppStatus] = []
        let stop = cursor.index + min(max(1, compareLimit), cursor.end - cursor.index)
        let query = cursor.query
        let firstStep = cursor.steps
        while cursor.index < stop && rows.count < max(1, snapshotLimit)
            && (cursor.steps == firstStep || cursor.steps - firstStep < stepLimit)
        {
            let index = cursor.index
            cursor.index += 1
            cursor.compared += 1
            // The two fields are read in place: a copy of the whole record would retain and release its fields.
            guard query.matches(self.apps[index].id, in: self.apps[index].state, steps: &cursor.steps) else { continue }
            cursor.matched += 1
            guard index >= cursor.start else { continue }
            if cursor.listed < query.limit {
                if let status = self.status(of: self.apps[index].id, now: now, taskLimit: query.taskLimit) {
                    rows.append(status)
                    cursor.listed += 1
                    cursor.last = status.app
                }
            } else if cursor.next == nil {
                cursor.next = cursor.last
            }
        }
        return rows
    }
}
