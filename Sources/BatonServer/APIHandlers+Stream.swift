import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird
import ServiceLifecycle

/// A run's events followed live as server-sent events (read scope).
extension APIHandlers {
    /// How long one stream stays open before it ends (the client reconnects with `Last-Event-ID`).
    static let longestStream: Duration = .seconds(30 * 60)

    /// `GET /api/v1/runs/{id}/events/stream`: each event as `id:` and `data:` lines, in id order, from
    /// after `Last-Event-ID` (or `?after=`); a `: keep-alive` comment every 15 s; once the run ended and
    /// its events were sent, `event: end` with its status, and the stream closes.
    func streamEvents(_ request: Request, _ rawID: String) async -> Response {
        let opened: (token: TokenRow, id: String, after: Int)
        do {
            let token = try await authorize(request, scope: .read)
            let id = try Self.runID(rawID)
            let after = try Self.streamStart(request)
            guard try await pool.run({ try $0.runStatus(id) }) != nil else { throw APIError.notFound("no run with id \(id)") }
            guard streams.take(token.name) else {
                throw APIError.rateLimited("token '\(token.name)' already follows \(streams.limit) event streams; close one first", retryAfter: 5)
            }
            opened = (token, id, after)
        } catch {
            return APIResponse.error(Self.apiError(error))
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let buffering = HTTPFields.Element.Name("X-Accel-Buffering") { headers[buffering] = "no" }
        let (pool, streams) = (pool, streams)
        let body = ResponseBody { writer in
            defer { streams.give(opened.token.name) }
            var after = opened.after
            var quietSince = ContinuousClock.now
            let closeAt = ContinuousClock.now + Self.longestStream
            while !Task.isCancelled, !Task.isShuttingDownGracefully, ContinuousClock.now < closeAt {
                let (status, events) = try await pool.run { [after] store -> (RunStatus?, [EventRow]) in
                    let status = try store.runStatus(opened.id)  // before the events: an end read here has all its events below
                    return (status, try store.events(ofRun: opened.id, after: after, limit: 500))
                }
                if !events.isEmpty {
                    var text = ""
                    for event in events { text += "id: \(event.id)\ndata: \(DashboardJSON.event(event).serialized())\n\n" }
                    try await writer.write(ByteBuffer(string: text))
                    after = events.last!.id
                    quietSince = ContinuousClock.now
                    continue
                }
                guard let status, !status.isTerminal else {
                    let end: JSON = ["status": status.map { .string($0.rawValue) } ?? .null]
                    try await writer.write(ByteBuffer(string: "event: end\ndata: \(end.serialized())\n\n"))
                    break
                }
                if ContinuousClock.now - quietSince >= .seconds(15) {
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    quietSince = ContinuousClock.now
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Where a stream starts: after `Last-Event-ID` (a reconnecting `EventSource` sends it), else `?after=`, else 0.
    static func streamStart(_ request: Request) throws -> Int {
        if let name = HTTPFields.Element.Name("Last-Event-ID"), let text = request.headers[name] {
            guard text.count <= 16, let id = Int(text), id >= 0, text.allSatisfy(\.isNumber) else {
                throw APIError.badRequest("Last-Event-ID: '\(text.prefix(40))' is not an event id this server sent")
            }
            return id
        }
        return try integer(request.uri.queryParameters.get("after").map { String($0) }, name: "after", range: 0...Self.largestEventID, default: 0)
    }
}
