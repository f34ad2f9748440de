import ArgumentParser
import RunwayControl

extension StatusCommand {
    /// The most apps the daemon lists in one `status` reply (`statusPageLimit`, Docs/ControlProtocol.md).
    static let pageLimit = 1_000

    /// `request`'s reply: with `--limit`, the one page asked for; without it, every page (each request at most
    /// `pageLimit` apps, so the daemon's loop serves other work between pages), merged into one reply with no
    /// `next`. At most `matched / pageLimit + 1` requests, plus one per app added while paging.
    func pages(_ request: ControlRequest, on client: ControlClient) throws -> ControlReply {
        var reply = try send(request, on: client)
        guard request.limit == nil, request.app == nil else { return reply }
        var next = reply.next
        while let after = next {
            var following = request
            following.after = after
            let page = try send(following, on: client)
            reply.apps = (reply.apps ?? []) + (page.apps ?? [])
            reply.matched = page.matched
            // A daemon that ignored `after` would send the same page for ever.
            guard page.next != after else {
                ErrorOutput.report(code: "badReply", message: "the daemon sent the page after \(after) twice")
                throw ExitCode(ControlExit.replyFailed)
            }
            next = page.next
        }
        reply.next = nil
        return reply
    }

    /// The line under the table when it does not list every app that matched: `shown 50 of 10000 apps that
    /// match; next page: --limit 50 --after com.example.app49`. Nil when nothing was cut.
    static func cutNote(_ reply: ControlReply, limit: Int?) -> String? {
        let shown = reply.apps?.count ?? 0
        guard let matched = reply.matched, matched > shown else { return nil }
        var note = "shown \(shown) of \(matched) apps that match"
        if let next = reply.next { note += "; next page: --limit \(limit ?? shown) --after \(next)" }
        return note
    }
}
