@_spi(Processes) import Runway
@_spi(Processes) @_spi(Driver) import RunwayCore

// A `status` page asked on a connection is taken in slices, one per loop turn: a page of 1,000 rows taken in one
// turn (about 5 ms at 10,000 apps) held every deadline due during it. A turn compares at most
// `statusSliceCompareLimit` apps and snapshots at most `statusSliceRowLimit` of them, whatever the fleet, the page
// and the number of clients: the pages in progress take turns, one slice per loop turn in all. Each row is a
// snapshot as of its slice; the page is encoded off the loop once complete (`ControlService+Encoding.swift`) and
// sent in its connection's order (`ReplyOrder`).

/// A status page in progress for one request.
struct StatusPageWork {
    let connection: ControlSocketServer.ConnectionID
    let ticket: UInt64
    let id: Int?
    let app: AppID?
    let history: Bool
    var cursor: StatusPageCursor
    var apps: [AppStatusPayload] = []
}

/// The status pages in progress, served one slice per loop turn in turn, and what the slices did (tests count it).
/// Loop thread only.
struct StatusPageQueue {
    /// Work per slice, counted.
    struct Counts: Hashable, Sendable {
        /// Slices taken, one per loop turn.
        var slices = 0
        /// The most apps one slice compared.
        var mostCompared = 0
        /// The most rows one slice snapshotted.
        var mostRows = 0
        /// Pages completed and handed to the encoder.
        var pages = 0
    }

    /// Oldest first; the page a slice is taken from goes to the back when not complete.
    var waiting: [StatusPageWork] = []
    /// True while a slice is queued on the loop.
    var isScheduled = false
    var counts = Counts()
}

extension ControlService {
    /// The most apps one slice of a status page compares with the request's filter (no copy, no allocation: a few
    /// nanoseconds each without a pattern).
    static let statusSliceCompareLimit = 2_048

    /// The most steps of pattern matching one slice takes (`AppPattern.matches(_:steps:)`): a pattern's compare
    /// costs up to about pattern bytes × name bytes, some 65,000 steps for two 255-byte names, so the compares
    /// alone do not bound a turn. 131,072 steps is a few hundred microseconds on the release build.
    static let statusSliceStepLimit = 131_072

    /// The most rows one slice of a status page snapshots, with their process rows (a row costs the loop a few
    /// microseconds, more with tasks).
    static let statusSliceRowLimit = 32

    /// `status` on a connection: an invalid request or a summary is answered now; a page is started in slices and
    /// answered when complete (nil: the reply comes later). Loop thread.
    func statusOnConnection(
        _ request: ControlRequest,
        app: AppID?,
        id: Int?,
        connection: ControlSocketServer.ConnectionID
    ) -> ControlReply? {
        if request.summary == true { return self.summaryReply(request, app: app, id: id) }
        let query: StatusQuery
        switch Self.statusQuery(request, app: app) {
        case .success(let value): query = value
        case .failure(let problem): return .failure(problem.code, problem.message, id: id)
        }
        guard self.replyOrder.encoding(for: connection) < Self.statusEncodingLimit else {
            return Self.tooManyStatusRequests(id: id)
        }
        guard let cursor = self.scheduler.statusPageCursor(query) else {
            return .failure("stopping", "stopping: the daemon is not serving", id: id)
        }
        let work = StatusPageWork(
            connection: connection,
            ticket: self.replyOrder.reserve(for: connection),
            id: id,
            app: app,
            history: request.history ?? (app != nil),
            cursor: cursor
        )
        self.statusPages.waiting.append(work)
        self.scheduleStatusSlice()
        return nil
    }

    /// Queues the next slice on the loop (a later turn), unless one is queued or nothing waits.
    private func scheduleStatusSlice() {
        guard !self.statusPages.isScheduled, !self.statusPages.waiting.isEmpty else { return }
        self.statusPages.isScheduled = self.scheduler.loopThread.execute { [weak self] in self?.statusSliceDue() }
    }

    /// One loop turn's slice: of the oldest page waiting, which goes to the back unless complete.
    private func statusSliceDue() {
        self.statusPages.isScheduled = false
        defer { self.scheduleStatusSlice() }
        guard !self.statusPages.waiting.isEmpty else { return }
        var work = self.statusPages.waiting.removeFirst()
        // A connection closed since: its page is dropped.
        guard self.replyOrder.isWaiting(work.ticket, for: work.connection) else { return }
        let compared = work.cursor.compared
        guard
            let rows = self.scheduler.statusPageSlice(
                &work.cursor,
                compareLimit: Self.statusSliceCompareLimit,
                stepLimit: Self.statusSliceStepLimit,
                snapshotLimit: Self.statusSliceRowLimit
            )
        else { return }
        self.statusPages.counts.slices += 1
        self.statusPages.counts.mostCompared = max(
            self.statusPages.counts.mostCompared,
            work.cursor.compared - compared
        )
        self.statusPages.counts.mostRows = max(self.statusPages.counts.mostRows, rows.count)
        let processes = processRows(of: self.scheduler, apps: rows.map(\.app))
        var slice = ControlReply(id: work.id, ok: true)
        slice.apps = rows.map { AppStatusPayload($0, process: processes[$0.app]) }
        self.addRuns(to: &slice, statuses: rows, history: work.history)
        work.apps += slice.apps ?? []
        guard work.cursor.isComplete else {
            self.statusPages.waiting.append(work)
            return
        }
        self.statusPages.counts.pages += 1
        self.completeStatusPage(work)
    }

    /// Sends the complete page: encoded off the loop, or an unknown app's refusal at once.
    private func completeStatusPage(_ work: StatusPageWork) {
        let query = work.cursor.query
        // With a filter as well, an app that does not pass it has no row (`runway status --watch` asks so).
        if let app = work.app, work.apps.isEmpty, query.state == nil, query.pattern == nil {
            let refusal = ControlReply.failure("unknownApp", "unknownApp: no app '\(app)' is registered", id: work.id)
            self.encoded(ControlProtocol.encodedLine(refusal), ticket: work.ticket, for: work.connection)
            return
        }
        var reply = ControlReply(id: work.id, ok: true)
        reply.daemon = self.info()
        reply.apps = work.apps
        reply.matched = work.cursor.matched
        reply.next = work.cursor.next?.bundleIdentifier
        self.encodeOffLoop(reply, ticket: work.ticket, for: work.connection)
    }

    /// What the status slices did so far. Loop thread.
    var statusSliceCounts: StatusPageQueue.Counts { self.statusPages.counts }
}
