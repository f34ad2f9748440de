@_spi(Processes) import Runway
@_spi(Processes) @_spi(Driver) import RunwayCore

extension ControlService {
    /// The most apps in one `status` reply, and the number listed when the request gives no `limit`: a page of
    /// 1,000 rows is about 250 KB of JSON, which the daemon holds until sent. A client pages through more with
    /// `after` (`runway status` does, one request per page); each page is taken in slices
    /// (`ControlService+StatusSlices.swift`).
    static let statusPageLimit = 1_000

    /// `status`: one page of the apps the request's filter selects (`app`, `state`, `appPattern`), at most `limit`
    /// (`statusPageLimit` by default), with how many matched and the `next` page's start when the page was cut.
    ///
    /// Work on the loop, in this one turn: O(apps) compares, then snapshots, process rows and runs of the listed
    /// apps only. A request on a connection goes through `statusOnConnection` instead, in bounded slices.
    func statusReply(_ request: ControlRequest, app: AppID?, id: Int?) -> ControlReply {
        if request.summary == true { return self.summaryReply(request, app: app, id: id) }
        let query: StatusQuery
        switch Self.statusQuery(request, app: app) {
        case .success(let value): query = value
        case .failure(let problem): return .failure(problem.code, problem.message, id: id)
        }
        let page = self.scheduler.statusPage(query)
        // With a filter as well, an app that does not pass it has no row (`runway status --watch` asks so).
        if let app, page.statuses.isEmpty, query.state == nil, query.pattern == nil {
            return .failure("unknownApp", "unknownApp: no app '\(app)' is registered", id: id)
        }
        let rows = processRows(of: self.scheduler, apps: page.statuses.map(\.app))
        var reply = ControlReply(id: id, ok: true)
        reply.daemon = self.info()
        reply.apps = page.statuses.map { AppStatusPayload($0, process: rows[$0.app]) }
        reply.matched = page.matched
        reply.next = page.next?.bundleIdentifier
        self.addRuns(to: &reply, statuses: page.statuses, history: request.history ?? (app != nil))
        return reply
    }

    /// The query a `status` request asks for, or the field that is wrong and what it expects.
    static func statusQuery(_ request: ControlRequest, app: AppID?) -> Result<StatusQuery, ControlErrorPayload> {
        func invalid(_ message: String) -> Result<StatusQuery, ControlErrorPayload> {
            .failure(ControlErrorPayload(code: "invalidRequest", message: message))
        }
        var state: AppState?
        if let name = request.state {
            guard let parsed = AppState(rawValue: name) else {
                let names = AppState.allCases.map(\.rawValue).joined(separator: ", ")
                return invalid("field 'state': unknown state '\(name)'; expected one of \(names)")
            }
            state = parsed
        }
        var pattern: AppPattern?
        if let text = request.appPattern {
            guard let parsed = AppPattern(text) else {
                return invalid(
                    "field 'appPattern': expected a pattern of 1 to \(AppPattern.byteLimit) bytes (* and ? as in the "
                        + "shell)"
                )
            }
            pattern = parsed
        }
        let limit = request.limit ?? Self.statusPageLimit
        guard limit >= 1, limit <= Self.statusPageLimit else {
            return invalid(
                "field 'limit': \(limit) is outside 1 ... \(Self.statusPageLimit), the most apps in one status reply "
                    + "(statusPageLimit); page through more with 'after'"
            )
        }
        if let after = request.after, after.isEmpty { return invalid("field 'after': must not be empty") }
        return .success(
            StatusQuery(
                app: app,
                state: state,
                pattern: pattern,
                after: request.after.map { AppID($0) },
                limit: limit,
                taskLimit: request.tasks == true ? .max : Self.statusTaskLimit
            )
        )
    }
}
